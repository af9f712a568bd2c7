package main

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzConfigYAML loads a fuzzed config file, with a fuzzed value of one
// key given as text (--set, which decodes as the environment does), and checks the loader's contract: it never panics;
// an accepted configuration validates, hashes, and reloads from its own
// `config show` YAML to the same hash; a refusal is a usage error (exit
// status 2) that names a configuration key or the place in the file.
// The seed corpus is testdata/fuzz/FuzzConfigYAML (bad values of issue
// 16, broken YAML, the inputs it found).
func FuzzConfigYAML(f *testing.F) {
	// Small seeds only: the fuzzer minimizes every input that finds new
	// coverage (up to -fuzzminimizetime, 60 s by default), which for the
	// 10 KB defaults file took the whole run on a loaded machine.
	// TestLayersKeepPresets covers the presets themselves.
	f.Add([]byte("preset: nightly\nseed: 3\nworkers: 4\n"), uint16(0), "")
	f.Add([]byte("seed: 3\ndatasets:\n  interval_s: 60\n"), uint16(7), "inf")
	f.Add([]byte("eval:\n  experiments: [das-load]\n  das_load:\n    rates: [0.5, 2]\n"), uint16(3), "1e-4,2e-4")
	leaves := sortedKeys(configLeaves())
	f.Fuzz(func(t *testing.T, data []byte, envKey uint16, envVal string) {
		src := configSource{file: "fuzz.yaml"}
		if envVal != "" {
			src.set = []string{leaves[int(envKey)%len(leaves)] + "=" + envVal}
		}
		r, err := buildConfig(src, data)
		if err != nil {
			var u usageError
			if !errors.As(err, &u) {
				t.Fatalf("refusal is not a usage error: %v", err)
			}
			if !namesPlace(err.Error(), leaves) {
				t.Fatalf("refusal names no key nor place: %v", err)
			}
			return
		}
		cfg := r.cfg
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted a configuration that does not validate: %v", err)
		}
		h, err := cfg.Hash()
		if err != nil {
			t.Fatalf("accepted a configuration without a hash: %v", err)
		}
		shown, err := yaml.Marshal(cfg)
		if err != nil {
			t.Fatalf("config show cannot print it: %v", err)
		}
		again, err := buildConfig(configSource{file: "shown.yaml"}, shown)
		if err != nil {
			t.Fatalf("config show's output does not load: %v\n%s", err, shown)
		}
		if h2, _ := again.cfg.Hash(); h2 != h {
			t.Fatalf("config show's output loads to another configuration:\n%s", shown)
		}
	})
}

// namesPlace reports whether a loader error names a configuration key
// ("seed:", "summary.quantiles[1]:"), or the file and line the bad text
// is in (YAML syntax, duplicate keys), or the variable.
func namesPlace(msg string, leaves []string) bool {
	if strings.Contains(msg, "config file fuzz.yaml") || strings.Contains(msg, "unknown key ") ||
		strings.Contains(msg, "environment variable "+envPrefix+"_") || strings.Contains(msg, "--set ") {
		return true
	}
	for _, k := range leaves {
		if strings.Contains(msg, k+":") || strings.Contains(msg, k+"[") {
			return true
		}
	}
	return false
}
