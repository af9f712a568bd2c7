package evaluation

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/schedlab/schedlab/internal/section"
)

// A Section is the typed handle of an experiment's section of the run
// configuration, eval.<key> (key: the experiment's id, dashes as
// underscores): its registration declares it (Experiment.Settings) beside
// the section's defaults and checks, and code reads and writes the
// section through it, so that Config holds no field per experiment. It is
// internal/section's handle (section.Of) over Config's section.Set, keyed
// by the experiment's id.
type Section[T any] struct {
	id string
	of section.Of[T]
}

// NewSection is the handle of the section of the experiment id, of type
// T (a struct whose fields are the section's keys, named by their
// mapstructure, yaml and json tags, as any section of the configuration).
func NewSection[T any](id string) Section[T] {
	if reflect.TypeFor[T]().Kind() != reflect.Struct {
		panic("evaluation: NewSection: section " + id + " is not a struct")
	}
	return Section[T]{id: id, of: section.New[T](sectionKey(id))}
}

// ID is the experiment whose section it is.
func (s Section[T]) ID() string { return s.id }

// Get is the section's value in c, its zero value when c holds none.
func (s Section[T]) Get(c *Config) T { return s.of.Get(c.sections) }

// Set gives the section the value v in c. A copy of c made before keeps
// its own value: sections are values, like Config's fields.
func (s Section[T]) Set(c *Config, v T) { s.of.Put(&c.sections, v) }

// Edit applies edit to the section's value in c.
func (s Section[T]) Edit(c *Config, edit func(*T)) { s.of.Edit(&c.sections, edit) }

func (s Section[T]) zero() any { return s.of.Zero() }

// SectionType is what Experiment.Settings holds: a Section of some type.
type SectionType interface {
	ID() string
	zero() any
}

// sectionKey is the key under eval of the experiment id's section.
func sectionKey(id string) string { return strings.ReplaceAll(id, "-", "_") }

// registeredSections are the registered experiments' section types, by
// key, and their keys in registration order.
func registeredSections() (map[string]SectionType, []string) {
	registry.RLock()
	defer registry.RUnlock()
	byKey := map[string]SectionType{}
	var keys []string
	for _, e := range registry.list {
		if e.Settings != nil {
			k := sectionKey(e.ID)
			byKey[k] = e.Settings
			keys = append(keys, k)
		}
	}
	return byKey, keys
}

// SectionKeys are the keys under eval of the registered experiments'
// sections, in registration order: with SectionValue and SetSectionValue,
// what a decoder of the configuration needs to treat them as Config's
// fields.
func (c Config) SectionKeys() []string {
	_, keys := registeredSections()
	return keys
}

// SectionValue is a pointer to a copy of the section under key (its zero
// value when c holds none), false when no experiment registers the key.
func (c Config) SectionValue(key string) (any, bool) {
	types, _ := registeredSections()
	st, ok := types[key]
	if !ok {
		return nil, false
	}
	v, ok := c.sections.Get(key)
	if !ok {
		v = st.zero()
	}
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	return p.Interface(), true
}

// SetSectionValue sets the section under key from p, a pointer to a value
// of its type as SectionValue gives; it panics on another type, a
// programming error.
func (c *Config) SetSectionValue(key string, p any) {
	types, _ := registeredSections()
	st, ok := types[key]
	rv := reflect.ValueOf(p)
	if !ok || rv.Kind() != reflect.Pointer || rv.Elem().Type() != reflect.TypeOf(st.zero()) {
		panic(fmt.Sprintf("evaluation: SetSectionValue: no section %q of type %T", key, p))
	}
	c.sections.Put(key, rv.Elem().Interface())
}

// hashOrder is the order of Config's keys in its JSON and YAML, as they
// were when every section was a field of Config. It is frozen so that
// configuration hashes (JSON) and `schedlab config show` stay what they
// were: a registered section it names goes where its field was (after
// the key before it here); one it does not name (a section added since)
// goes last, in registration order.
var hashOrder = []string{"experiments", "seeds", "das_table1", "das_load", "das_tuning", "marl_arrivals",
	"marl_servers", "marl_topologies", "marl_vs_single", "sensitivity", "calibration", "preemptive"}

// ordered is c's keys and values: Config's fields in their order, by
// their json tag (as encoding/json writes a struct), with every
// registered section (its zero value when unset) after the key that
// precedes it in hashOrder, and the sections hashOrder does not name
// last, in registration order (section.Place).
func (c Config) ordered() []section.KeyValue {
	types, keys := registeredSections()
	var sections []section.KeyValue
	for _, k := range keys {
		v, ok := c.sections.Get(k)
		if !ok {
			v = types[k].zero()
		}
		sections = append(sections, section.KeyValue{Key: k, Val: v})
	}
	return section.Place(section.Fields(c), sections, hashOrder)
}

// Keys are c's keys in order (ordered), its fields' and its registered
// sections'.
func (c Config) Keys() []string { return section.Keys(c.ordered()) }

// MarshalJSON writes c's keys in order (ordered): the bytes of the
// configuration hash.
func (c Config) MarshalJSON() ([]byte, error) { return section.MarshalJSON(c.ordered(), "eval") }

// UnmarshalJSON reads what MarshalJSON writes into c, over its values: a
// key the JSON lacks keeps c's (as encoding/json does with a struct's
// fields); unknown keys are ignored.
func (c *Config) UnmarshalJSON(data []byte) error {
	type fields Config // without the methods: encoding/json fills the fields
	f := fields(*c)
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := Config(f)
	for _, k := range out.SectionKeys() {
		r, ok := raw[k]
		if !ok {
			continue
		}
		p, _ := out.SectionValue(k)
		if err := json.Unmarshal(r, p); err != nil {
			return fmt.Errorf("eval.%s: %w", k, err)
		}
		out.SetSectionValue(k, p)
	}
	*c = out
	return nil
}

// MarshalYAML writes c's keys in order (ordered): `schedlab config show`.
func (c Config) MarshalYAML() (any, error) { return section.MarshalYAML(c.ordered(), "eval") }
