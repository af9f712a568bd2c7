package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/stages"
	"go.yaml.in/yaml/v3"
)

// The configuration's layers (embedded defaults, preset, --config file,
// SCHEDLAB_* variables, flags and --set) are parsed into one tree of
// cfgValue, merged, and decoded into stages.Config by decodeConfig under one
// set of rules, whatever layer a value came from:
//
//   - an integer key takes an integer that fits its Go type (seed ≥ 0): no
//     floats (2.7, 1e3), booleans or null;
//   - a number key takes a finite number (no .inf, .nan, 1e400); an
//     integer literal is exact up to 2^53;
//   - a string key takes a string (YAML `out: 2024` is a number: quote it),
//     a boolean key true or false, a list key a list, a section a mapping;
//   - an unknown or repeated key is refused; text must be valid UTF-8.
//
// Values from the environment and the command line are text: parsed by
// the key's type (base-10 integers, Go float syntax, true/false; a list is
// comma-separated), then held to the same rules. Every error names the
// key, the value and where it came from (file and line, variable, flag).
//
// It replaces viper's decoding, whose weak typing turned `seed: -1` into
// 2^64−1, `seed: 1.5` and `seed: true` into 1 and `seed: null` into 0, and
// let `.inf` through to a hash that could not encode it.

type valueKind int

const (
	kindScalar valueKind = iota
	kindList
	kindMapping
)

// cfgValue is one node of a configuration layer.
type cfgValue struct {
	kind valueKind
	// scalar is nil (YAML null), bool, int64, uint64, float64 or string;
	// for a value from text (env, flags) it is the string.
	scalar any
	// fromText marks environment and command-line values: strings to parse
	// by the key's type.
	fromText bool
	// raw is the value as written, for messages; tag is the YAML tag
	// (!!int, !!str ...), "" for text.
	raw, tag string
	// rangeErr marks a YAML number that does not fit in its type
	// (99999999999999999999, 1e400).
	rangeErr bool
	items    []*cfgValue
	fields   map[string]*cfgValue
	order    []string // keys of fields, as written
	origin   string   // "config file c.yaml, line 3", "environment variable SCHEDLAB_SEED"
}

// maxConfigNodes bounds the nodes a layer may expand to: YAML aliases can
// make a few hundred bytes name billions of nodes.
const maxConfigNodes = 100000

// parseYAMLLayer parses one YAML document into a mapping; an empty
// document is an empty mapping.
func parseYAMLLayer(data []byte, layer string) (*cfgValue, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &cfgValue{kind: kindMapping, fields: map[string]*cfgValue{}, origin: layer}, nil
		}
		return nil, fmt.Errorf("%s: %v", layer, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: holds more than one YAML document (want one mapping of keys)", layer)
	}
	p := &yamlParser{layer: layer}
	v, err := p.convert(&doc, 0)
	if err != nil {
		return nil, err
	}
	if v.kind == kindScalar && v.scalar == nil { // a document of comments only
		return &cfgValue{kind: kindMapping, fields: map[string]*cfgValue{}, origin: layer}, nil
	}
	if v.kind != kindMapping {
		return nil, fmt.Errorf("%s: want a mapping of keys, got %s", layer, v.describe())
	}
	return v, nil
}

type yamlParser struct {
	layer string
	nodes int
}

func (p *yamlParser) at(n *yaml.Node) string {
	return fmt.Sprintf("%s, line %d", p.layer, n.Line)
}

func (p *yamlParser) convert(n *yaml.Node, depth int) (*cfgValue, error) {
	p.nodes++
	if p.nodes > maxConfigNodes || depth > 100 {
		return nil, fmt.Errorf("%s: more than %d values or nested more than 100 deep (aliases?)", p.at(n), maxConfigNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return &cfgValue{kind: kindScalar, origin: p.at(n)}, nil
		}
		return p.convert(n.Content[0], depth+1)
	case yaml.AliasNode:
		return p.convert(n.Alias, depth+1)
	case yaml.SequenceNode:
		v := &cfgValue{kind: kindList, origin: p.at(n)}
		for _, c := range n.Content {
			item, err := p.convert(c, depth+1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, item)
		}
		return v, nil
	case yaml.MappingNode:
		v := &cfgValue{kind: kindMapping, fields: map[string]*cfgValue{}, origin: p.at(n)}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				if k.ShortTag() == "!!merge" {
					return nil, fmt.Errorf("%s: merge keys (<<) are not supported: write the keys out", p.at(k))
				}
				return nil, fmt.Errorf("%s: a key must be a name, got %q", p.at(k), k.Value)
			}
			if prev, dup := v.fields[k.Value]; dup {
				return nil, fmt.Errorf("%s: key %q given twice (first at %s)", p.at(k), k.Value, prev.origin)
			}
			val, err := p.convert(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			v.fields[k.Value] = val
			v.order = append(v.order, k.Value)
		}
		return v, nil
	case yaml.ScalarNode:
		return p.scalar(n)
	}
	return nil, fmt.Errorf("%s: unexpected YAML node", p.at(n))
}

func (p *yamlParser) scalar(n *yaml.Node) (*cfgValue, error) {
	v := &cfgValue{kind: kindScalar, raw: n.Value, tag: n.ShortTag(), origin: p.at(n)}
	switch v.tag {
	case "!!null":
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, fmt.Errorf("%s: %v", p.at(n), err)
		}
		v.scalar = b
	case "!!int":
		var i int64
		var u uint64
		if n.Decode(&i) == nil {
			v.scalar = i
		} else if n.Decode(&u) == nil {
			v.scalar = u
		} else {
			v.scalar, v.rangeErr = n.Value, true
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s: %v", p.at(n), err)
		}
		v.scalar = f
		// yaml resolves an integer too long for 64 bits as a float.
		if _, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 10, 64); errors.Is(err, strconv.ErrRange) {
			v.rangeErr = true
		}
	case "!!str", "!!timestamp":
		v.scalar = n.Value
		// A plain scalar that parses as a number but not into a float64
		// (1e400) is a number out of range, not a string.
		if _, err := strconv.ParseFloat(n.Value, 64); n.Style == 0 && errors.Is(err, strconv.ErrRange) {
			v.rangeErr = true
		}
	default:
		return nil, fmt.Errorf("%s: unsupported YAML tag %s", p.at(n), v.tag)
	}
	return v, nil
}

// textValue is a value given as text (an environment variable, a flag).
func textValue(s, origin string) *cfgValue {
	return &cfgValue{kind: kindScalar, scalar: s, fromText: true, raw: s, origin: origin}
}

// describe shows a value in a message.
func (v *cfgValue) describe() string {
	switch v.kind {
	case kindList:
		return "a list"
	case kindMapping:
		return "a mapping"
	}
	if v.fromText {
		return strconv.Quote(v.raw)
	}
	switch v.scalar.(type) {
	case nil:
		return "null"
	case string:
		if v.rangeErr {
			return v.raw
		}
		return "the string " + strconv.Quote(v.raw)
	}
	return v.raw
}

// mergeValues overlays hi on lo: mappings merge key by key, anything else
// (scalars, lists) is replaced whole.
func mergeValues(lo, hi *cfgValue) *cfgValue {
	if lo == nil || lo.kind != kindMapping || hi.kind != kindMapping {
		return hi
	}
	out := &cfgValue{kind: kindMapping, fields: map[string]*cfgValue{}, origin: hi.origin}
	for _, k := range lo.order {
		out.fields[k] = lo.fields[k]
		out.order = append(out.order, k)
	}
	for _, k := range hi.order {
		if _, ok := out.fields[k]; !ok {
			out.order = append(out.order, k)
		}
		out.fields[k] = mergeValues(out.fields[k], hi.fields[k])
	}
	return out
}

// setPath sets the dotted key in tree (a mapping), creating the sections
// on its way. A section that a lower layer gave as something else
// (datasets: 5) is an error naming it: replacing it would drop its keys.
func setPath(tree *cfgValue, key string, v *cfgValue) (*cfgValue, error) {
	parts := strings.Split(key, ".")
	var set func(t *cfgValue, i int) (*cfgValue, error)
	set = func(t *cfgValue, i int) (*cfgValue, error) {
		if i == len(parts) {
			return v, nil
		}
		c := cfgValue{kind: kindMapping, fields: map[string]*cfgValue{}, origin: v.origin}
		if t != nil {
			if t.kind != kindMapping {
				return nil, fmt.Errorf("%s: must be a section (a mapping of keys), got %s (%s)", strings.Join(parts[:i], "."), t.describe(), t.origin)
			}
			c = *t
			c.fields = make(map[string]*cfgValue, len(t.fields))
			for k, f := range t.fields {
				c.fields[k] = f
			}
			c.order = append([]string(nil), t.order...)
		}
		if _, ok := c.fields[parts[i]]; !ok {
			c.order = append(c.order, parts[i])
		}
		f, err := set(c.fields[parts[i]], i+1)
		if err != nil {
			return nil, err
		}
		c.fields[parts[i]] = f
		return &c, nil
	}
	return set(tree, 0)
}

// configLeaves lists every configuration key that takes a value (sections
// excluded; a list of sections, such as datasets.ingest, is one key). The
// map is shared: read it, never modify it.
func configLeaves() map[string]bool { return leavesOnce() }

var leavesOnce = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for _, f := range configKeys(t) {
			key := prefix + f.name
			if f.typ.Kind() == reflect.Struct {
				walk(f.typ, key+".")
			} else {
				out[key] = true
			}
		}
	}
	walk(reflect.TypeFor[stages.Config](), "")
	return out
})

// sectioned is a section of the configuration that holds, besides its
// fields, sections that kinds declare with their registration
// (evaluation.Config): its keys in order, and for each registered section
// a pointer to a copy of its value to decode into, and the setter.
type sectioned interface {
	Keys() []string
	SectionKeys() []string
	SectionValue(key string) (any, bool)
	SetSectionValue(key string, p any)
}

// asSectioned is rv (a struct) as a sectioned, false when it is not one.
// An addressable rv is itself set by SetSectionValue; any other is a copy.
func asSectioned(rv reflect.Value) (sectioned, bool) {
	if rv.CanAddr() {
		s, ok := rv.Addr().Interface().(sectioned)
		return s, ok
	}
	p := reflect.New(rv.Type())
	p.Elem().Set(rv)
	s, ok := p.Interface().(sectioned)
	return s, ok
}

// configKeys are the keys of the struct type t: its fields (structFields)
// and, when it is sectioned, its registered sections (index −1).
func configKeys(t reflect.Type) []fieldInfo {
	out := structFields(t)
	if s, ok := asSectioned(reflect.New(t).Elem()); ok {
		for _, k := range s.SectionKeys() {
			p, _ := s.SectionValue(k)
			out = append(out, fieldInfo{k, -1, reflect.TypeOf(p).Elem()})
		}
	}
	return out
}

type fieldInfo struct {
	name  string
	index int
	typ   reflect.Type
}

// structFields are the configuration keys of a struct: its exported
// fields, named by their mapstructure tag (the contract the presets and
// config show share).
func structFields(t reflect.Type) []fieldInfo {
	var out []fieldInfo
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, fieldInfo{name, i, f.Type})
	}
	return out
}

// decodeConfig decodes tree into out (a pointer to a struct) and reports
// every bad value, one per line.
func decodeConfig(tree *cfgValue, out any) error {
	d := &decoder{}
	d.decode(tree, reflect.ValueOf(out).Elem(), "")
	return errors.Join(d.errs...)
}

type decoder struct{ errs []error }

func (d *decoder) fail(key string, v *cfgValue, format string, args ...any) {
	d.errs = append(d.errs, fmt.Errorf("%s: %s, got %s (%s)", key, fmt.Sprintf(format, args...), v.describe(), v.origin))
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func (d *decoder) decode(v *cfgValue, rv reflect.Value, key string) {
	if rv.Kind() == reflect.Struct {
		name := key
		if name == "" {
			name = "the configuration"
		}
		if v.kind != kindMapping {
			d.fail(name, v, "must be a section (a mapping of keys)")
			return
		}
		byName := map[string]fieldInfo{}
		var names []string
		for _, f := range configKeys(rv.Type()) {
			byName[f.name] = f
			names = append(names, f.name)
		}
		sec, isSectioned := asSectioned(rv)
		if isSectioned {
			names = sec.Keys()
		}
		for _, k := range v.order {
			f, ok := byName[k]
			switch {
			case !ok:
				d.errs = append(d.errs, fmt.Errorf("unknown key %s (%s)%s (keys here: %s)", join(key, k), v.fields[k].origin, didyoumean.Suggest(k, names), strings.Join(names, ", ")))
			case f.index < 0: // a registered section: decoded over a copy, then set
				p, _ := sec.SectionValue(k)
				d.decode(v.fields[k], reflect.ValueOf(p).Elem(), join(key, k))
				sec.SetSectionValue(k, p)
			default:
				d.decode(v.fields[k], rv.Field(f.index), join(key, k))
			}
		}
		return
	}
	if rv.Kind() == reflect.Slice {
		d.decodeList(v, rv, key)
		return
	}
	if v.kind != kindScalar {
		d.fail(key, v, "must be %s", kindName(rv.Type()))
		return
	}
	if v.fromText {
		d.decodeText(v, rv, key)
		return
	}
	switch rv.Kind() {
	case reflect.String:
		s, ok := v.scalar.(string)
		if !ok || v.rangeErr {
			d.fail(key, v, "must be a string (quote it)")
			return
		}
		rv.SetString(s)
	case reflect.Bool:
		b, ok := v.scalar.(bool)
		if !ok {
			d.fail(key, v, "must be true or false")
			return
		}
		rv.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		switch x := v.scalar.(type) {
		case int64:
			if rv.OverflowInt(x) {
				d.fail(key, v, "out of range for an integer")
				return
			}
			rv.SetInt(x)
		case uint64:
			d.fail(key, v, "out of range for an integer")
		default:
			d.notInteger(key, v)
		}
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		switch x := v.scalar.(type) {
		case int64:
			if x < 0 {
				d.fail(key, v, "must be an integer ≥ 0")
				return
			}
			if rv.OverflowUint(uint64(x)) {
				d.fail(key, v, "out of range for an unsigned integer")
				return
			}
			rv.SetUint(uint64(x))
		case uint64:
			if rv.OverflowUint(x) {
				d.fail(key, v, "out of range for an unsigned integer")
				return
			}
			rv.SetUint(x)
		default:
			d.notInteger(key, v)
		}
	case reflect.Float64, reflect.Float32:
		var f float64
		switch x := v.scalar.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
			if x > 1<<53 || x < -(1<<53) {
				d.fail(key, v, "must be a number exact in 64-bit floating point (write it with an exponent)")
				return
			}
		case uint64:
			d.fail(key, v, "must be a number exact in 64-bit floating point (write it with an exponent)")
			return
		default:
			if v.rangeErr {
				d.fail(key, v, "out of range for a 64-bit floating-point number")
			} else {
				d.fail(key, v, "must be a number")
			}
			return
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			d.fail(key, v, "must be a finite number")
			return
		}
		rv.SetFloat(f)
	default:
		d.errs = append(d.errs, fmt.Errorf("%s: internal error: no decoding for %s", key, rv.Type()))
	}
}

func (d *decoder) notInteger(key string, v *cfgValue) {
	if v.rangeErr {
		d.fail(key, v, "out of range for an integer")
	} else {
		d.fail(key, v, "must be an integer")
	}
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "an integer ≥ 0"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "a list"
	}
	return "a section (a mapping of keys)"
}

func (d *decoder) decodeList(v *cfgValue, rv reflect.Value, key string) {
	elem := rv.Type().Elem()
	var items []*cfgValue
	switch {
	case v.kind == kindList:
		items = v.items
	case v.fromText:
		if k := elem.Kind(); k == reflect.Struct || k == reflect.Slice {
			d.fail(key, v, "must be a list of sections, which only a config file can give")
			return
		}
		// A list as text is comma-separated, in brackets or not (YAML's
		// flow style, [a, b], as a file would give it); "" and "[]" are
		// the empty list.
		s := strings.TrimSpace(v.raw)
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			s = strings.TrimSpace(s[1 : len(s)-1])
		}
		if s != "" {
			for _, part := range strings.Split(s, ",") {
				items = append(items, textValue(strings.TrimSpace(part), v.origin))
			}
		}
	default:
		d.fail(key, v, "must be a list")
		return
	}
	out := reflect.MakeSlice(rv.Type(), len(items), len(items))
	for i, it := range items {
		d.decode(it, out.Index(i), fmt.Sprintf("%s[%d]", key, i))
	}
	rv.Set(out)
}

// decodeText parses text by the key's type: the environment's and the
// command line's values.
func (d *decoder) decodeText(v *cfgValue, rv reflect.Value, key string) {
	s := v.raw
	switch rv.Kind() {
	case reflect.String:
		// YAML files are UTF-8 by rule; text must be too, or config show
		// could not print it back as a string.
		if !utf8.ValidString(s) {
			d.fail(key, v, "must be valid UTF-8 text")
			return
		}
		rv.SetString(s)
	case reflect.Bool:
		switch strings.ToLower(s) {
		case "true":
			rv.SetBool(true)
		case "false":
			rv.SetBool(false)
		default:
			d.fail(key, v, "must be true or false")
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		x, err := strconv.ParseInt(s, 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) || (err == nil && rv.OverflowInt(x)):
			d.fail(key, v, "out of range for an integer")
		case err != nil:
			d.fail(key, v, "must be an integer")
		default:
			rv.SetInt(x)
		}
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		x, err := strconv.ParseUint(s, 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange) || (err == nil && rv.OverflowUint(x)):
			d.fail(key, v, "out of range for an unsigned integer")
		case err != nil && strings.HasPrefix(s, "-"):
			d.fail(key, v, "must be an integer ≥ 0")
		case err != nil:
			d.fail(key, v, "must be an integer")
		default:
			rv.SetUint(x)
		}
	case reflect.Float64, reflect.Float32:
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			d.fail(key, v, "out of range for a 64-bit floating-point number")
		case err != nil:
			d.fail(key, v, "must be a number")
		case math.IsInf(f, 0) || math.IsNaN(f):
			d.fail(key, v, "must be a finite number")
		default:
			rv.SetFloat(f)
		}
	default:
		d.errs = append(d.errs, fmt.Errorf("%s: internal error: no decoding for %s", key, rv.Type()))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
