package marl_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/marl"
)

// TestLearning trains each variant briefly on a small fat-tree and checks
// that the trained policy places the held-out jobs better than its own
// untrained initialisation: lower mean JCT by at least 20 %. The numbers,
// and the heuristics' on the same jobs, are logged.
func TestLearning(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for a few seconds per variant")
	}
	if raceEnabled {
		t.Skip("under the race detector the trainings' concurrency is checked by the byte-identity tests (TestGoldenTraining, TestSpreadSameBytes, TestRolloutsSameBytes); make test-norace runs this one whole")
	}
	c := simtest.FatTree(t, 4, "power8")
	jobs := workload(t, c, 0.2, 160, 11)
	ctx := context.Background()
	for _, v := range marl.Variants() {
		t.Run(v, func(t *testing.T) {
			parts := c.Pods
			if v == marl.VariantSingle {
				parts = 1
			}
			train, test := datasets.SplitMARL(jobs, parts, 0.1, 1800)
			cfg := marl.VariantConfig(v)
			cfg.Episodes, cfg.ValidateEvery = 10, 0
			heldout := func(s sim.Scheduler) float64 {
				res, err := sim.Run(ctx, c, test, s, intervalConfig(), nil)
				if err != nil {
					t.Fatal(err)
				}
				return res.Metrics.MeanJCTS
			}
			init, err := marl.NewPolicy(cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			before := heldout(init.Scheduler(marl.SchedulerOptions{}))
			pol, curves, err := marl.Train(ctx, cfg, marl.TrainOptions{Cluster: c, Train: train, Sim: intervalConfig(), Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			after := heldout(pol.Scheduler(marl.SchedulerOptions{}))
			first, last := curves[0], curves[len(curves)-1]
			t.Logf("%s: %d train / %d held-out jobs; training return %.1f → %.1f, training mean JCT %.2f h → %.2f h",
				v, len(train), len(test), first.Return, last.Return, first.MeanJCT/3600, last.MeanJCT/3600)
			line := ""
			for _, name := range []string{"tetris", "load-balancing", "lif"} {
				s, _ := schedulers.New(schedulers.Name(name), schedulers.Options{})
				line += name + " " + hours(heldout(s)) + "  "
			}
			t.Logf("%s: held-out mean JCT untrained %s, trained %s (%.0f %% lower); %s", v, hours(before), hours(after), 100*(1-after/before), line)
			if !(after < 0.8*before) {
				t.Errorf("%s: trained policy's held-out mean JCT %s is not 20 %% below the untrained %s", v, hours(after), hours(before))
			}
		})
	}
}

func hours(s float64) string { return strconv.FormatFloat(s/3600, 'f', 2, 64) + " h" }
