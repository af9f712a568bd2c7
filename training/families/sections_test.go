package families_test

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/schedlab/schedlab/training"
)

// TestSectionDefaults: every train.* section a family declares gives its
// defaults decoded strictly into its type (an unknown key fails) and
// giving every key of it; every family's Section is a declared one; and
// the declared defaults pass the section's own range check.
func TestSectionDefaults(t *testing.T) {
	decls := training.SectionRegistry.Decls()
	if len(decls) == 0 {
		t.Fatal("no train.* section declared")
	}
	declared := map[string]bool{}
	var defaults training.Sections
	for _, d := range decls {
		key, text := d.Type.Key(), d.Defaults
		declared[key] = true
		typ := reflect.TypeOf(d.Type.Zero())
		p := reflect.New(typ)
		dec := yaml.NewDecoder(strings.NewReader(text))
		dec.KnownFields(true)
		if err := dec.Decode(p.Interface()); err != nil {
			t.Errorf("train.%s: its defaults do not decode into %s: %v", key, typ, err)
			continue
		}
		training.SectionRegistry.SetValue(&defaults, key, p.Interface())
		var given map[string]any
		if err := yaml.Unmarshal([]byte(text), &given); err != nil {
			t.Fatal(err)
		}
		for j := range typ.NumField() {
			k, _, _ := strings.Cut(typ.Field(j).Tag.Get("yaml"), ",")
			if _, ok := given[k]; !ok {
				t.Errorf("train.%s: its defaults do not give %s", key, k)
			}
		}
	}
	if err := training.SectionRegistry.Check(defaults); err != nil {
		t.Errorf("the declared defaults fail their checks: %v", err)
	}
	for _, name := range training.Families() {
		f, _ := training.Lookup(name)
		if !declared[f.Section()] {
			t.Errorf("family %s reads train.%s, which no package declares", name, f.Section())
		}
	}
}
