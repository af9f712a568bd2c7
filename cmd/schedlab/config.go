package main

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/schedlab/schedlab/stages"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
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
// flags, decodes strictly into stages.Config and validates it. Every error
// names the offending key and is a usage error (exit status 2).
func loadConfig(src configSource) (*stages.Config, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	defaults, err := presetFS.ReadFile("presets/defaults.yaml")
	if err != nil {
		return nil, err
	}
	if err := v.ReadConfig(bytes.NewReader(defaults)); err != nil {
		return nil, fmt.Errorf("embedded defaults: %w", err)
	}
	known := map[string]bool{}
	for _, k := range v.AllKeys() {
		known[k] = true
	}

	var fileData []byte
	if src.file != "" {
		if fileData, err = os.ReadFile(src.file); err != nil {
			return nil, usageErrorf("config file: %v", err)
		}
	}
	envVal := map[string]string{}
	for _, kv := range src.env {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix+"_") {
			continue
		}
		key := envKeyOf(name, known)
		if key == "" {
			return nil, usageErrorf("environment variable %s names no configuration key (keys: %s)", name, strings.Join(sortedKeys(known), ", "))
		}
		envVal[key] = val
	}

	preset := src.preset
	if preset == "" {
		preset = envVal["preset"]
	}
	if preset == "" && fileData != nil {
		peek := viper.New()
		peek.SetConfigType("yaml")
		if err := peek.ReadConfig(bytes.NewReader(fileData)); err != nil {
			return nil, usageErrorf("config file %s: %v", src.file, err)
		}
		preset = peek.GetString("preset")
	}
	if preset == "" {
		preset = "quick"
	}
	pdata, err := presetFS.ReadFile("presets/" + preset + ".yaml")
	if err != nil || preset == "defaults" {
		return nil, usageErrorf("preset: unknown preset %q (presets: %s)", preset, strings.Join(Presets, ", "))
	}
	if err := v.MergeConfig(bytes.NewReader(pdata)); err != nil {
		return nil, fmt.Errorf("preset %s: %w", preset, err)
	}
	if fileData != nil {
		if err := v.MergeConfig(bytes.NewReader(fileData)); err != nil {
			return nil, usageErrorf("config file %s: %v", src.file, err)
		}
	}
	for _, layer := range []map[string]string{envVal, src.flags} {
		for _, k := range sortedKeys(layer) {
			v.Set(k, layer[k])
		}
	}
	v.Set("preset", preset)

	var cfg stages.Config
	if err := v.UnmarshalExact(&cfg); err != nil {
		return nil, usageErrorf("configuration: %s", decodeMessage(err))
	}
	if err := cfg.Validate(); err != nil {
		return nil, usageErrorf("configuration: %v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return &cfg, nil
}

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

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
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

var invalidKeys = regexp.MustCompile(`'([^']*)' has invalid keys: ([^\n]+)`)

// decodeMessage rewrites mapstructure's "'a.b' has invalid keys: c, d" as
// "unknown key a.b.c, a.b.d", so that every key is named in full, and
// folds the message onto one line.
func decodeMessage(err error) string {
	msg := invalidKeys.ReplaceAllStringFunc(err.Error(), func(m string) string {
		sub := invalidKeys.FindStringSubmatch(m)
		var keys []string
		for _, k := range strings.Split(sub[2], ", ") {
			if sub[1] != "" {
				k = sub[1] + "." + k
			}
			keys = append(keys, k)
		}
		return "unknown key " + strings.Join(keys, ", ")
	})
	msg = strings.TrimPrefix(msg, "decoding failed due to the following error(s):")
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", " ")), " ")
}
