package stages

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/marl"
	"github.com/schedlab/schedlab/training/trainingtest"
)

// learnedConfig is quickConfig with every learned family named by an
// experiment (das-table1: das, dl2, rifling; marl-arrivals: the MARL
// variants, DeepSys and Atte), speeds from the default interference
// model so that no fit is needed.
func learnedConfig() *Config {
	return dasAndMARLConfig(
		[]string{"fifo-ff", "das", "dl2", "dl2-das", "rifling", "rifling-ppo"},
		[]string{"lb", "marl-device", "marl-device-paper", "marl-server", "marl-single", "deepsys", "atte"})
}

// dasAndMARLConfig is quickConfig with two experiments, das-table1 with
// the rows dasRows and marl-arrivals with marlRows, speeds from the
// default interference model.
func dasAndMARLConfig(dasRows, marlRows []string) *Config {
	cfg := quickConfig()
	cfg.Eval.Experiments = []string{evaluation.DASTable1, evaluation.MARLArrivals}
	evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) { s.Schedulers = dasRows })
	evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) {
		s.Schedulers = marlRows
		s.FittedInterference = false
	})
	return cfg
}

// evaluatedJobIDs are the ids of the jobs das-table1 of cfg evaluates on
// the trace file jobs (any cluster), found by running its FIFO row.
func evaluatedJobIDs(t *testing.T, cfg *Config, jobs string) map[string]bool {
	t.Helper()
	x, err := cfg.Plan().Experiment(evaluation.DASTable1, "")
	spec := x.Spec
	if err != nil {
		t.Fatal(err)
	}
	for i := range spec.Workloads {
		spec.Workloads[i].JobsFile = jobs
	}
	return trainingtest.EvaluatedJobIDs(t, spec, cfg.Seed)
}

// TestTrainingStagesNoLeak runs every training stage of a DAG naming all
// learned families up to its TrainSpec: no job that das-table1 evaluates
// trains or validates a trace-source family, and no MARL-workload job both
// trains and validates.
func TestTrainingStagesNoLeak(t *testing.T) {
	cfg := learnedConfig()
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var synth pipeline.Stage
	var trains []pipeline.Stage
	for _, s := range dag {
		switch {
		case s.Name() == "synthetic-jobs":
			synth = s
		case strings.HasPrefix(s.Name(), "train-"):
			trains = append(trains, s)
		}
	}
	specs := map[string]training.TrainSpec{}
	trainSpecHook = func(s training.TrainSpec) error { specs[string(s.Variant)] = s; return nil }
	defer func() { trainSpecHook = nil }()
	dir := t.TempDir()
	for _, st := range trains {
		r := &pipeline.Runner{Dir: dir, Seed: cfg.Seed, ConfigHash: mustHash(t, cfg), Config: cfg, Workers: 1}
		// The hook skips the training, so the run fails on the missing
		// outputs: only the spec matters here.
		r.Run(context.Background(), []pipeline.Stage{synth, st})
	}
	evaluated := evaluatedJobIDs(t, cfg, filepath.Join(dir, JobsParquet))
	families := map[string]bool{}
	for _, n := range schedulers.LearnedNames() {
		f, v, _ := training.VariantOf(n)
		if v.ModelName() != n || (f.Name() == "das" && n != "das") {
			continue // das-tuning rows and ablations: as das
		}
		spec, ok := specs[string(n)]
		if !ok {
			t.Errorf("no training stage ran for %s", n)
			continue
		}
		families[f.Name()] = true
		trainingtest.CheckNoLeak(t, "schedlab run: "+string(n), spec, evaluated)
	}
	if len(families) != len(training.Families()) {
		t.Errorf("families checked %v, want all of %v", families, training.Families())
	}
}

// TestTrainingDataTraceSplit: the trace split keeps das-table1's cut even
// when the training cluster prunes fewer jobs than the evaluated ones.
func TestTrainingDataTraceSplit(t *testing.T) {
	cfg := learnedConfig()
	daspaper.Section.Edit(&cfg.Train.Sections, func(d *daspaper.Settings) { d.Cluster = "large" })
	mt, err := cfg.Plan().Training("das", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if mt.Cluster != "large" || mt.Experiment != evaluation.DASTable1 || len(mt.Data.EvalClusters) != 3 {
		t.Fatalf("plan %+v", mt)
	}
	dir := t.TempDir()
	trace, err := cfg.Trace(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "jobs.parquet")
	if err := datasets.WriteParquet(file, datasets.FileMeta{Source: "test"}, trace); err != nil {
		t.Fatal(err)
	}
	spec, err := mt.Spec(dir, plan.TrainInputs{Trace: trace})
	if err != nil {
		t.Fatal(err)
	}
	trainingtest.CheckNoLeak(t, "das on large", spec, evaluatedJobIDs(t, cfg, file))
}

// TestTrainingDataTooFewNamesTheKey: a trace cut that leaves a trace
// model nothing to train on is ErrNoTrainingJobs, and the error names the
// key that gets out of it, whichever split found it (das-table1's cut, or
// the family's own per-cluster split).
func TestTrainingDataTooFewNamesTheKey(t *testing.T) {
	for _, maxJobs := range []int{1, 2} {
		cfg := learnedConfig()
		evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) { s.MaxJobs = maxJobs })
		mt, err := cfg.Plan().Training("das", "", "")
		if err != nil {
			t.Fatal(err)
		}
		trace, err := cfg.Trace(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = mt.Spec(t.TempDir(), plan.TrainInputs{Trace: trace})
		if !errors.Is(err, training.ErrNoTrainingJobs) || !strings.Contains(fmt.Sprint(err), "raise eval.das_table1.max_jobs") {
			t.Errorf("max_jobs %d: %v", maxJobs, err)
		}
	}
}

// TestMARLRolloutsKey: train.marl.rollouts is bounded with a message
// naming the key, and reaches the MARL family's config (plan.Config.Training).
func TestMARLRolloutsKey(t *testing.T) {
	cfg := quickConfig()
	for _, n := range []int{-1, marl.MaxRollouts + 1} {
		tc := cfg.Train
		marl.Section.Edit(&tc.Sections, func(m *marl.Settings) { m.Rollouts = n })
		err := tc.Validate()
		if err == nil || !strings.Contains(err.Error(), "train.marl.rollouts: must be in [0, 64]") {
			t.Errorf("rollouts %d: %v, want the key's bound", n, err)
		}
	}
	marl.Section.Edit(&cfg.Train.Sections, func(m *marl.Settings) { m.Rollouts = 3 })
	if err := cfg.Train.Validate(); err != nil {
		t.Fatal(err)
	}
	mt, err := cfg.Plan().Training("marl-device", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := mt.Config.(*marl.FamilyConfig).Rollouts; got != 3 {
		t.Errorf("marl's family config has rollouts %d, want 3", got)
	}
}
