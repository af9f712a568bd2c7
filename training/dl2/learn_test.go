package dl2

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestRLImprovesOnWarmup checks DL²'s second stage: PPO episodes after
// the supervised warm-up from drf-firstfit must lower the held-out mean
// JCT (the validation split, later than and disjoint from the training
// jobs) below that of the policy right after the warm-up. It uses the
// paper's architecture (32 slots, hidden 64) on the contended workload
// (setup) with the learning rate raised from the paper's 1e-6 — at which,
// in this budget, the RL stage does not move the policy at all
// (measured, seed 1: untrained 9,498 s, warm 14,199 s, after 20 episodes
// 14,345 s) — to 3e-4.
//
// One seed's RL stage is noisy: measured after 30 episodes of 300 jobs,
// seeds 1–5, RL/warm-up ratios of held-out mean JCT 0.81, 0.95, 0.75,
// 1.09, 0.83 (warm 7,936, 8,238, 9,700, 7,912, 7,904 s). So the bar is
// on the mean ratio over those five seeds (0.886 measured): ≤ 0.95, a
// gain of at least 5 % on average. No learning (zero episodes) gives
// exactly 1; PPO with the rewards zeroed (entropy and critic drift
// only) gave 0.97, 1.19, 1.00, 0.85, 1.01, mean 1.004: one seed's noise
// is about ±0.1, which is why five are averaged.
func TestRLImprovesOnWarmup(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("five training runs of 30 episodes: about 14 s, and 170 s under the race detector")
	}
	c, sp := setup(t)
	var sum float64
	const seeds = 5
	for seed := uint64(1); seed <= seeds; seed++ {
		cfg := DefaultConfig()
		cfg.LR, cfg.SegmentJobs, cfg.Episodes = 3e-4, 300, 30
		res, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		init, warm, final := res.InitVal.Metrics.MeanJCTS, res.WarmVal.Metrics.MeanJCTS, res.FinalVal.Metrics.MeanJCTS
		t.Logf("seed %d: held-out mean JCT untrained %.0f s, after warm-up %.0f s, after RL %.0f s (× %.3f)", seed, init, warm, final, final/warm)
		sum += final / warm
	}
	if mean := sum / seeds; !(mean <= 0.95) {
		t.Errorf("the RL stage's held-out mean JCT is on average %.3f × the warm-up's, not ≤ 0.95", mean)
	} else {
		t.Logf("mean RL/warm-up ratio %.3f", mean)
	}
}
