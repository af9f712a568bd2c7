package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/deepsys"
	"github.com/schedlab/schedlab/training/marl"
)

func TestTrainMARL(t *testing.T) {
	dir := t.TempDir()
	args := func(out string) []string {
		return []string{"train", "--family", "marl", "--variant", "server", "--topology", "fattree", "--k", "4", "--episodes", "2",
			"--intervals", "10", "--jobs-per-pod", "0.5", "--seed", "3", "--out", out}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, out := range []string{a, b} {
		stdout, stderr, code := schedlab(t, nil, args(out)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, w := range []string{"marl-server on fattree-k4-power8: 2 episodes", "held-out mean JCT", "tetris"} {
			if !strings.Contains(stdout, w) {
				t.Errorf("stdout lacks %q:\n%s", w, stdout)
			}
		}
		if !strings.Contains(stderr, "episode=2") {
			t.Errorf("stderr lacks the episode log:\n%s", stderr)
		}
	}
	for _, f := range []string{marl.CheckpointFile, marl.SidecarFile, training.CurvesFile, "curves.svg", "curves.png"} {
		x, err := os.ReadFile(filepath.Join(a, f))
		if err != nil || len(x) == 0 {
			t.Fatalf("%s: %v", f, err)
		}
		y, _ := os.ReadFile(filepath.Join(b, f))
		if f != "curves.png" && !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with one seed", f)
		}
	}
	rows, err := datasets.ReadParquet[training.Curve](filepath.Join(a, training.CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Family != "marl" || rows[0].Variant != "server" || rows[2].Split != "validation" {
		t.Errorf("curves: %+v", rows)
	}
	pol, err := marl.LoadPolicy(a)
	if err != nil {
		t.Fatal(err)
	}
	if pol.Config().Variant != "server" || pol.Config().Episodes != 2 {
		t.Errorf("loaded config %+v", pol.Config())
	}
}

func TestTrainMARLUsage(t *testing.T) {
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topology", "torus"}, `--topology "torus"`},
		{[]string{"--variant", "pod"}, `--variant "pod" is not one of marl's (device, server, single)`},
		{[]string{"--k", "5"}, "cluster.k: must be even"},
		{[]string{"--workload", "google"}, `--workload "google"`},
		{[]string{"--interference", "/nonexistent/model.json"}, "--interference: load interference model"},
	} {
		_, stderr, code := schedlab(t, nil, append([]string{"train", "--family", "marl", "--out", out}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestTrainDeepSys trains both baselines under the fitted interference
// model (fitting.DefaultModel as a model.json).
func TestTrainDeepSys(t *testing.T) {
	model := filepath.Join(t.TempDir(), "model.json")
	b, err := json.Marshal(fitting.DefaultModel())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"deepsys", "atte"} {
		out := filepath.Join(t.TempDir(), v)
		stdout, stderr, code := schedlab(t, nil, "train", "--family", "deepsys", "--variant", v, "--k", "4", "--intervals", "10",
			"--jobs-per-pod", "0.5", "--episodes", "2", "--interference", model, "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", v, code, stderr)
		}
		if !strings.Contains(stdout, v+" on fattree-k4-power8") || !strings.Contains(stdout, "held-out mean JCT") {
			t.Errorf("%s: stdout %q", v, stdout)
		}
		if _, err := deepsys.Load(out); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}
