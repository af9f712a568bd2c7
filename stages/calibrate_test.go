package stages

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/calibration"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/sim"
)

// The calibrate stage conforms (byte-identical reruns, declared outputs,
// cancellation), and the environment it writes reads back valid and meets
// the two numeric targets it was fitted to.
//
// Both environment files read back as written (round trip), the DAS rows
// of the table were fitted on das-table1's evaluated jobs, a damaged
// environment file is refused naming the file and the key, and the stage
// with one worker writes the same bytes as with two. Under the race
// detector it runs with two workers only (the stage's workers are the DAS
// fit's, and calibration's TestFitDAS compares that fit on one worker and
// two there); make test-norace runs it with one too.
func TestCalibrateStage(t *testing.T) {
	cfg := quickConfig()
	evaluation.CalibrationSection.Set(&cfg.Eval, evaluation.CalibrationConfig{DAS: true})
	// The DAS fit simulates das-table1's evaluated jobs in each of its
	// evaluations: 30 of them, not the 60 of quickConfig's 300, make each
	// run of the stage here 4 s of CPU under the race detector, not 7.
	evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) { s.MaxJobs = 150 })
	jobs, prof, fit := SyntheticJobs(cfg.Datasets.Synthetic), ProfileSynth(cfg.Profile.Synth), Fit(cfg.Fit)
	// The conformance test's first run, in two, is the two workers' run
	// compared below (seed 3, cfg.Workers).
	two := t.TempDir()
	pipelinetest.ConformanceIn(t, two, 3, Calibrate(cfg), jobs, prof, fit)

	// One worker here, two in Conformance: the same bytes. The checks
	// below read the one worker's run (the conformance test's under the
	// race detector).
	dir := two
	if !raceEnabled {
		dir = t.TempDir()
		one := *cfg
		one.Workers = 1
		r := &pipeline.Runner{Dir: dir, Seed: 3, ConfigHash: "t", Workers: 1}
		if _, err := r.Run(context.Background(), []pipeline.Stage{jobs, prof, fit, Calibrate(&one)}); err != nil {
			t.Fatal(err)
		}
		for _, out := range Calibrate(cfg).Outputs() {
			a, errA := os.ReadFile(filepath.Join(dir, out))
			b, errB := os.ReadFile(filepath.Join(two, out))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("%s: 1 and %d workers differ (%v, %v)", out, cfg.Workers, errA, errB)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(plan.Environments)) {
		path := filepath.Join(dir, plan.EnvironmentFile(name))
		e, err := sim.ReadEnvironment(path)
		if err != nil {
			t.Fatal(err)
		}
		if e.Name != name {
			t.Errorf("%s: name %q", path, e.Name)
		}
		b, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if orig, _ := os.ReadFile(path); !bytes.Equal(orig, b) {
			t.Errorf("%s: does not round-trip:\n%s\n%s", path, orig, b)
		}
		bad := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(bad, bytes.Replace(b, []byte(`"comm_scale"`), []byte(`"comm_scal"`), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := sim.ReadEnvironment(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "comm_scal") {
			t.Errorf("damaged %s: %v, want an error naming the file and key", name, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "tables", evaluation.Calibration+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| " + calibration.MARLPaper + " | MARL Table III", "| " + calibration.DASPaper + " | DAS Table 1, Large: mean-fee spread", fmt.Sprintf("%d evaluated jobs", int(0.2*float64(evaluation.DASTable1Section.Get(&cfg.Eval).MaxJobs)))} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("calibration table lacks %q:\n%s", want, md)
		}
	}
	env, err := sim.ReadEnvironment(filepath.Join(dir, plan.EnvironmentFile(calibration.MARLPaper)))
	if err != nil {
		t.Fatal(err)
	}
	speeds, err := plan.SpeedModel{Fitted: true}.Resolve(plan.Sources{Fit: filepath.Join(dir, FitModel)})
	if err != nil {
		t.Fatal(err)
	}
	model := speeds.Base
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
	names := stageNames(t, cfg, "")
	if !slices.Contains(names, "calibrate") || slices.Contains(names, "eval-"+evaluation.Calibration) {
		t.Fatalf("stages %v: want calibrate and no eval-%s", names, evaluation.Calibration)
	}
	if got := cfg.sections()[0].table; got != "tables/calibration.md" {
		t.Errorf("report's first section is %s, want the calibration table", got)
	}
}
