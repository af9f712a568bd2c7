package main

import (
	"github.com/schedlab/schedlab/pipeline"

	"embed"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/internal/didyoumean"
	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/viper"
)

//go:embed presets/*.yaml
var presetFS embed.FS

// Presets are the embedded presets, by name.
var Presets = []string{"quick", "nightly", "paper"}

const envPrefix = "SCHEDLAB"

// configSource says where the layers of a configuration come from. The
// environment layer is the process's own SCHEDLAB_* variables (viper reads
// them).
type configSource struct {
	preset string // "" means: from SCHEDLAB_PRESET, the file, else "quick"
	file   string // --config FILE, "" for none
	// set holds the --set KEY=VALUE arguments, in the order given.
	set []string
	// flags maps a configuration key to the value of the flag the user
	// gave for it (a flag left at its default is absent: it never
	// overrides a lower layer), and flagNames the key to the flag's name.
	flags     map[string]string
	flagNames map[string]string
}

// Layers, lowest first. The origin of a key's value names its layer.
const (
	layerDefaults = "embedded defaults"
	layerEnv      = "environment variable "
	layerSet      = "--set "
	layerFlag     = "flag --"
)

// resolved is a loaded configuration with, for each key, the value that
// won and where it came from (config show --origin).
type resolved struct {
	cfg    *stages.Config
	values map[string]*cfgValue // leaf key → winning value (origin set)
}

// loadConfig layers embedded defaults < preset < --config file <
// SCHEDLAB_* environment < --set < flags through viper, which owns the
// precedence, then decodes the winning values strictly into stages.Config
// (configdecode.go: one set of rules for every layer) and validates it.
// Every error names the offending key and where its value came from, and
// is a usage error (exit status 2).
func loadConfig(src configSource) (*stages.Config, error) {
	r, err := resolveConfig(src)
	if err != nil {
		return nil, err
	}
	return r.cfg, nil
}

func resolveConfig(src configSource) (*resolved, error) {
	var data []byte
	if src.file != "" {
		var err error
		if data, err = readConfigFile(src.file); err != nil {
			return nil, usageErrorf("config file: %v", err)
		}
	}
	return buildConfig(src, data)
}

// maxConfigFile bounds a configuration file: presets are a few KB.
const maxConfigFile = 4 << 20

// readConfigFile reads a regular file of at most maxConfigFile bytes.
func readConfigFile(name string) ([]byte, error) {
	// Not os.Open: a FIFO would block it for good.
	f, st, err := pipeline.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > maxConfigFile {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a configuration may have", name, st.Size(), maxConfigFile)
	}
	buf := make([]byte, st.Size()+1)
	n, err := f.ReadAt(buf, 0)
	if n > int(st.Size()) {
		return nil, fmt.Errorf("%s: grew while it was read", name)
	}
	if err != nil && n != int(st.Size()) {
		return nil, err
	}
	return buf[:n], nil
}

// buildConfig is loadConfig with the file's contents read (fileData, used
// when src.file is set).
func buildConfig(src configSource, fileData []byte) (*resolved, error) {
	leaves := configLeaves()

	// The environment: every SCHEDLAB_* variable must name a key.
	envName := map[string]string{} // key → variable
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix+"_") {
			continue
		}
		key := envKeyOf(name, leaves)
		if key == "" {
			// Compared without the prefix, which every name shares.
			var vars []string
			for _, k := range sortedKeys(leaves) {
				vars = append(vars, strings.TrimPrefix(envVarOf(k), envPrefix+"_"))
			}
			hint := ""
			if close := didyoumean.Closest(strings.TrimPrefix(name, envPrefix+"_"), vars); len(close) > 0 {
				hint = "; did you mean " + envPrefix + "_" + strings.Join(close, " or "+envPrefix+"_") + "?"
			}
			return nil, usageErrorf("environment variable %s names no configuration key%s (every key and its variable: schedlab config defaults)", name, hint)
		}
		envName[key] = name
	}

	// The YAML layers, each checked on its own: its structure and every
	// value's type (an unknown key, a section given as a scalar, a string
	// where a number belongs), naming the file and line.
	var fileTree *cfgValue
	if src.file != "" {
		var err error
		if fileTree, err = parseYAMLLayer(fileData, "config file "+src.file); err != nil {
			return nil, usageErrorf("%v", err)
		}
		if err := checkLayer(fileTree); err != nil {
			return nil, err
		}
	}
	preset := src.preset
	if preset == "" {
		if name, ok := envName["preset"]; ok {
			preset = os.Getenv(name)
		}
	}
	if preset == "" && fileTree != nil {
		if p := fileTree.fields["preset"]; p != nil {
			preset, _ = p.scalar.(string) // checkLayer made it a string
		}
	}
	if preset == "" {
		preset = "quick"
	}
	if !slices.Contains(Presets, preset) {
		return nil, usageErrorf("preset: unknown preset %q%s (presets: %s; from %s)", preset, didyoumean.Suggest(preset, Presets), strings.Join(Presets, ", "), presetOrigin(src, envName, fileTree))
	}
	defaults, err := embeddedLayer("defaults")
	if err != nil {
		return nil, err
	}
	ptree, err := embeddedLayer(preset)
	if err != nil {
		return nil, err
	}

	// viper holds the layers and resolves their precedence; a value it
	// holds is the layer's *cfgValue (files) or text (environment, flags),
	// so that the decoder below applies one set of rules to every layer.
	v := viper.NewWithOptions(viper.KeyDelimiter("."))
	for k, val := range flattenLayer(defaults) {
		v.SetDefault(k, val)
	}
	for _, layer := range []*cfgValue{ptree, fileTree} {
		if layer == nil {
			continue
		}
		if err := v.MergeConfigMap(nestLeaves(flattenLayer(layer))); err != nil {
			return nil, usageErrorf("configuration: %v", err)
		}
	}
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AllowEmptyEnv(true)
	for _, k := range sortedKeys(envName) {
		if err := v.BindEnv(k, envName[k]); err != nil {
			return nil, usageErrorf("configuration: %v", err)
		}
	}
	for k, val := range src.flags {
		if !leaves[k] {
			return nil, usageErrorf("configuration: unknown key %s (%s%s)", k, layerFlag, src.flagNames[k])
		}
		if err := v.BindFlagValue(k, textFlag{name: src.flagNames[k], value: val}); err != nil {
			return nil, usageErrorf("configuration: %v", err)
		}
	}
	// --set sits below flags: viper's Set would override them, so a key
	// that a given flag sets keeps the flag's value.
	setBy := map[string]string{}
	for _, kv := range src.set {
		k, val, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usageErrorf("--set %q: want KEY=VALUE (keys: schedlab config show --origin)", kv)
		}
		if !leaves[k] {
			return nil, usageErrorf("configuration: unknown key %s (%s%s)%s (every key: schedlab config defaults)", k, layerSet, kv, didyoumean.Suggest(k, sortedKeys(leaves)))
		}
		setBy[k] = kv
		if _, flagged := src.flags[k]; !flagged {
			v.Set(k, textValue(val, layerSet+kv))
		}
	}

	// The winning value of every key, decoded as one tree.
	values := map[string]*cfgValue{}
	tree := &cfgValue{kind: kindMapping, fields: map[string]*cfgValue{}, origin: layerDefaults}
	for _, k := range sortedKeys(leaves) {
		var val *cfgValue
		switch x := v.Get(k).(type) {
		case *cfgValue:
			val = x
		case string: // the environment's, or a flag's (replaced below)
			val = textValue(x, layerEnv+envName[k])
		case nil:
			continue // a key no layer sets (the sections' lists decode empty)
		default:
			return nil, fmt.Errorf("schedlab: configuration key %s holds a %T", k, x)
		}
		if _, flagged := src.flags[k]; flagged {
			val = textValue(src.flags[k], layerFlag+src.flagNames[k])
		}
		if tree, err = setPath(tree, k, val); err != nil {
			return nil, usageErrorf("configuration: %v", err)
		}
		values[k] = val
	}
	pv := &cfgValue{kind: kindScalar, scalar: preset, raw: preset, origin: presetOrigin(src, envName, fileTree)}
	if tree, err = setPath(tree, "preset", pv); err != nil {
		return nil, usageErrorf("configuration: %v", err)
	}
	values["preset"] = pv

	var cfg stages.Config
	if err := decodeConfig(tree, &cfg); err != nil {
		return nil, usageErrorf("configuration: %v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	cfg.Eval.ResolveDerived()
	if err := cfg.Validate(); err != nil {
		return nil, usageErrorf("configuration: %v", withOrigins(err, values))
	}
	// Validate refuses what JSON cannot hold (non-finite numbers), so this
	// is a safety net: a configuration without a hash never runs.
	if _, err := cfg.Hash(); err != nil {
		return nil, usageErrorf("configuration: %v", err)
	}
	return &resolved{cfg: &cfg, values: values}, nil
}

// validationKey is the key an error of Validate opens with, with any list
// index ("eval.experiments[0]: ...", "datasets.ingest[1].source: ...").
var validationKey = regexp.MustCompile(`^([a-z0-9_]+(?:\.[a-z0-9_]+)*)(?:\[\d+\])?(?:\.[a-z0-9_.]+)?: `)

// withOrigins is Validate's error, one message per problem joined by "; ",
// each followed by the layer its key's value came from (a flag, --set, an
// environment variable, the config file or preset and its line, the
// embedded defaults), so that the user knows what to change.
func withOrigins(err error, values map[string]*cfgValue) string {
	var out []string
	for _, msg := range strings.Split(err.Error(), "\n") {
		if m := validationKey.FindStringSubmatch(msg); m != nil {
			// The longest key that a layer set: a list of sections
			// (datasets.ingest) is one value.
			for k := m[1]; k != ""; k, _ = cutLast(k, ".") {
				if v, ok := values[k]; ok && v.origin != "" {
					msg += " (from " + v.origin + ")"
					break
				}
			}
		}
		out = append(out, msg)
	}
	return strings.Join(out, "; ")
}

// cutLast drops s's last dot-separated element: "a.b.c" is "a.b".
func cutLast(s, sep string) (string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", false
	}
	return s[:i], true
}

// presetOrigin says which layer chose the preset.
func presetOrigin(src configSource, envName map[string]string, fileTree *cfgValue) string {
	switch {
	case src.preset != "":
		return layerFlag + "preset"
	case envName["preset"] != "" && os.Getenv(envName["preset"]) != "":
		return layerEnv + envName["preset"]
	case fileTree != nil && fileTree.fields["preset"] != nil:
		return fileTree.fields["preset"].origin
	}
	return layerDefaults
}

// checkLayer decodes one YAML layer on its own, so that its structure and
// the type of every value it gives are checked where it was written, even
// where a higher layer overrides the value.
func checkLayer(layer *cfgValue) error {
	var scratch stages.Config
	if err := decodeConfig(layer, &scratch); err != nil {
		return usageErrorf("configuration: %v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return nil
}

// flattenLayer maps every key a checked layer sets to its value: sections
// are walked, leaves (a list of sections, such as datasets.ingest, is one)
// kept whole.
func flattenLayer(layer *cfgValue) map[string]*cfgValue {
	leaves := configLeaves()
	out := map[string]*cfgValue{}
	var walk func(v *cfgValue, prefix string)
	walk = func(v *cfgValue, prefix string) {
		for _, k := range v.order {
			key := join(prefix, k)
			f := v.fields[k]
			if leaves[key] {
				out[key] = f
			} else if f.kind == kindMapping {
				walk(f, key)
			}
		}
	}
	walk(layer, "")
	return out
}

// nestLeaves is the nested map viper merges a layer as.
func nestLeaves(flat map[string]*cfgValue) map[string]any {
	out := map[string]any{}
	for k, val := range flat {
		m := out
		parts := strings.Split(k, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = val
	}
	return out
}

// textFlag is a flag the user gave, as viper's pflag layer sees it: its
// text, decoded by the key's type like any other layer's value.
type textFlag struct{ name, value string }

func (f textFlag) HasChanged() bool    { return true }
func (f textFlag) Name() string        { return f.name }
func (f textFlag) ValueString() string { return f.value }
func (f textFlag) ValueType() string   { return "text" }

// embeddedLayer is the parsed embedded defaults or a preset, parsed once:
// layers are never modified (merging and setting keys copy).
func embeddedLayer(name string) (*cfgValue, error) {
	layerMu.Lock()
	defer layerMu.Unlock()
	if v, ok := layerCache[name]; ok {
		return v, nil
	}
	var data []byte
	var err error
	if name == "defaults" {
		data, err = embeddedDefaults()
	} else {
		data, err = presetFS.ReadFile("presets/" + name + ".yaml")
	}
	if err != nil {
		return nil, err
	}
	label := "preset " + name
	if name == "defaults" {
		label = layerDefaults
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
		if envVarOf(k) == envPrefix+"_"+want {
			return k
		}
	}
	return ""
}

// envVarOf is the environment variable of a key.
func envVarOf(key string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}
