package main

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDefaultsDocumentEveryKey: presets/defaults.yaml, the one page that
// documents the configuration, gives every key the configuration reads
// (stages.Config, by reflection: a key added later is covered) and a
// comment for each; it holds no key the configuration does not read (the
// strict decoder refuses one, TestLayersKeepPresets). A key is documented
// by a comment above or beside it, or by the comment above an earlier
// sibling that names it (a comment on a group of keys).
func TestDefaultsDocumentEveryKey(t *testing.T) {
	data, err := presetFS.ReadFile("presets/defaults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	leaves := configLeaves()
	given := map[string]bool{}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		group := ""
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := join(prefix, k.Value)
			if k.HeadComment != "" {
				group = k.HeadComment
			}
			documented := k.HeadComment != "" || k.LineComment != "" || v.LineComment != "" || strings.Contains(group, k.Value)
			if leaves[key] {
				given[key] = true
				if !documented {
					t.Errorf("defaults.yaml:%d: %s has no comment saying what it is", k.Line, key)
				}
				continue
			}
			if v.Kind != yaml.MappingNode {
				t.Errorf("defaults.yaml:%d: %s is not a key of the configuration", k.Line, key)
				continue
			}
			walk(v, key)
		}
	}
	walk(doc.Content[0], "")
	for _, k := range sortedKeys(leaves) {
		if !given[k] && k != "preset" {
			t.Errorf("defaults.yaml does not give %s (every key has its default and doc there)", k)
		}
	}
}
