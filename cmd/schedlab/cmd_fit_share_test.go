package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/internal/shareddata"
)

// TestProfileImportFitPredictShare runs the GPU-sharing path end to end on
// the real measurements: import both sources, fit, predict. Under the race
// detector the fit is of Lucid's samples alone: of both sources, with the
// folds across them, it takes 13 s of CPU there (2.7 s without), of
// Lucid's 1.4 s, and it runs on one goroutine, where the detector has
// nothing to find; make test-norace fits both.
func TestProfileImportFitPredictShare(t *testing.T) {
	gavel := shareddata.Path(t, "colocation/gavel_throughputs.json")
	dir := filepath.Dir(gavel)
	tmp := t.TempDir()
	g, l := filepath.Join(tmp, "gavel.parquet"), filepath.Join(tmp, "lucid.parquet")
	out, errs, code := schedlab(t, nil, "profile", "import", "--format", "gavel", gavel, "--out", g)
	if code != 0 || !strings.Contains(out, "1473 samples") {
		t.Fatalf("import gavel: exit %d\n%s%s", code, out, errs)
	}
	out, errs, code = schedlab(t, nil, "profile", "import", "--format", "lucid",
		filepath.Join(dir, "lucid_colocate_info.csv"), filepath.Join(dir, "lucid_single_data.csv"), "--out", l)
	if code != 0 || !strings.Contains(out, "2182 samples (313 with speed > 1, kept)") {
		t.Fatalf("import lucid: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(tmp, "gavel.quarantine.parquet")); err != nil {
		t.Fatal(err)
	}
	fit := filepath.Join(tmp, "fit")
	samples := []string{"--samples", g, "--samples", l}
	if raceEnabled {
		samples = samples[2:]
	}
	out, errs, code = schedlab(t, nil, append(append([]string{"fit"}, samples...), "--out", fit)...)
	if code != 0 || !strings.Contains(out, "leave-type-out MAE") {
		t.Fatalf("fit: exit %d\n%s%s", code, out, errs)
	}
	m, err := fitting.LoadModel(filepath.Join(fit, "model.json"))
	if err != nil || m.GPUShare == nil || m.HasCPU() {
		t.Fatalf("model: %v %+v", err, m)
	}
	pred := filepath.Join(tmp, "pred.parquet")
	out, errs, code = schedlab(t, nil, "fit", "--model", filepath.Join(fit, "model.json"), "--predict", l, "--out", pred)
	if code != 0 || !strings.Contains(out, "predicted 2182 of 2182") {
		t.Fatalf("predict: exit %d\n%s%s", code, out, errs)
	}
	rows, err := datasets.ReadParquet[fitting.PredictionRow](pred)
	if err != nil || len(rows) != 2182 || rows[0].Measured != 0.983 || !(rows[0].Predicted > 0) {
		t.Fatalf("predictions: %v, %d rows, first %+v", err, len(rows), rows[0])
	}
}

func TestProfileImportShareBadInput(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"k80\": {\"('A', 1)\": {\"null\": 1.0,\n \"('B', 1)\": [1, \"x\"]}}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := schedlab(t, nil, "profile", "import", "--format", "gavel", bad, "--out", filepath.Join(tmp, "o.parquet"))
	if code != 1 || !strings.Contains(errs, "bad.json:2") {
		t.Fatalf("exit %d, stderr %q: want 1 and the file:line", code, errs)
	}
	_, errs, code = schedlab(t, nil, "profile", "import", "--format", "lucid", bad, "--out", filepath.Join(tmp, "o.parquet"))
	if code != 2 || !strings.Contains(errs, "two files") {
		t.Fatalf("exit %d, stderr %q: want 2 (usage)", code, errs)
	}
}
