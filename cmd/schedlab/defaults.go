package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/section"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
	"go.yaml.in/yaml/v3"
)

// embeddedDefaults is the configuration's embedded defaults as one YAML
// document, every key with its default value and its documentation:
// presets/defaults.yaml with, under eval.<section>, each experiment's
// section as its registration declares it (evaluation.Experiment.Defaults)
// and, under train.<section>, each learned family's section as package
// the family that owns it declares it (training.DeclareSection). A kind's section lives
// with its registration, so adding an experiment touches its own package
// only; `schedlab config defaults` prints the whole page.
var embeddedDefaults = sync.OnceValues(func() ([]byte, error) {
	base, err := presetFS.ReadFile("presets/defaults.yaml")
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("presets/defaults.yaml: not one YAML mapping: %v", err)
	}
	root := doc.Content[0]
	for _, e := range evaluation.Experiments() {
		key := e.ConfigKey()
		if key == "" {
			continue
		}
		if err := addSection(root, key, e.Defaults, "experiment "+e.ID+"'s registration"); err != nil {
			return nil, err
		}
	}
	decls := training.SectionRegistry.Decls()
	slices.SortFunc(decls, func(a, b section.Decl) int { return strings.Compare(a.Type.Key(), b.Type.Key()) })
	for _, d := range decls {
		if err := addSection(root, "train."+d.Type.Key(), d.Defaults, d.From); err != nil {
			return nil, err
		}
	}
	// sched.<name>: each heuristic's parameters, declared beside it.
	if mappingValue(root, "sched") == nil {
		root.Content = append(root.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "sched", HeadComment: schedComment},
			&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
	}
	for _, d := range schedulers.ParamRegistry.Decls() {
		if err := addSection(root, "sched."+d.Type.Key(), d.Defaults, d.From); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
})

const schedComment = `# The parameters of the heuristics that have some, by scheduler: each
# applies wherever the scheduler runs (every experiment and its oracle
# row alike). A section left at its defaults leaves the configuration
# hash as it was.`

// addSection puts the mapping that text declares under key (a dotted
// path whose parent is a mapping of root), refusing a section declared
// twice; from names the declaration for errors.
func addSection(root *yaml.Node, key, text, from string) error {
	var frag yaml.Node
	if err := yaml.Unmarshal([]byte(text), &frag); err != nil {
		return fmt.Errorf("%s: section %s: %v", from, key, err)
	}
	if len(frag.Content) != 1 || frag.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("%s: section %s is not a mapping of keys", from, key)
	}
	parts := strings.Split(key, ".")
	parent := root
	for _, p := range parts[:len(parts)-1] {
		parent = mappingValue(parent, p)
		if parent == nil || parent.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: section %s: presets/defaults.yaml has no mapping %s", from, key, p)
		}
	}
	name := parts[len(parts)-1]
	if mappingValue(parent, name) != nil {
		return fmt.Errorf("%s: section %s is also in presets/defaults.yaml: declare it once", from, key)
	}
	parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, frag.Content[0])
	return nil
}

// mappingValue returns the value of key in the mapping node m, nil when
// it has none.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
