package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlan: schedlab plan says what a run would do without doing it: every
// stage of a finished run cached, with its last wall time; a changed key
// reruns the stages it reaches and says why; a missing input is named and
// exits 1; nothing is written.
func TestPlan(t *testing.T) {
	t.Parallel()
	dir := quickCopy(t)
	before := dirFiles(t, dir)
	out, errs, code := schedlab(t, nil, "plan", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "17 of 17 stages cached, 0 would run") {
		t.Errorf("a finished run is not all cached:\n%s", out)
	}
	out, _, _ = schedlab(t, nil, "plan", "--out", dir, "--set", "fit.folds=3")
	for _, w := range []string{"fit                                runs", "its configuration, inputs or outputs changed",
		"eval-marl-arrivals", "an input is made by a stage that runs (fit)", "synthetic-jobs                     cached",
		"Estimate from the last quick run in"} {
		if !strings.Contains(out, w) {
			t.Errorf("plan with fit.folds changed lacks %q:\n%s", w, out)
		}
	}
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("datasets:\n  ingest:\n    - {source: elasticflow, inputs: [nowhere.csv]}\n"), 0o644)
	// Every missing input listed, exit status 1 (issue 51), as plan's help
	// says.
	os.WriteFile(cfg, []byte("datasets:\n  ingest:\n    - {source: elasticflow, inputs: [nowhere.csv]}\n    - {source: philly-gavel, inputs: [neither.csv]}\n"), 0o644)
	out, errs, code = schedlab(t, nil, "plan", "--out", dir, "--config", cfg, "--data-dir", t.TempDir())
	if code != 1 || !strings.Contains(out, "missing input: datasets.ingest[0] (elasticflow): input nowhere.csv") ||
		!strings.Contains(out, "missing input: datasets.ingest[1] (philly-gavel): input neither.csv") || !strings.Contains(errs, "2 inputs missing") {
		t.Errorf("missing inputs: exit %d, want 1 and both listed:\n%s%s", code, out, errs)
	}
	after := dirFiles(t, dir)
	if len(after) != len(before) {
		t.Errorf("plan wrote into the run directory: %d files before, %d after", len(before), len(after))
	}
	for name, b := range before {
		if after[name] != b {
			t.Errorf("plan changed %s", name)
		}
	}
}
