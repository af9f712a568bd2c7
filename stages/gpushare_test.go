package stages

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
)

// TestGPUShareStages: with profile.gpu_share set, the DAG imports the
// measured pairs and the fit stage fits both terms; the stages pass the
// conformance harness (deterministic outputs, atomic writes, cancellation).
//
// Under the race detector the conformance runs on Lucid's measurements
// alone: the fit of both sources, with its folds across them, takes 13 s
// of CPU a run there (2.7 s without), Lucid's 1.4 s, and it runs on one
// goroutine, where the detector has nothing to find. make test-norace
// runs it on both.
func TestGPUShareStages(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the GPU-sharing term on the real measurements three times")
	}
	gavel := shareddata.Path(t, "colocation/gavel_throughputs.json")
	cfg := quickConfig()
	cfg.DataDir = filepath.Dir(filepath.Dir(gavel))
	cfg.Profile.GPUShare = GPUShareConfig{Gavel: "colocation/gavel_throughputs.json",
		Lucid: []string{"colocation/lucid_colocate_info.csv", "colocation/lucid_single_data.csv"}}
	run := *cfg
	if raceEnabled {
		run.Profile.GPUShare.Gavel = ""
	}
	imp, fit, err := run.gpuShareStages()
	if err != nil {
		t.Fatal(err)
	}
	if len(imp) != 1 || len(fit.Outputs()) != 5 {
		t.Fatalf("stages: %d imports, fit outputs %v", len(imp), fit.Outputs())
	}
	prof := ProfileSynth(cfg.Profile.Synth)
	dir := t.TempDir() // the fit's conformance finds the import there
	pipelinetest.ConformanceIn(t, dir, 2, imp[0])
	pipelinetest.ConformanceIn(t, dir, 2, fit, prof, imp[0])

	cfg.Profile.GPUShare.Lucid = cfg.Profile.GPUShare.Lucid[:1]
	if _, _, err := cfg.gpuShareStages(); err == nil || !strings.Contains(err.Error(), "profile.gpu_share.lucid") {
		t.Errorf("one Lucid file: %v", err)
	}
	cfg.Profile.GPUShare = GPUShareConfig{Gavel: "colocation/missing.json"}
	if _, _, err := cfg.gpuShareStages(); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	cfg.Profile.GPUShare = GPUShareConfig{}
	if imp, fit, err := cfg.gpuShareStages(); err != nil || len(imp) != 0 || fit.Outputs()[len(fit.Outputs())-1] != FitTable {
		t.Errorf("no sources: %v, %d imports, fit %v", err, len(imp), fit.Outputs())
	}
}
