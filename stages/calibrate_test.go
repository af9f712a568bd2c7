package stages

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/calibration"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
	"github.com/schedlab/schedlab/sim"
)

// The calibrate stage conforms (byte-identical reruns, declared outputs,
// cancellation), and the environment it writes reads back valid and meets
// the two numeric targets it was fitted to.
func TestCalibrateStage(t *testing.T) {
	cfg := quickConfig()
	prof, fit := ProfileSynth(cfg.Profile.Synth), Fit(cfg.Fit)
	pipelinetest.Conformance(t, 3, Calibrate(), prof, fit)

	dir := t.TempDir()
	r := &pipeline.Runner{Dir: dir, Seed: 3, ConfigHash: "t", Workers: 1}
	if _, err := r.Run(context.Background(), []pipeline.Stage{prof, fit, Calibrate()}); err != nil {
		t.Fatal(err)
	}
	env, err := sim.ReadEnvironment(filepath.Join(dir, EnvironmentFile(calibration.MARLPaper)))
	if err != nil {
		t.Fatal(err)
	}
	model, err := FittedInterference(filepath.Join(dir, FitModel))
	if err != nil {
		t.Fatal(err)
	}
	m, err := calibration.Measure(model, env)
	if err != nil {
		t.Fatal(err)
	}
	tg := calibration.MARLTargets
	for _, c := range m.Checks(tg)[:2] {
		if !c.Within {
			t.Errorf("%s: ours %s, paper %s: not within %s", c.Target, c.Ours, c.Paper, c.Tolerance)
		}
	}
}

// A configuration listing the staged calibration experiment builds a DAG
// with the calibrate stage and no eval stage or collected table for it.
func TestCalibrationExperimentInDAG(t *testing.T) {
	cfg := quickConfig()
	cfg.Eval.Experiments = append([]string{evaluation.Calibration}, cfg.Eval.Experiments...)
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range dag {
		names = append(names, s.Name())
	}
	if !slices.Contains(names, "calibrate") || slices.Contains(names, "eval-"+evaluation.Calibration) {
		t.Fatalf("stages %v: want calibrate and no eval-%s", names, evaluation.Calibration)
	}
	if got := cfg.sections()[0].table; got != "tables/calibration.md" {
		t.Errorf("report's first section is %s, want the calibration table", got)
	}
}
