package evaluation

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestEveryExperimentDeclaresItsSection: an experiment with a section of
// Config declares its defaults in its registration, and the declaration is
// the section: decoded strictly into the section's type (an unknown key
// fails), giving every key of it. (That each key has a comment, and that
// the defaults pass CheckConfig, cmd/schedlab's tests check on the
// assembled page.)
func TestEveryExperimentDeclaresItsSection(t *testing.T) {
	fields := sectionTypes()
	n := 0
	for _, e := range Experiments() {
		key := e.ConfigKey()
		if key == "" {
			if e.Defaults != "" {
				t.Errorf("%s declares defaults but has no section", e.ID)
			}
			continue
		}
		n++
		typ := fields[strings.TrimPrefix(key, "eval.")]
		v := reflect.New(typ)
		dec := yaml.NewDecoder(strings.NewReader(e.Defaults))
		dec.KnownFields(true)
		if err := dec.Decode(v.Interface()); err != nil {
			t.Errorf("%s: its Defaults do not decode into %s: %v", e.ID, typ, err)
			continue
		}
		var given map[string]any
		if err := yaml.Unmarshal([]byte(e.Defaults), &given); err != nil {
			t.Fatal(err)
		}
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("yaml"), ",")
			if _, ok := given[name]; !ok {
				t.Errorf("%s: its Defaults do not give %s.%s", e.ID, key, name)
			}
		}
	}
	if n != len(fields) {
		t.Errorf("%d experiments declare a section; Config has %d sections", n, len(fields))
	}
}

// sectionTypes are the types of Config's sections by key: the registered
// sections.
func sectionTypes() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var c Config
	for _, k := range c.SectionKeys() {
		p, _ := c.SectionValue(k)
		out[k] = reflect.TypeOf(p).Elem()
	}
	return out
}
