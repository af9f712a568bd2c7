package rifling_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/rifling"
	"github.com/schedlab/schedlab/training/rl"
)

// colocationJobs are single-GPU jobs that each ask for 12 of a pai-v100
// socket's 48 cores, arriving on average gapS seconds apart, 30 min ± 25 %
// long. First fit (pack) stacks them four to a socket, where the default
// interference model slows each by about 12 %; one to a server (spread)
// runs them at standalone speed while the cluster is not full.
func colocationJobs(n int, seed uint64, gapS float64) []datasets.Job {
	rng := pipeline.Rand(seed, "test", "colocation")
	jobs := make([]datasets.Job, n)
	now := 0.0
	for i := range jobs {
		now += rng.ExpFloat64() * gapS
		jobs[i] = datasets.Job{JobID: fmt.Sprintf("h%d", i), Source: "test", SubmitS: now, DurationS: 1800 * (0.75 + 0.5*rng.Float64()),
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 12, MemGiB: 30}}}
	}
	return jobs
}

// TestTrainingLearns checks that Q-learning moves RIFLING's greedy policy
// towards the placements its reward favours, on held-out jobs: the last
// 20 % by submission (daspaper.PrepareJobs), never seen in training (neither by
// the k-means grouping nor by the episodes).
//
// The workload is not the shared contended one (dastest.ContendedJobs):
// there the untrained table, whose ties go to pack (FIFO first fit), is
// already the best RIFLING can do by its reward — the job's rate right
// after it starts, which first fit keeps at standalone by keeping a job's
// instances together — and training does not lower mean JCT (measured,
// 400 training / 100 held-out jobs on Small, 20 episodes of 200 jobs:
// gap 400 s 17,716 → 17,782 s; gap 500 s 9,498 → 14,417 s, waits
// included). So the test uses a workload on which the rate reward and
// mean JCT agree and pack is the wrong rule: co-location-sensitive jobs
// at 0.5–1 × the Small cluster's GPUs (colocationJobs). There the best
// rule (spread) gains at most ≈ 12 % (the slowdown pack incurs);
// measured (10 episodes) 1,997 → 1,804 s (−10 %) and return 91.3 → 100.0 (of 100
// jobs, rate 1 each at best). The bar, trained ≤ 0.95 × untrained, asks
// for at least half of that gain and fails when nothing is learnt (zero
// episodes leaves the table, and so the policy, untouched).
func TestTrainingLearns(t *testing.T) {
	c, sp := dastest.SmallSplit(t, colocationJobs(500, 1, 200), 500)
	cfg := rifling.DefaultConfig()
	cfg.Episodes, cfg.SegmentJobs = 10, 200
	ctx := context.Background()
	res, err := rifling.Train(ctx, cfg, sp, rifling.TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	heldout := func(p *rifling.Policy) sim.Metrics {
		r, err := sim.Run(ctx, c, sp.Val, rifling.NewScheduler(p), sim.DefaultConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Metrics
	}
	// The untrained policy: the same groups with an all-zero table.
	untrained := &rifling.Policy{Config: cfg, Centroids: res.Policy.Centroids,
		Q: rl.NewQTable(len(res.Policy.Centroids), len(rifling.ActionNames), cfg.Alpha, cfg.Gamma)}
	before, after := heldout(untrained), heldout(res.Policy)
	t.Logf("held-out (%d jobs, %d training): mean JCT untrained %.0f s, trained %.0f s (return %.1f → %.1f)",
		len(sp.Val), len(sp.Train), before.MeanJCTS, after.MeanJCTS, res.InitVal.Return, res.FinalVal.Return)
	if before != res.InitVal.Metrics || after != res.FinalVal.Metrics {
		t.Errorf("Train's own validation (%+v → %+v) differs from running its policies (%+v → %+v)",
			res.InitVal.Metrics, res.FinalVal.Metrics, before, after)
	}
	if !(after.MeanJCTS <= 0.95*before.MeanJCTS) {
		t.Errorf("trained mean JCT %.0f s is not 5 %% below the untrained %.0f s", after.MeanJCTS, before.MeanJCTS)
	}
}
