package marl_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
)

// TestLearningSeeds is TestLearning's device-level set-up (fat-tree k =
// 4, 10 episodes) at the seeds MARL_LEARN_SEEDS lists (e.g. "1,2,3"),
// with Config.Precision from MARL_LEARN_PRECISION: it logs each seed's
// held-out mean JCT untrained and trained, to compare a change that
// alters bits with the figures before it. Skipped without the variable
// (each seed trains for a few CPU seconds).
func TestLearningSeeds(t *testing.T) {
	seeds := os.Getenv("MARL_LEARN_SEEDS")
	if seeds == "" {
		t.Skip("MARL_LEARN_SEEDS is not set")
	}
	c, err := sim.FatTree(4, "power8")
	if err != nil {
		t.Fatal(err)
	}
	jobs := workload(t, c, 0.2, 160, 11)
	train, test := datasets.SplitMARL(jobs, c.Pods, 0.1, 1800)
	ctx := context.Background()
	heldout := func(s sim.Scheduler) float64 {
		res, err := sim.Run(ctx, c, test, s, intervalConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Metrics.MeanJCTS
	}
	for _, f := range strings.Split(seeds, ",") {
		seed, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			t.Fatalf("MARL_LEARN_SEEDS: %v", err)
		}
		cfg := marl.VariantConfig(marl.VariantDevice)
		cfg.Episodes, cfg.ValidateEvery = 10, 0
		cfg.Precision = os.Getenv("MARL_LEARN_PRECISION")
		init, err := marl.NewPolicy(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		before := heldout(init.Scheduler(marl.SchedulerOptions{}))
		pol, _, err := marl.Train(ctx, cfg, marl.TrainOptions{Cluster: c, Train: train, Sim: intervalConfig(), Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		after := heldout(pol.Scheduler(marl.SchedulerOptions{}))
		t.Logf("seed %d, precision %q: held-out mean JCT untrained %.4f h, trained %.4f h", seed, cfg.Precision, before/3600, after/3600)
	}
}
