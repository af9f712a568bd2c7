package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/training"
)

// layerValue is one key's value given in each layer a command takes: a
// config file, a SCHEDLAB_* variable, --set, and the command's own flag
// (where it has one for the key).
type layerValue struct {
	cmd  []string // the command and its required arguments
	key  string
	yaml string // the value in a config file
	text string // in the environment, --set and the flag
	flag string // the command's flag for the key, "" for none
	// reached checks that the value reached the code that uses it.
	reached func(t *testing.T, out string) string
}

// TestEveryLayerReachesEveryCommand: for every command and every key it
// reads, a value given in any layer reaches the code that uses it — the
// defect of issue 30 was `sim.speed: standalone` in a file or the
// environment silently ignored by eval, whose --speed default overrode it.
func TestEveryLayerReachesEveryCommand(t *testing.T) {
	dir := t.TempDir()
	var spec evaluation.Spec
	evalSpecHook = func(s evaluation.Spec) error { spec = s; return nil }
	var train training.TrainSpec
	trainSpecHook = func(s training.TrainSpec) error { train = s; return nil }
	defer func() { evalSpecHook, trainSpecHook = nil, nil }()
	evalCmd := func(exp string) []string {
		return []string{"eval", "--experiment", exp, "--out", filepath.Join(dir, "eval")}
	}
	samples := filepath.Join(dir, "samples.parquet")
	want := func(got, w any) string {
		if fmt.Sprint(got) != fmt.Sprint(w) {
			return fmt.Sprintf("got %v, want %v", got, w)
		}
		return ""
	}
	cases := []layerValue{
		{evalCmd("das-table1"), "sim.speed", "standalone", "standalone", "speed",
			func(t *testing.T, _ string) string { return want(spec.Sim.Speed, "standalone") }},
		{evalCmd("das-table1"), "eval.seeds", "3", "3", "seeds",
			func(t *testing.T, _ string) string { return want(spec.Seeds, 3) }},
		{evalCmd("das-table1"), "datasets.synthetic.jobs", "123", "123", "synthetic-jobs",
			func(t *testing.T, _ string) string { return want(spec.Workloads[0].SyntheticJobs, 123) }},
		{evalCmd("das-table1"), "eval.das_table1.max_jobs", "77", "77", "max-jobs",
			func(t *testing.T, _ string) string { return want(spec.Workloads[0].MaxJobs, 77) }},
		{evalCmd("das-table1"), "eval.das_table1.schedulers", "[tetris, drf-firstfit]", "tetris,drf-firstfit", "schedulers",
			func(t *testing.T, _ string) string { return want(spec.Schedulers, []string{"tetris", "drf-firstfit"}) }},
		{evalCmd("das-load"), "eval.das_load.rates", "[0.25, 4]", "0.25,4", "",
			func(t *testing.T, _ string) string {
				var rates []float64
				for _, w := range spec.Workloads {
					rates = append(rates, w.ArrivalRate)
				}
				return want(rates, []float64{0.25, 4})
			}},
		{evalCmd("marl-arrivals"), "eval.marl_arrivals.k", "6", "6", "fattree-k",
			func(t *testing.T, _ string) string { return want(spec.Clusters[0].Spec.K, 6) }},
		{evalCmd("marl-arrivals"), "eval.marl_arrivals.intervals", "3", "3", "intervals",
			func(t *testing.T, _ string) string { return want(spec.Workloads[0].Intervals, 3) }},
		{evalCmd("marl-servers"), "eval.marl_servers.intervals", "4", "4", "intervals",
			func(t *testing.T, _ string) string { return want(spec.Workloads[0].Intervals, 4) }},
		{[]string{"train", "--family", "das", "--out", filepath.Join(dir, "m")}, "seed", "9", "9", "seed",
			func(t *testing.T, _ string) string {
				s, _ := pipeline.Seed(9, "train-das", "model")
				return want(train.Seed, s)
			}},
		{[]string{"train", "--family", "das", "--out", filepath.Join(dir, "m")}, "train.das.cluster", "medium", "medium", "cluster",
			func(t *testing.T, _ string) string { return want(train.ClusterName, "medium") }},
		{[]string{"train", "--family", "marl", "--out", filepath.Join(dir, "m")}, "sim.speed", "standalone", "standalone", "",
			func(t *testing.T, _ string) string { return want(train.Sim.Speed, "standalone") }},
		{[]string{"profile", "synth", "--out", samples}, "profile.synth.samples", "37", "37", "samples",
			func(t *testing.T, _ string) string {
				s, err := profiling.ReadSamples(t.Context(), samples)
				if err != nil {
					return err.Error()
				}
				return want(len(s), 37)
			}},
		{[]string{"fit", "--samples", samples, "--out", filepath.Join(dir, "fit")}, "fit.folds", "3", "3", "folds",
			func(t *testing.T, _ string) string {
				b, err := os.ReadFile(filepath.Join(dir, "fit", "interference.md"))
				if err != nil {
					return err.Error()
				}
				if !strings.Contains(string(b), "3-fold") {
					return "interference.md does not say 3-fold:\n" + string(b)
				}
				return ""
			}},
		{[]string{"ingest", "--source", "google-2011", "--input", googlePart(t, dir), "--out", filepath.Join(dir, "google")}, "datasets.interval_s", "60", "60", "interval",
			func(t *testing.T, _ string) string {
				rows, err := datasets.ReadParquet[datasets.Arrival](filepath.Join(dir, "google", datasets.ArrivalsFile))
				if err != nil {
					return err.Error()
				}
				return want(rows[1].StartS-rows[0].StartS, 60.0)
			}},
		{[]string{"plan", "--out", filepath.Join(dir, "plan")}, "eval.experiments", "[das-table1]", "das-table1", "only",
			func(t *testing.T, out string) string {
				if strings.Contains(out, "eval-marl") || !strings.Contains(out, "eval-das-table1") {
					return "plan shows other experiments' stages:\n" + out
				}
				return ""
			}},
	}
	for _, c := range cases {
		for _, layer := range []string{"file", "env", "set", "flag"} {
			if layer == "flag" && c.flag == "" {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s/%s", c.cmd[0], c.key, layer), func(t *testing.T) {
				spec, train = evaluation.Spec{}, training.TrainSpec{}
				args := slices.Clone(c.cmd)
				switch layer {
				case "file":
					f := filepath.Join(t.TempDir(), "c.yaml")
					if err := os.WriteFile(f, []byte(nestYAML(c.key, c.yaml)), 0o644); err != nil {
						t.Fatal(err)
					}
					args = append(args, "--config", f)
				case "env":
					setenv(t, envVarOf(c.key)+"="+c.text)
				case "set":
					args = append(args, "--set", c.key+"="+c.text)
				case "flag":
					args = append(args, "--"+c.flag, c.text)
				}
				out, code := executeOut(args)
				if code != 0 {
					t.Fatalf("schedlab %v: exit %d\n%s", args, code, out)
				}
				if msg := c.reached(t, out); msg != "" {
					t.Errorf("schedlab %v (%s): %s", args, layer, msg)
				}
			})
		}
	}
}

// TestFlagDefaultsNeverOverride: a flag that is not given sets nothing,
// so a lower layer's value stands (before: eval's --speed default, model,
// overrode sim.speed from every lower layer).
func TestFlagDefaultsNeverOverride(t *testing.T) {
	for _, c := range []struct{ key, val string }{{"sim.speed", "standalone"}, {"seed", "4"}, {"workers", "1"}} {
		setenv(t, envVarOf(c.key)+"="+c.val)
	}
	var spec evaluation.Spec
	evalSpecHook = func(s evaluation.Spec) error { spec = s; return nil }
	defer func() { evalSpecHook = nil }()
	if out, code := executeOut([]string{"eval", "--experiment", "das-table1", "--out", t.TempDir()}); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if spec.Sim.Speed != "standalone" {
		t.Errorf("eval simulates with %q, want the environment's standalone", spec.Sim.Speed)
	}
	// --set sits below a flag given for the same key.
	if out, code := executeOut([]string{"eval", "--experiment", "das-table1", "--out", t.TempDir(), "--set", "sim.speed=standalone", "--speed", "model"}); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if spec.Sim.Speed != "model" {
		t.Errorf("eval simulates with %q, want the flag's model over --set", spec.Sim.Speed)
	}
}

// TestConfigShowOrigin: config show --origin names the layer of every key.
func TestConfigShowOrigin(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(f, []byte("fit:\n  folds: 7\n"), 0o644)
	setenv(t, "SCHEDLAB_SEED=5")
	out, code := executeOut([]string{"config", "show", "--origin", "--preset", "nightly", "--config", f, "--set", "workers=3"})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, w := range []string{
		"fit.folds", "# config file " + f + ", line 2",
		"seed ", "# environment variable SCHEDLAB_SEED",
		"workers ", "# --set workers=3",
		"datasets.source", `"pai-sim"`, "# preset nightly, line",
		"summary.quantiles", "# embedded defaults, line",
		"preset ", "# flag --preset",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("config show --origin lacks %q:\n%s", w, out)
		}
	}
	if n := strings.Count(out, "\n"); n != len(configLeaves())+1 {
		t.Errorf("config show --origin prints %d lines, want one per key (%d) and the hash", n, len(configLeaves()))
	}
}

// executeOut runs schedlab in this process with stdout captured.
func executeOut(args []string) (string, int) {
	r, w, err := os.Pipe()
	if err != nil {
		return err.Error(), -1
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	code := execute(append(args, "--log-level", "error"))
	w.Close()
	os.Stdout = stdout
	return string(<-done), code
}

// googlePart writes a small Google 2011 job_events part (uncompressed
// CSV: SUBMIT events 30 s apart from the window's start) into dir.
func googlePart(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "%d,,%d,0,u,1,n,l\n", 600000000+30000000*i, i+1)
	}
	p := filepath.Join(dir, "part-00000-of-00500.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
