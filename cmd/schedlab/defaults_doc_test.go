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
	data, err := embeddedDefaults()
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

// TestConfigDefaults: schedlab config defaults prints the assembled
// embedded defaults, each experiment's and family's section in its place,
// and a section declared both in presets/defaults.yaml and by its
// registration is refused rather than one silently winning.
func TestConfigDefaults(t *testing.T) {
	out, errs, code := schedlab(t, nil, "config", "defaults")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want, err := embeddedDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Error("config defaults does not print the embedded defaults")
	}
	for _, w := range []string{"\n  das_table1:\n    # Rows of DAS Table 1", "\n  marl:\n    # Training of the learned schedulers marl-arrivals names"} {
		if !strings.Contains(out, w) {
			t.Errorf("config defaults lacks %q", w)
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("eval:\n  das_table1:\n    max_jobs: 1\n"), &doc); err != nil {
		t.Fatal(err)
	}
	err = addSection(doc.Content[0], "eval.das_table1", "max_jobs: 2\n", "experiment das-table1's registration")
	if err == nil || !strings.Contains(err.Error(), "declare it once") {
		t.Errorf("a section declared twice: %v", err)
	}
}
