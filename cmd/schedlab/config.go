package main

import (
	"embed"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/pflag"
)

//go:embed presets/*.yaml
var presetFS embed.FS

// Presets are the embedded presets, by name.
var Presets = []string{"quick", "nightly", "paper"}

const envPrefix = "SCHEDLAB"

// configSource says where the layers of a configuration come from.
type configSource struct {
	preset string            // "" means: from env, the file, else "quick"
	file   string            // --config FILE, "" for none
	env    []string          // os.Environ()
	flags  map[string]string // config key → value of flags the user set
}

// loadConfig layers embedded defaults < preset < file < SCHEDLAB_* env <
// flags, decodes the result strictly into stages.Config (configdecode.go:
// one set of rules for every layer) and validates it. Every error names
// the offending key and where its value came from, and is a usage error
// (exit status 2).
func loadConfig(src configSource) (*stages.Config, error) {
	var data []byte
	if src.file != "" {
		var err error
		if data, err = os.ReadFile(src.file); err != nil {
			return nil, usageErrorf("config file: %v", err)
		}
	}
	return buildConfig(src, data)
}

// buildConfig is loadConfig with the file's contents read (fileData, used
// when src.file is set).
func buildConfig(src configSource, fileData []byte) (*stages.Config, error) {
	tree, err := embeddedLayer("defaults")
	if err != nil {
		return nil, err
	}
	leaves := configLeaves()

	var fileTree *cfgValue
	if src.file != "" {
		if fileTree, err = parseYAMLLayer(fileData, "config file "+src.file); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	envVal := map[string]*cfgValue{}
	for _, kv := range src.env {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix+"_") {
			continue
		}
		key := envKeyOf(name, leaves)
		if key == "" {
			return nil, usageErrorf("environment variable %s names no configuration key (keys: %s)", name, strings.Join(sortedKeys(leaves), ", "))
		}
		envVal[key] = textValue(val, "environment variable "+name)
	}

	preset := src.preset
	if preset == "" && envVal["preset"] != nil {
		preset = envVal["preset"].scalar.(string)
	}
	if preset == "" && fileTree != nil {
		if p := fileTree.fields["preset"]; p != nil {
			s, ok := p.scalar.(string)
			if !ok || p.kind != kindScalar {
				return nil, usageErrorf("configuration: preset: must be a string, got %s (%s)", p.describe(), p.origin)
			}
			preset = s
		}
	}
	if preset == "" {
		preset = "quick"
	}
	if !slices.Contains(Presets, preset) {
		return nil, usageErrorf("preset: unknown preset %q (presets: %s)", preset, strings.Join(Presets, ", "))
	}
	ptree, err := embeddedLayer(preset)
	if err != nil {
		return nil, err
	}
	tree = mergeValues(tree, ptree)
	if fileTree != nil {
		tree = mergeValues(tree, fileTree)
	}
	flagVal := map[string]*cfgValue{}
	for k, v := range src.flags {
		flagVal[k] = textValue(v, "command line")
	}
	for _, layer := range []map[string]*cfgValue{envVal, flagVal} {
		for _, k := range sortedKeys(layer) {
			if !leaves[k] {
				return nil, usageErrorf("configuration: unknown key %s (%s)", k, layer[k].origin)
			}
			if tree, err = setPath(tree, k, layer[k]); err != nil {
				return nil, usageErrorf("configuration: %v", err)
			}
		}
	}
	if tree, err = setPath(tree, "preset", &cfgValue{kind: kindScalar, scalar: preset, raw: preset, origin: "preset"}); err != nil {
		return nil, usageErrorf("configuration: %v", err)
	}

	var cfg stages.Config
	if err := decodeConfig(tree, &cfg); err != nil {
		return nil, usageErrorf("configuration: %v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if err := cfg.Validate(); err != nil {
		return nil, usageErrorf("configuration: %v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	// Validate refuses what JSON cannot hold (non-finite numbers), so this
	// is a safety net: a configuration without a hash never runs.
	if _, err := cfg.Hash(); err != nil {
		return nil, usageErrorf("configuration: %v", err)
	}
	return &cfg, nil
}

// embeddedLayer is the parsed embedded defaults or a preset, parsed once:
// layers are never modified (merging and setting keys copy).
func embeddedLayer(name string) (*cfgValue, error) {
	layerMu.Lock()
	defer layerMu.Unlock()
	if v, ok := layerCache[name]; ok {
		return v, nil
	}
	data, err := presetFS.ReadFile("presets/" + name + ".yaml")
	if err != nil {
		return nil, err
	}
	label := "preset " + name
	if name == "defaults" {
		label = "embedded defaults"
	}
	v, err := parseYAMLLayer(data, label)
	if err != nil {
		return nil, err
	}
	layerCache[name] = v
	return v, nil
}

var (
	layerMu    sync.Mutex
	layerCache = map[string]*cfgValue{}
)

// envKeyOf maps SCHEDLAB_DATASETS_SYNTHETIC_JOBS to datasets.synthetic.jobs.
// Keys may hold underscores themselves (data_dir), so the match is against
// the known keys rather than a blind replacement.
func envKeyOf(name string, known map[string]bool) string {
	want := strings.TrimPrefix(name, envPrefix+"_")
	for k := range known {
		if strings.ToUpper(strings.ReplaceAll(k, ".", "_")) == want {
			return k
		}
	}
	return ""
}

// configFlags are the flags of `run` that set configuration keys.
var configFlags = map[string]string{"seed": "seed", "out": "out", "workers": "workers", "data-dir": "data_dir"}

// flagValues collects the configuration keys set by flags the user gave.
func flagValues(fs *pflag.FlagSet) map[string]string {
	out := map[string]string{}
	for flag, key := range configFlags {
		if f := fs.Lookup(flag); f != nil && f.Changed {
			out[key] = f.Value.String()
		}
	}
	return out
}
