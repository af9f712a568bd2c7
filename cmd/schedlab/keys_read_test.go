package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/stages"
)

// runSettings are the keys that change no output, so no stage reads them:
// where the run writes, on how many workers, which preset named the
// values, where the traces live (their contents are the stages' inputs)
// and where the run is added to the history. The run seed is in every
// stage's cache key, beside its configuration (pipeline's cacheKey).
var runSettings = map[string]string{
	"out":         "the run directory",
	"workers":     "the worker count (outputs do not depend on it)",
	"preset":      "the preset's name (its values are the keys)",
	"data_dir":    "where the traces live (their contents are inputs)",
	"history.dir": "where a finished run is added",
	"seed":        "the run seed, in every stage's cache key",
}

// TestEveryKeyIsRead: every key the defaults document changes what a run
// does. For each leaf key of the configuration (stages.Config, by
// reflection, so a key added later is covered), some valid value other
// than the base's must change the stages stages.Build makes: their names,
// inputs, outputs or the configuration each hashes into its cache key. A
// key that changes none is documented but unread (issue 30, item 3). The
// base configuration is the embedded defaults with every experiment
// listed, every learned family among its rows, das-paper calibrated, and
// one measured source of each kind (files that Build only stats), so that
// every section is live.
func TestEveryKeyIsRead(t *testing.T) {
	if raceEnabled {
		t.Skip("builds plans on one goroutine; make test-norace runs it")
	}
	t.Parallel()
	base := readAllBase(t)
	before, err := dagFingerprint(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range sortedKeys(configLeaves()) {
		if _, ok := runSettings[key]; ok {
			continue
		}
		t.Run(key, func(t *testing.T) {
			// Some valid values mean the same as the base's (rollouts 1
			// and 0): the key is read when any of them changes a stage.
			v := leafValue(t, base, key)
			var tried []string
			for _, alt := range alternatives(key, v) {
				c := cloneConfig(t, base)
				setLeaf(t, c, key, alt)
				after, err := dagFingerprint(c)
				if err != nil {
					continue // not a valid value
				}
				if after != before {
					return
				}
				tried = append(tried, jsonText(alt))
			}
			if len(tried) == 0 {
				t.Errorf("%s: no valid value other than %v among the test's alternatives: add one", key, jsonText(v))
			} else {
				t.Errorf("%s: %v instead of %v changes no stage: documented but unread", key, tried, jsonText(v))
			}
		})
	}
	// No alternative may have written into the base: its stages are as
	// they were (else every comparison above was against another base).
	if after, err := dagFingerprint(base); err != nil || after != before {
		t.Errorf("the base configuration changed during the test (%v)", err)
	}
	for key := range runSettings {
		if !configLeaves()[key] {
			t.Errorf("runSettings names %s, which is no key", key)
		}
	}
}

// readAllBase is the configuration TestEveryKeyIsRead perturbs.
func readAllBase(t *testing.T) *stages.Config {
	t.Helper()
	cfg, err := loadConfig(configSource{preset: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{"gavel.json", "gavel2.json", "colocate.csv", "single.csv", "google.csv", "pai.csv"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg.DataDir = dir
	cfg.Profile.GPUShare = stages.GPUShareConfig{Gavel: "gavel.json", Lucid: []string{"colocate.csv", "single.csv"}}
	cfg.Datasets.Ingest = []stages.IngestSpec{
		{Source: datasets.SourceGoogle2011, Inputs: []string{"google.csv"}},
		{Source: datasets.SourcePAISim, Inputs: []string{"pai.csv"}},
	}
	e := &cfg.Eval
	e.Experiments = nil
	for _, x := range evaluation.Experiments() {
		if !x.Derived() {
			e.Experiments = append(e.Experiments, x.ID)
		}
	}
	evaluation.CalibrationSection.Set(e, evaluation.CalibrationConfig{DAS: true})
	sens := evaluation.SensitivitySection.Get(e)
	sens.Parts = []string{"marl-device", "das"}
	evaluation.SensitivitySection.Set(e, sens)
	cfg.Train.Seeds = 2
	evaluation.DASTable1Section.Edit(e, func(s *evaluation.DASTable1Config) {
		s.Schedulers = append(s.Schedulers, "das", "dl2", "rifling", "external:probe")
	})
	cfg.External = []external.Spec{{Name: "probe", Command: "python3 probe.py"}}
	evaluation.MARLArrivalsSection.Edit(e, func(s *evaluation.MARLArrivalsConfig) { s.Schedulers = append(s.Schedulers, "marl-server", "atte") })
	evaluation.MARLServersSection.Edit(e, func(s *evaluation.MARLGridConfig) { s.Schedulers = append(s.Schedulers, "marl-device") })
	evaluation.MARLTopologiesSection.Edit(e, func(s *evaluation.MARLGridConfig) { s.Schedulers = append(s.Schedulers, "marl-device") })
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// dagFingerprint identifies what Build makes of cfg: each stage's name,
// version, inputs, outputs and configuration. An error is Build's (an
// invalid configuration).
func dagFingerprint(cfg *stages.Config) (string, error) {
	dag, err := stages.Build(cfg)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range dag {
		h, err := pipeline.HashJSON(s.Config())
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %s %s %v %v\n", s.Name(), s.Version(), h, s.Inputs(), s.Outputs())
	}
	return b.String(), nil
}

func cloneConfig(t *testing.T, cfg *stages.Config) *stages.Config {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var c stages.Config
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c.Out, c.Workers, c.Preset, c.DataDir, c.History = cfg.Out, cfg.Workers, cfg.Preset, cfg.DataDir, cfg.History
	return &c
}

// leafValue is the value of cfg that key names.
func leafValue(t *testing.T, cfg *stages.Config, key string) reflect.Value {
	t.Helper()
	return leafAt(t, reflect.ValueOf(cfg).Elem(), key, key, reflect.Value{})
}

// setLeaf sets the value of cfg that key names to x.
func setLeaf(t *testing.T, cfg *stages.Config, key string, x reflect.Value) {
	t.Helper()
	leafAt(t, reflect.ValueOf(cfg).Elem(), key, key, x)
}

// leafAt is the value that rest (the part of key below v) names under
// v, set to x first when x is valid. A registered section is reached
// through a copy, stored back when set.
func leafAt(t *testing.T, v reflect.Value, key, rest string, x reflect.Value) reflect.Value {
	t.Helper()
	name, rest, more := strings.Cut(rest, ".")
	for _, f := range configKeys(v.Type()) {
		if f.name != name {
			continue
		}
		if f.index < 0 {
			sec, _ := asSectioned(v)
			p, _ := sec.SectionValue(name)
			out := leafAt(t, reflect.ValueOf(p).Elem(), key, rest, x)
			if x.IsValid() {
				sec.SetSectionValue(name, p)
			}
			return out
		}
		fv := v.Field(f.index)
		if more {
			return leafAt(t, fv, key, rest, x)
		}
		if x.IsValid() {
			fv.Set(x)
		}
		return fv
	}
	t.Fatalf("%s: no field %s", key, name)
	return reflect.Value{}
}

// alternatives are values other than v to try for key, in order; the
// first that validates is used.
func alternatives(key string, v reflect.Value) []reflect.Value {
	var out []reflect.Value
	add := func(x any) {
		rv := reflect.New(v.Type()).Elem()
		rv.Set(reflect.ValueOf(x).Convert(v.Type()))
		out = append(out, rv)
	}
	switch v.Kind() {
	case reflect.Bool:
		add(!v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		n := v.Int()
		for _, x := range []int64{n + 1, n - 1, n * 2, 1, 2} {
			if x != n {
				out = append(out, reflect.ValueOf(x).Convert(v.Type()))
			}
		}
	case reflect.Uint64, reflect.Uint, reflect.Uint32:
		out = append(out, reflect.ValueOf(v.Uint()+1).Convert(v.Type()))
	case reflect.Float64:
		f := v.Float()
		for _, x := range append([]float64{f * 1.5, f * 0.5, f + 0.1, f - 0.1, 1, 0.5}, floatAlternatives[key]...) {
			if x != f {
				add(x)
			}
		}
	case reflect.String:
		for _, s := range stringAlternatives[key] {
			if s != v.String() {
				add(s)
			}
		}
	case reflect.Slice:
		// Every alternative is a new slice: one sharing v's array would
		// write into the base configuration when appended to.
		n := v.Len()
		clone := func(x reflect.Value) reflect.Value {
			c := reflect.MakeSlice(x.Type(), x.Len(), x.Len()+1)
			reflect.Copy(c, x)
			return c
		}
		v = clone(v)
		if n > 0 {
			out = append(out, clone(v.Slice(0, n-1)), clone(v.Slice(1, n)))
		}
		switch v.Type().Elem().Kind() {
		case reflect.String:
			if strings.HasSuffix(key, "schedulers") || strings.HasSuffix(key, "heuristics") {
				for _, name := range schedulers.Names() {
					if !slices.Contains(v.Interface().([]string), string(name)) {
						out = append(out, reflect.Append(clone(v), reflect.ValueOf(string(name))))
					}
				}
			}
			for _, s := range stringAlternatives[key] {
				out = append(out, reflect.Append(clone(v), reflect.ValueOf(s)))
				if n > 0 { // or in place of the last
					out = append(out, reflect.Append(clone(v.Slice(0, n-1)), reflect.ValueOf(s)))
				}
			}
		case reflect.Float64:
			if n > 0 {
				last := v.Index(n - 1).Float()
				out = append(out, reflect.Append(clone(v), reflect.ValueOf(last*0.9)), reflect.Append(clone(v), reflect.ValueOf(last*1.1)))
			}
		case reflect.Int:
			if n > 0 {
				out = append(out, reflect.Append(clone(v), reflect.ValueOf(int(v.Index(n-1).Int())+1)))
			}
		case reflect.Struct:
			// A declared policy stays declared (external.Declare adds up):
			// what changes a stage is another spec of a policy a row uses.
			if key == "sim.job_shape.models" {
				out = append(out, reflect.Append(clone(v), reflect.ValueOf(datasets.MARLModelShape{Model: "ctc", Shape: datasets.MARLShape{WorkerCPU: 4}})))
			}
			if key == "external" && n > 0 {
				c := clone(v)
				spec := c.Index(0).Interface().(external.Spec)
				spec.Command += " --other"
				c.Index(0).Set(reflect.ValueOf(spec))
				out = append(out, c)
			}
			// A list of clusters of one takes a second (its own column).
			if cl, ok := v.Interface().([]evaluation.Cluster); ok && n > 0 {
				extra := cl[n-1]
				extra.Name += "-2"
				out = append(out, reflect.Append(clone(v), reflect.ValueOf(extra)))
			}
		}
	}
	return out
}

// floatAlternatives are valid values of number keys that the values
// alternatives derives by type cannot reach.
var floatAlternatives = map[string][]float64{
	"sim.job_shape.max_duration_s": {9000}, // above the default min_duration_s, 600
}

// stringAlternatives are the valid values of the string keys (and extra
// elements of string lists) beyond what alternatives derives by type.
var stringAlternatives = map[string][]string{
	"datasets.source":                      {stages.SyntheticPAI, "pai-sim"},
	"sim.speed":                            {"standalone", "model"},
	"sim.environment":                      {"paper", "das-paper", "marl-paper", ""},
	"sim.socket":                           {"first-fit", "random", "most-free"},
	"sim.cpu_load":                         {"request", "profile"},
	"eval.sensitivity.marl_device.sockets": {"random"},
	"train.das.cluster":                    {"medium", "each", "small"},
	"eval.sensitivity.das.cluster":         {"medium", "small"},
	"profile.gpu_share.gavel":              {"gavel2.json", ""},
	"profile.gpu_share.lucid":              {"gavel2.json"},
	"eval.marl_servers.clusters":           {"fattree-k4-s8", "fattree-k4-s2"},
	"eval.marl_topologies.clusters":        {"bcube-n4-k1", "fattree-k6"},
	"eval.marl_vs_single.clusters":         {"fattree-k6", "fattree-k8"},
	"train.replicated":                     {"marl-device", "das"},
	"eval.experiments":                     {"das-tuning"},
	"eval.marl_arrivals.placement":         {"arrival"},
	"train.marl.arrivals":                  {"google"},
}

func jsonText(v any) string {
	if rv, ok := v.(reflect.Value); ok {
		v = rv.Interface()
	}
	b, _ := json.Marshal(v)
	return string(b)
}
