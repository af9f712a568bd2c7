package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/stages"
	"github.com/schedlab/schedlab/training/daspaper"
)

// nestYAML writes key (dotted) = value as nested YAML.
func nestYAML(key, value string) string {
	parts := strings.Split(key, ".")
	var b strings.Builder
	for i, p := range parts {
		b.WriteString(strings.Repeat("  ", i) + p + ":")
		if i == len(parts)-1 {
			b.WriteString(" " + value)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func envName(key string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// layerCase is one bad value in each layer that can carry it: a config
// file (YAML), an environment variable and the command line (--set, flags)
// take text. An empty yaml or text skips that layer.
type layerCase struct {
	key, yaml, text string
	want            string // in the error, after "configuration: "
}

// loadIn loads the configuration with the bad value in one layer and
// returns the error ("" if none).
func loadIn(t *testing.T, layer string, c layerCase) string {
	t.Helper()
	src := configSource{}
	switch layer {
	case "file":
		src.file = filepath.Join(t.TempDir(), "bad.yaml")
		if err := os.WriteFile(src.file, []byte(nestYAML(c.key, c.yaml)), 0o644); err != nil {
			t.Fatal(err)
		}
	case "env":
		os.Setenv(envName(c.key), c.text)
		defer os.Unsetenv(envName(c.key))
	case "flag":
		src.flags = map[string]string{c.key: c.text}
		src.flagNames = map[string]string{c.key: "flag-of-" + c.key}
	case "set":
		src.set = []string{c.key + "=" + c.text}
	}
	cfg, err := loadConfig(src)
	if err == nil {
		return ""
	}
	if cfg != nil {
		t.Errorf("%s: loadConfig returned a configuration with its error", layer)
	}
	if exitCode(err) != 2 {
		t.Errorf("%s: %v: exit status %d, want 2", layer, err, exitCode(err))
	}
	return err.Error()
}

// origins says how each layer's messages name where the value came from.
var origins = map[string]func(key string) string{
	"file": func(string) string { return "(config file " },
	"env":  func(key string) string { return "(environment variable " + envName(key) + ")" },
	"flag": func(key string) string { return "(flag --flag-of-" + key + ")" },
	"set":  func(key string) string { return "(--set " + key + "=" },
}

// TestBadValuesEveryLayer: the values issue 16 found coerced or crashing
// are refused in every layer, naming the key, the value and where it came
// from. Before: seed: -1 became 2^64−1, 1.5 and true became 1, null 0,
// workers: 2.7 became 2, .inf panicked in the config hash, and 1e12 jobs
// ran out of memory.
func TestBadValuesEveryLayer(t *testing.T) {
	for _, c := range []layerCase{
		{"seed", "-1", "-1", "seed: must be an integer ≥ 0, got "},
		{"seed", "1.5", "1.5", "seed: must be an integer, got "},
		{"seed", "true", "true", "seed: must be an integer, got "},
		{"seed", "null", "", "seed: must be an integer, got "},
		{"seed", "99999999999999999999", "99999999999999999999", "seed: out of range for "},
		{"seed", "'7'", "", `seed: must be an integer, got the string "7"`},
		{"workers", "2.7", "2.7", "workers: must be an integer, got "},
		{"workers", "0", "0", "workers: must be in [1, 256], got 0"},
		{"datasets.interval_s", ".inf", "inf", "datasets.interval_s: must be a finite number, got "},
		{"datasets.interval_s", "1e400", "1e400", "datasets.interval_s: out of range for a 64-bit floating-point number"},
		{"datasets.interval_s", "0.001", "0.001", "datasets.interval_s: must be in [1, 604800] seconds"},
		{"profile.synth.pcie_gbps", ".inf", "+Inf", "profile.synth.pcie_gbps: must be a finite number"},
		{"profile.synth.cores_per_socket", ".nan", "NaN", "profile.synth.cores_per_socket: must be a finite number"},
		{"eval.marl_arrivals.jobs_per_pod", ".inf", "Infinity", "eval.marl_arrivals.jobs_per_pod: must be a finite number"},
		{"eval.marl_arrivals.jobs_per_pod", "1e9", "1e9", "eval.marl_arrivals.jobs_per_pod: must be in [0, 1000]"},
		{"train.das.learning_rates", "[1e-4, .inf]", "1e-4,inf", "train.das.learning_rates[1]: must be a finite number"},
		{"train.das.learning_rates", "[2]", "2", "train.das.learning_rates[0]: must be in (0, 1]"},
		{"datasets.synthetic.jobs", "1e12", "1e12", "datasets.synthetic.jobs: must be an integer, got "},
		{"datasets.synthetic.jobs", "1000000000000", "1000000000000", "datasets.synthetic.jobs: must be in [1, 10000000]"},
		{"profile.synth.samples", "100000000000", "100000000000", "profile.synth.samples: must be in [1, 1000000]"},
		{"eval.seeds", "1e3", "", "eval.seeds: must be an integer"},
		{"eval.das_table1.fitted_interference", "1", "1", "eval.das_table1.fitted_interference: must be true or false"},
		{"eval.das_table1.fitted_interference", "yes", "yes", "eval.das_table1.fitted_interference: must be true or false"},
		{"out", "2024", "", "out: must be a string (quote it), got 2024"},
		{"eval.marl_arrivals.k", "10000", "10000", "eval.marl_arrivals.k: cluster.k: fattree(10000) has more than 2^20 servers"},
		{"eval.seeds", "1000000", "1000000", "eval.seeds: must be in [1, 1000], got 1000000"},
		{"eval.das_table1.max_jobs", "100000000", "100000000", "eval.das_table1.max_jobs: must be in [1, 10000000]"},
		{"eval.das_load.rates", "[1e9]", "1e9", "eval.das_load.rates[0]: must be in (0, 1000]"},
		{"eval.marl_servers.intervals", "100000", "100000", "eval.marl_servers.intervals: must be in [1, 10000]"},
		{"train.das.episodes", "1000000000", "1000000000", "train.das.episodes: must be in [1, 100000]"},
		{"train.das.segment_jobs", "0", "0", "train.das.segment_jobs: must be in [1, 10000000], got 0"},
		{"train.marl.intervals", "0", "0", "train.marl.intervals: must be in [1, 10000], got 0"},
		{"fit.folds", "100000", "100000", "fit.folds: must be in [2, 1000]"},
		{"summary.quantiles", "[.nan]", "nan", "summary.quantiles[0]: must be a finite number"},
		{"eval.marl_servers.clusters", "", "x", "eval.marl_servers.clusters: must be a list of sections, which only a config file can give"},
	} {
		for _, layer := range []string{"file", "env", "flag", "set"} {
			v := c.yaml
			if layer != "file" {
				v = c.text
			}
			if v == "" {
				continue
			}
			t.Run(fmt.Sprintf("%s=%s/%s", c.key, v, layer), func(t *testing.T) {
				msg := loadIn(t, layer, c)
				if !strings.Contains(msg, "configuration: "+c.want) {
					t.Fatalf("got %q, want it to contain %q", msg, c.want)
				}
				// Decoding errors say where the value came from;
				// Validate's range errors know only the key.
				if strings.Contains(msg, ", got ") && !strings.Contains(msg, "must be in") && !strings.Contains(msg, "cluster.k") {
					if o := origins[layer](c.key); !strings.Contains(msg, o) {
						t.Errorf("%q does not say where the value came from (%q)", msg, o)
					}
				}
			})
		}
	}
}

// leafKinds maps every configuration key to its Go type.
func leafKinds(t *testing.T) map[string]reflect.Type {
	t.Helper()
	out := map[string]reflect.Type{}
	var walk func(rt reflect.Type, prefix string)
	walk = func(rt reflect.Type, prefix string) {
		for _, f := range configKeys(rt) {
			if f.typ.Kind() == reflect.Struct {
				walk(f.typ, prefix+f.name+".")
			} else {
				out[prefix+f.name] = f.typ
			}
		}
	}
	walk(reflect.TypeFor[stages.Config](), "")
	if len(out) != len(configLeaves()) {
		t.Fatalf("leafKinds has %d keys, configLeaves %d", len(out), len(configLeaves()))
	}
	return out
}

// TestEveryKeyTyped: every key of the configuration (found by reflection,
// so keys added later are covered) refuses values of the wrong type, and
// every number key (lists of numbers included) refuses non-finite values,
// in a file and in the environment.
func TestEveryKeyTyped(t *testing.T) {
	n := 0
	for key, typ := range leafKinds(t) {
		elem, list := typ, false
		if typ.Kind() == reflect.Slice {
			elem, list = typ.Elem(), true
		}
		var cases []layerCase
		wrap := func(v string) string {
			if list {
				return "[" + v + "]"
			}
			return v
		}
		at := key
		if list {
			at = key + "[0]"
		}
		switch elem.Kind() {
		case reflect.Float64:
			for _, v := range []struct{ yaml, text string }{{".inf", "inf"}, {"-.inf", "-Inf"}, {".nan", "NaN"}} {
				cases = append(cases, layerCase{key, wrap(v.yaml), v.text, at + ": must be a finite number"})
			}
			cases = append(cases, layerCase{key, wrap("true"), "true", at + ": must be a number"})
		case reflect.Int, reflect.Uint64:
			cases = append(cases,
				layerCase{key, wrap("2.5"), "2.5", at + ": must be an integer"},
				layerCase{key, wrap("true"), "true", at + ": must be an integer"},
				layerCase{key, wrap("null"), "", at + ": must be an integer"})
		case reflect.String:
			cases = append(cases, layerCase{key, wrap("5"), "", at + ": must be a string"})
		case reflect.Bool:
			cases = append(cases, layerCase{key, wrap("1"), "1", at + ": must be true or false"})
		case reflect.Struct:
			cases = append(cases, layerCase{key, "x", "x", key + ": must be "})
			continue
		default:
			t.Fatalf("%s: no test for %s", key, typ)
		}
		if list {
			cases = append(cases, layerCase{key, "5", "", key + ": must be a list"})
		}
		for _, c := range cases {
			for _, layer := range []string{"file", "env"} {
				v := c.yaml
				if layer == "env" {
					v = c.text
				}
				if v == "" || (key == "preset" && layer == "env") {
					continue
				}
				n++
				if msg := loadIn(t, layer, c); !strings.Contains(msg, c.want) {
					t.Errorf("%s %s=%s: got %q, want %q", layer, key, v, msg, c.want)
				}
			}
		}
	}
	t.Logf("%d bad values refused", n)
}

// TestLayersKeepPresets: the strict decoder gives each preset exactly its
// documented values (spot checks of every type), and the config hash of a
// loaded configuration never fails.
func TestLayersKeepPresets(t *testing.T) {
	for _, p := range Presets {
		cfg, err := loadConfig(configSource{preset: p})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, err := cfg.Hash(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if cfg.Preset != p || cfg.Seed != 1 || cfg.Datasets.IntervalS != 1800 || len(evaluation.MARLServersSection.Get(&cfg.Eval).Clusters) == 0 || cfg.Out != "out" {
			t.Errorf("%s: unexpected %+v", p, cfg)
		}
	}
}

// TestConfigStructure: the YAML structure errors (duplicate keys, several
// documents, aliases expanding without bound, a section set to a scalar
// under an environment variable) are refused naming the place.
func TestConfigStructure(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 'b'; i <= 'j'; i++ {
		bomb += fmt.Sprintf("%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	for _, tc := range []struct {
		name, body string
		env        []string
		want       string
	}{
		{"duplicate", "seed: 1\nworkers: 2\nseed: 3\n", nil, `line 3: key "seed" given twice (first at config file`},
		{"two documents", "seed: 1\n---\nseed: 2\n", nil, "holds more than one YAML document"},
		{"not a mapping", "- 1\n- 2\n", nil, "want a mapping of keys, got a list"},
		{"alias bomb", bomb, nil, "more than 100000 values"},
		{"merge key", "base: &b {seed: 1}\n<<: *b\n", nil, "merge keys (<<) are not supported"},
		{"unknown key", "datasets:\n  synthetic:\n    jobz: 3\n", nil, "unknown key datasets.synthetic.jobz (config file"},
		{"section as scalar", "datasets: 5\n", nil, "datasets: must be a section (a mapping of keys), got 5"},
		{"env under scalar section", "datasets: 5\n", []string{"SCHEDLAB_DATASETS_SOURCE=x"}, "datasets: must be a section (a mapping of keys), got 5"},
		{"preset not a string", "preset: [quick]\n", nil, "preset: must be a string"},
		{"invalid YAML", "seed: [1\n", nil, "config file"},
		{"key case", "Seed: 3\n", nil, "unknown key Seed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "c.yaml")
			os.WriteFile(f, []byte(tc.body), 0o644)
			setenv(t, tc.env...)
			_, err := loadConfig(configSource{file: f})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			if err != nil && exitCode(err) != 2 {
				t.Errorf("exit status %d, want 2", exitCode(err))
			}
		})
	}
	// Empty and comment-only files are empty layers.
	for _, body := range []string{"", "# nothing\n", "---\n"} {
		f := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(f, []byte(body), 0o644)
		if _, err := loadConfig(configSource{file: f}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// setenv sets each NAME=VALUE for the rest of the test (or subtest) only;
// the configuration's environment layer is the process's.
func setenv(t *testing.T, kvs ...string) {
	t.Helper()
	for _, kv := range kvs {
		name, val, _ := strings.Cut(kv, "=")
		old, had := os.LookupEnv(name)
		os.Setenv(name, val)
		t.Cleanup(func() {
			if had {
				os.Setenv(name, old)
			} else {
				os.Unsetenv(name)
			}
		})
	}
}

// TestTextLists: a list in --set or the environment is comma-separated,
// in YAML's brackets or not; "" and "[]" are empty.
func TestTextLists(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []float64
	}{
		{"1e-4,5e-5", []float64{1e-4, 5e-5}},
		{"[1e-4, 5e-5]", []float64{1e-4, 5e-5}},
		{" [ 1e-4 ] ", []float64{1e-4}},
	} {
		cfg, err := loadConfig(configSource{preset: "quick", set: []string{"train.das.learning_rates=" + tc.text}})
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		if !slices.Equal(daspaper.Section.Get(cfg.Train.Sections).LearningRates, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.text, daspaper.Section.Get(cfg.Train.Sections).LearningRates, tc.want)
		}
	}
	for _, text := range []string{"", "[]"} {
		cfg, err := loadConfig(configSource{preset: "quick", set: []string{"train.replicated=" + text}})
		if err != nil || len(cfg.Train.Replicated) != 0 {
			t.Errorf("%q: %v, %v", text, cfg.Train.Replicated, err)
		}
	}
	if _, err := loadConfig(configSource{preset: "quick", set: []string{"train.das.learning_rates=[1e-4"}}); err == nil || !strings.Contains(err.Error(), "train.das.learning_rates[0]") {
		t.Errorf("an unclosed bracket: %v", err)
	}
}
