package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/stages"
	"github.com/schedlab/schedlab/training"
)

// TestPresetTrainingSeeds: every model a preset's DAG trains has jobs to
// train and validate on at every seed, on the very streams its training
// stage draws (issue 30, item 7). The split is plan.TrainingData, the
// one the stages and `schedlab train` use: MARL-family models on the
// uniform workload of their stage's stream (every preset; quick with its
// MARL grids' learned rows added, as a user may), DAS-family models on the
// quick preset's synthetic trace of the seed with das-table1's learned rows
// added (the nightly and paper traces are files, the same at every seed;
// their runs cover them). The sensitivity grid's tiny quick trainings can
// be empty and are left out by its stage (stages'
// TestSensitivityNothingToTrain); make test-seeds runs the whole quick
// preset at seeds 1-100.
func TestPresetTrainingSeeds(t *testing.T) {
	// Seeds per preset: quick's small workloads are where a seed can leave
	// a model nothing (its sensitivity grid's do); nightly's are 4 times
	// larger per pod and 4 times longer. The paper preset's are left out:
	// 15 jobs per pod per interval for 100 intervals (30,000 jobs a seed,
	// 18 s of the test's CPU per seed) cannot leave a partition one job.
	// datasets' TestMARLWorkloadSeeds checks the generator and split at
	// these loads over 200 seeds.
	for _, tc := range []struct {
		preset string
		seeds  uint64
	}{{"quick", 200}, {"nightly", 20}} {
		preset, seeds := tc.preset, tc.seeds
		if testing.Short() {
			seeds = min(seeds, 20)
		}
		if raceEnabled {
			// One goroutine draws seed after seed: the detector sees
			// at 3 seeds all it would at 20, and make test-norace walks
			// every seed.
			seeds = min(seeds, 3)
		}
		t.Run(preset, func(t *testing.T) {
			cfg, err := loadConfig(configSource{preset: preset})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Datasets.Ingest, cfg.Datasets.Source = nil, stages.SyntheticPAI
			cfg.Profile.GPUShare = stages.GPUShareConfig{} // no data files: the training splits do not read them
			traceModels := preset == "quick"
			if traceModels {
				e := &cfg.Eval
				evaluation.DASTable1Section.Edit(e, func(s *evaluation.DASTable1Config) { s.Schedulers = append(s.Schedulers, "das", "rifling") })
				evaluation.MARLServersSection.Edit(e, func(s *evaluation.MARLGridConfig) { s.Schedulers = append(s.Schedulers, "marl-device") })
				evaluation.MARLTopologiesSection.Edit(e, func(s *evaluation.MARLGridConfig) { s.Schedulers = append(s.Schedulers, "marl-device") })
			}
			plans := trainingPlans(t, cfg)
			var marl, trace int
			for _, m := range plans {
				switch m.Data.Source {
				case training.SourceMARL:
					marl++
				case training.SourceTrace:
					trace++
				}
			}
			if marl == 0 || (traceModels && trace == 0) {
				t.Fatalf("%d MARL and %d trace training plans found in the DAG of %d: the stages' plans are no longer reachable this way", marl, trace, len(plans))
			}
			for seed := uint64(1); seed <= seeds; seed++ {
				var trace []datasets.Job
				if traceModels {
					c := *cfg
					c.Seed = seed
					if trace, err = c.Trace(context.Background(), ""); err != nil {
						t.Fatal(err)
					}
				}
				for _, m := range plans {
					if m.Data.Source == training.SourceTrace && !traceModels {
						continue
					}
					cluster, err := m.ClusterSpec.Build()
					if err != nil {
						t.Fatal(err)
					}
					data, err := plan.TrainingData(m.Data, cluster, m.Sim, trace, nil, workloadStream(seed, m))
					if err == nil {
						err = data.Check(m.Data.Source)
					}
					if errors.Is(err, training.ErrNoTrainingJobs) {
						t.Errorf("seed %d, %s: %v", seed, m.StageName(), err)
					} else if err != nil {
						t.Fatalf("seed %d, %s: %v", seed, m.StageName(), err)
					}
				}
			}
			t.Logf("%d MARL and %d trace trainings, seeds 1-%d", marl, trace, seeds)
		})
	}
}

// trainingPlans are the plans of cfg's training stages.
func trainingPlans(t *testing.T, cfg *stages.Config) []*plan.Training {
	t.Helper()
	dag, err := stages.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var plans []*plan.Training
	for _, s := range dag {
		if f, ok := s.(*pipeline.Func); ok {
			if m, ok := f.Cfg.(*plan.Training); ok {
				plans = append(plans, m)
			}
		}
	}
	return plans
}

// workloadStream is the stream a training stage draws its MARL workload
// from: its own (seed, stage, "workload"), or a replicate's
// (plan.ReplicaSeeds).
func workloadStream(seed uint64, m *plan.Training) *rand.Rand {
	if m.Replicate == 0 {
		return pipeline.Rand(seed, pipeline.StageStream(m.StageName()), "workload")
	}
	base := strings.TrimSuffix(m.StageName(), fmt.Sprintf("-replicate-%d", m.Replicate))
	w, _ := plan.ReplicaSeeds(seed, base, m.Replicate)
	return w
}
