package marl_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
)

// TestLRSweep measures what the learning rate does in a short training
// (the numbers in the package documentation). It runs only when
// MARL_LR_SWEEP names the number of episodes:
//
//	MARL_LR_SWEEP=8 go test -run LRSweep -v ./training/marl
func TestLRSweep(t *testing.T) {
	episodes, err := strconv.Atoi(os.Getenv("MARL_LR_SWEEP"))
	if err != nil {
		t.Skip("set MARL_LR_SWEEP to a number of episodes")
	}
	c, err := sim.FatTree(4, "power8")
	if err != nil {
		t.Fatal(err)
	}
	train, test := datasets.SplitMARL(workload(t, c, 0.2, 160, 11), c.Pods, 0.1, 1800)
	heldout := func(p *marl.Policy) float64 {
		r, err := sim.Run(context.Background(), c, test, p.Scheduler(marl.SchedulerOptions{}), intervalConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Metrics.MeanJCTS / 3600
	}
	for _, lr := range []float64{marl.PaperLR, 1e-4, 1e-3, 3e-3} {
		cfg := marl.DefaultConfig()
		cfg.LR, cfg.Episodes, cfg.ValidateEvery = lr, episodes, 0
		init, err := marl.NewPolicy(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		pol, curves, err := marl.Train(context.Background(), cfg, marl.TrainOptions{Cluster: c, Train: train, Sim: intervalConfig(), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("lr %g: training mean JCT %.2f h → %.2f h; held-out greedy %.2f h → %.2f h",
			lr, curves[0].MeanJCT/3600, curves[len(curves)-1].MeanJCT/3600, heldout(init), heldout(pol))
	}
}
