package rundiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// KeyChange is one configuration key whose value differs between the
// runs. A and B are the values as compact JSON; "" means absent.
type KeyChange struct {
	Key  string
	A, B string
}

// Flatten turns a JSON document into dotted keys and compact JSON values:
// objects nest with ".", lists of objects with "[i]"; a list of scalars is
// one value, so that adding a rate reads as one changed key
// ("eval.das_load.rates": [0.5,1] → [0.5,1,2]) rather than as a new one.
func Flatten(doc json.RawMessage) (map[string]string, error) {
	out := map[string]string{}
	if len(bytes.TrimSpace(doc)) == 0 {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // 1 and 1.0 stay as written; uint64 seeds stay exact
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	flatten(out, "", v)
	return out, nil
}

func flatten(out map[string]string, key string, v any) {
	join := func(k string) string {
		if key == "" {
			return k
		}
		return key + "." + k
	}
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 && key != "" {
			out[key] = "{}"
		}
		for k, e := range t {
			flatten(out, join(k), e)
		}
		return
	case []any:
		if slices.ContainsFunc(t, func(e any) bool { _, ok := e.(map[string]any); return ok }) {
			for i, e := range t {
				flatten(out, key+"["+strconv.Itoa(i)+"]", e)
			}
			return
		}
	}
	b, err := json.Marshal(v)
	if err != nil { // values decoded from JSON always encode again
		panic(fmt.Sprintf("rundiff: %v", err))
	}
	out[key] = string(b)
}

// unionKeys are the keys of a and of b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// diffKeys lists the keys whose values differ, sorted.
func diffKeys(a, b map[string]string) []KeyChange {
	var out []KeyChange
	for _, k := range unionKeys(a, b) {
		if a[k] != b[k] {
			out = append(out, KeyChange{Key: k, A: a[k], B: b[k]})
		}
	}
	return out
}
