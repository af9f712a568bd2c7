// Package section holds the sections of the run configuration that kinds
// (a learned family, a heuristic) declare with their registration rather
// than as a field of a central struct: a typed handle per section (Of),
// the values by key (Set, copied on write, so that a copy of a
// configuration never shares a change), a registry of declarations
// (Registry: key, type, defaults as documented YAML, range check) and the
// ordered JSON and YAML encoding of a struct that holds a Set beside its
// own fields (Ordered, MarshalJSON, MarshalYAML, UnmarshalJSON).
//
// A configuration struct holding a Set gives the decoder of
// cmd/schedlab its keys in order (Keys), its sections' keys (SectionKeys)
// and a pointer to a copy of each to decode into (SectionValue,
// SetSectionValue): Registry implements the last three over a Set.
package section

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Set holds sections' values by key. Its zero value holds none; a key it
// does not hold reads as its type's zero value.
type Set struct{ m map[string]any }

// Get is the value under key, false when s holds none.
func (s Set) Get(key string) (any, bool) {
	v, ok := s.m[key]
	return v, ok
}

// Put sets key to v; a copy of s made before keeps its own values.
func (s *Set) Put(key string, v any) {
	m := maps.Clone(s.m)
	if m == nil {
		m = map[string]any{}
	}
	m[key] = v
	s.m = m
}

// Type is a section's key and type, what a Registry holds.
type Type interface {
	Key() string
	Zero() any
}

// Of is the typed handle of the section under key, of type T (a struct
// whose fields are the section's keys, named by their mapstructure, yaml
// and json tags).
type Of[T any] struct{ key string }

// New is the handle of the section key of type T; it panics when T is not
// a struct (a programming error).
func New[T any](key string) Of[T] {
	if reflect.TypeFor[T]().Kind() != reflect.Struct {
		panic("section: New: section " + key + " is not a struct")
	}
	return Of[T]{key: key}
}

// Key is the section's key.
func (s Of[T]) Key() string { return s.key }

// Zero is T's zero value.
func (s Of[T]) Zero() any { var v T; return v }

// Get is the section's value in set, its zero value when set holds none.
func (s Of[T]) Get(set Set) T {
	v, _ := set.m[s.key].(T)
	return v
}

// Put gives the section the value v in set.
func (s Of[T]) Put(set *Set, v T) { set.Put(s.key, v) }

// With is a copy of set whose section is v.
func (s Of[T]) With(set Set, v T) Set {
	s.Put(&set, v)
	return set
}

// Edit applies edit to the section's value in set.
func (s Of[T]) Edit(set *Set, edit func(*T)) {
	v := s.Get(*set)
	edit(&v)
	s.Put(set, v)
}

// Decl is one declared section: its type, its keys' defaults with a
// comment on each (YAML, as `schedlab config defaults` prints them), who
// declares it (for errors) and its range check.
type Decl struct {
	Type     Type
	Defaults string
	From     string
	check    func(v any, e *Errs)
	def      any // the value of a section a Set does not hold; nil: Type's zero
}

// Default is the value of the section where a Set holds none: the
// declared default (DeclareDefault), else its type's zero value.
func (d Decl) Default() any {
	if d.def != nil {
		return d.def
	}
	return d.Type.Zero()
}

// Registry is the declared sections under one key of the configuration
// (prefix, e.g. "train"), in declaration order.
type Registry struct {
	prefix string
	mu     sync.RWMutex
	decls  []Decl
}

// NewRegistry is an empty registry of the sections under prefix.
func NewRegistry(prefix string) *Registry { return &Registry{prefix: prefix} }

// Declare adds the section s to r with its defaults and check (nil:
// none), and returns s. It panics on a key declared twice: declaring is a
// programmer's act, done once in a package variable or init.
func Declare[T any](r *Registry, s Of[T], from, defaults string, check func(T, *Errs)) Of[T] {
	return declare(r, s, from, defaults, check, nil)
}

// DeclareDefault is Declare for a section whose value, where a Set holds
// none, is def rather than T's zero value: a Set holding nothing then
// means every section at its default (Registry.Value, Check, Ordered and
// Of.Default read it so).
func DeclareDefault[T any](r *Registry, s Of[T], from, defaults string, def T, check func(T, *Errs)) Of[T] {
	return declare(r, s, from, defaults, check, def)
}

func declare[T any](r *Registry, s Of[T], from, defaults string, check func(T, *Errs), def any) Of[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.ContainsFunc(r.decls, func(d Decl) bool { return d.Type.Key() == s.key }) {
		panic(fmt.Sprintf("section: %s.%s declared twice", r.prefix, s.key))
	}
	d := Decl{Type: s, Defaults: defaults, From: from, def: def}
	if check != nil {
		d.check = func(v any, e *Errs) { check(v.(T), e) }
	}
	r.decls = append(r.decls, d)
	return s
}

// Decls are r's sections in declaration order.
func (r *Registry) Decls() []Decl {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.decls)
}

func (r *Registry) lookup(key string) (Decl, bool) {
	for _, d := range r.Decls() {
		if d.Type.Key() == key {
			return d, true
		}
	}
	return Decl{}, false
}

// Get is the section key's value in set, its default when set holds
// none; false when r declares no such key.
func (r *Registry) Get(set Set, key string) (any, bool) {
	d, ok := r.lookup(key)
	if !ok {
		return nil, false
	}
	if v, ok := set.m[key]; ok {
		return v, true
	}
	return d.Default(), true
}

// Keys are r's sections' keys in declaration order.
func (r *Registry) Keys() []string {
	var out []string
	for _, d := range r.Decls() {
		out = append(out, d.Type.Key())
	}
	return out
}

// Value is a pointer to a copy of the section key's value in set (its
// zero value when set holds none), false when r declares no such key.
func (r *Registry) Value(set Set, key string) (any, bool) {
	v, ok := r.Get(set, key)
	if !ok {
		return nil, false
	}
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	return p.Interface(), true
}

// SetValue sets the section key in set from p, a pointer to a value of
// its type as Value gives; it panics on another type, a programming
// error.
func (r *Registry) SetValue(set *Set, key string, p any) {
	d, ok := r.lookup(key)
	rv := reflect.ValueOf(p)
	if !ok || rv.Kind() != reflect.Pointer || rv.Elem().Type() != reflect.TypeOf(d.Type.Zero()) {
		panic(fmt.Sprintf("section: SetValue: no section %s.%s of type %T", r.prefix, key, p))
	}
	set.Put(key, rv.Elem().Interface())
}

// Check runs every declared section's check on its value in set (its
// zero value when set holds none): one error per bad key, each named in
// full (prefix.section.key).
func (r *Registry) Check(set Set) error {
	var errs []error
	for _, d := range r.Decls() {
		if d.check == nil {
			continue
		}
		v, ok := set.m[d.Type.Key()]
		if !ok {
			v = d.Default()
		}
		e := &Errs{root: r.prefix + ".", prefix: r.prefix + "." + d.Type.Key() + "."}
		d.check(v, e)
		errs = append(errs, e.errs...)
	}
	return errors.Join(errs...)
}

// Errs collects a section check's errors, each naming its key in full.
type Errs struct {
	root, prefix string
	errs         []error
}

// AddNamed reports err, whose message already begins with the section's
// key and its own (section.key: ...), as a check shared with another
// path of configuration words it: only the registry's prefix is added.
func (e *Errs) AddNamed(err error) {
	e.errs = append(e.errs, fmt.Errorf("%s%w", e.root, err))
}

// Add reports err on key (a key of the section, or key[i]).
func (e *Errs) Add(key string, err error) {
	e.errs = append(e.errs, fmt.Errorf("%s%s: %w", e.prefix, key, err))
}

// Addf reports a message on key.
func (e *Errs) Addf(key, format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf("%s%s: %s", e.prefix, key, fmt.Sprintf(format, args...)))
}

// InRange reports v outside [lo, hi].
func (e *Errs) InRange(key string, v, lo, hi int) {
	if v < lo || v > hi {
		e.Addf(key, "must be in [%d, %d], got %d", lo, hi, v)
	}
}

// KeyValue is one key of an ordered encoding and its value.
type KeyValue struct {
	Key string
	Val any
	// OmitJSON and OmitYAML: a field left out of that encoding (its tag
	// says omitempty or omitzero, and it is zero).
	OmitJSON, OmitYAML bool
}

// Ordered is the keys and values of a struct value holding a Set: its
// exported fields in their order, by their json tag (as encoding/json
// writes a struct), with each of r's sections (its zero value when set
// holds none) placed as Place places them. order freezes where the
// sections go, so that encodings made when they were fields stay.
func Ordered(fields any, set Set, r *Registry, order []string) []KeyValue {
	var sections []KeyValue
	for _, d := range r.Decls() {
		k := d.Type.Key()
		v, ok := set.m[k]
		if !ok {
			v = d.Default()
		}
		sections = append(sections, KeyValue{Key: k, Val: v})
	}
	return Place(Fields(fields), sections, order)
}

// Fields is the keys and values of the struct value fields: its exported
// fields in their order, by their json tag (as encoding/json writes a
// struct).
func Fields(fields any) []KeyValue {
	var out []KeyValue
	rv := reflect.ValueOf(fields)
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omit := func(tag string) bool {
			_, o, _ := strings.Cut(f.Tag.Get(tag), ",")
			return (strings.Contains(o, "omitempty") || strings.Contains(o, "omitzero")) && rv.Field(i).IsZero()
		}
		out = append(out, KeyValue{Key: name, Val: rv.Field(i).Interface(), OmitJSON: omit("json"), OmitYAML: omit("yaml")})
	}
	return out
}

// Place is out with the sections added: each after the nearest key
// before it in order that out holds (first where none), and the sections
// order does not name last, in their given order.
func Place(out, sections []KeyValue, order []string) []KeyValue {
	var rest []KeyValue
	for _, kv := range sections {
		at := slices.Index(order, kv.Key)
		if at < 0 {
			rest = append(rest, kv)
			continue
		}
		pos := 0
		for _, prev := range slices.Backward(order[:at]) {
			if j := slices.IndexFunc(out, func(x KeyValue) bool { return x.Key == prev }); j >= 0 {
				pos = j + 1
				break
			}
		}
		out = slices.Insert(out, pos, kv)
	}
	return append(out, rest...)
}

// Keys are the keys of kvs.
func Keys(kvs []KeyValue) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = kv.Key
	}
	return out
}

// MarshalJSON writes kvs as one JSON object, in their order; prefix names
// the configuration's key in errors.
func MarshalJSON(kvs []KeyValue, prefix string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, kv := range kvs {
		if kv.OmitJSON {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Val)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", prefix, kv.Key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MarshalYAML is kvs as one YAML mapping, in their order.
func MarshalYAML(kvs []KeyValue, prefix string) (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, kv := range kvs {
		if kv.OmitYAML {
			continue
		}
		var v yaml.Node
		if err := v.Encode(kv.Val); err != nil {
			return nil, fmt.Errorf("%s.%s: %w", prefix, kv.Key, err)
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kv.Key}, &v)
	}
	return n, nil
}

// UnmarshalJSON reads into set, over its values, r's sections that the
// JSON object data holds; other keys are ignored (the struct's own
// fields are read by encoding/json).
func UnmarshalJSON(data []byte, set *Set, r *Registry, prefix string) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for _, k := range r.Keys() {
		m, ok := raw[k]
		if !ok {
			continue
		}
		p, _ := r.Value(*set, k)
		if err := json.Unmarshal(m, p); err != nil {
			return fmt.Errorf("%s.%s: %w", prefix, k, err)
		}
		r.SetValue(set, k, p)
	}
	return nil
}

// AtDefault reports whether the section key holds its default in set
// (equal values, as reflect.DeepEqual compares them).
func (r *Registry) AtDefault(set Set, key string) bool {
	d, ok := r.lookup(key)
	if !ok {
		return true
	}
	v, ok := set.m[key]
	return !ok || reflect.DeepEqual(v, d.Default())
}
