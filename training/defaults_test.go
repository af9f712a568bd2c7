package training

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestSectionDefaults: SectionDefaults declares exactly the fields of
// Sections, each decoded strictly into its type (an unknown key fails)
// and giving every key of it.
func TestSectionDefaults(t *testing.T) {
	secs := SectionDefaults()
	st := reflect.TypeFor[Sections]()
	if len(secs) != st.NumField() {
		t.Errorf("SectionDefaults declares %d sections; Sections has %d", len(secs), st.NumField())
	}
	for i := range st.NumField() {
		name, typ := strings.ToLower(st.Field(i).Name), st.Field(i).Type
		text, ok := secs[name]
		if !ok {
			t.Errorf("SectionDefaults has no %s (train.%s)", name, name)
			continue
		}
		dec := yaml.NewDecoder(strings.NewReader(text))
		dec.KnownFields(true)
		if err := dec.Decode(reflect.New(typ).Interface()); err != nil {
			t.Errorf("train.%s: its defaults do not decode into %s: %v", name, typ, err)
			continue
		}
		var given map[string]any
		if err := yaml.Unmarshal([]byte(text), &given); err != nil {
			t.Fatal(err)
		}
		for j := range typ.NumField() {
			key, _, _ := strings.Cut(typ.Field(j).Tag.Get("yaml"), ",")
			if _, ok := given[key]; !ok {
				t.Errorf("train.%s: its defaults do not give %s", name, key)
			}
		}
	}
}
