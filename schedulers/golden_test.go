package schedulers_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/golden"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// placementHash hashes every placement a scheduler makes, with the decision's
// time.
type placementHash struct {
	sim.Scheduler
	d *simtest.Digest
}

func (r *placementHash) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	pl, err := r.Scheduler.Schedule(ctx, st)
	r.d.Float(st.Now)
	r.d.Placements(pl)
	r.d.End()
	return pl, err
}

// Decide hashes a preemptive scheduler's decisions: the starts as
// Schedule does (so a scheduler that never preempts hashes as before), then
// its preemptions and wake-up when it has any.
func (r *placementHash) Decide(ctx context.Context, st *sim.State) (sim.Decision, error) {
	d, err := sim.DecisionOf(ctx, r.Scheduler, st)
	r.d.Float(st.Now)
	r.d.Placements(d.Start)
	if len(d.Preempt) > 0 || d.WakeS != 0 {
		r.d.Int(-1)
		for _, j := range d.Preempt {
			r.d.Int(j)
		}
		r.d.Float(d.WakeS)
	}
	r.d.End()
	return d, err
}

// runDigest runs the named scheduler (seed 1) and returns the sha256 of its
// placements followed by every field of every per-job result and the
// metrics.
func runDigest(t testing.TB, c *sim.Cluster, jobs []datasets.Job, name schedulers.Name, cfg sim.Config) string {
	t.Helper()
	d := simtest.NewDigest()
	res, err := sim.Run(context.Background(), c, jobs, &placementHash{Scheduler: newScheduler(t, name, 1), d: d}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Jobs {
		d.Int(j.Index)
		for _, x := range [...]float64{j.StartS, j.FinishS, j.JCTS, j.QueueS, j.RunS, j.Slowdown, j.GPUs, j.FeeUSD} {
			d.Float(x)
		}
		d.Int(j.Machines)
	}
	d.Totals(res)
	d.End()
	return d.Sum()
}

// TestGoldenHeuristics pins every heuristic's decisions and results bit for
// bit on a DAS-like and a MARL-like workload, and FIFO-FirstFit and Load
// Balancing on the benchmarks' own settings: the digests were taken before
// the speed work of issue 18, so an optimisation that changes any
// placement or any float of a result fails here. The marl-fattree4 and
// fattree-k8 ones were re-recorded when relink stopped marking jobs whose
// bottlenecks had not moved (last bits of progress; MOSA, whose annealing
// compares them, also places differently). The digests live in
// testdata/golden_heuristics.txt; go test -run TestGoldenHeuristics
// -update rewrites it from what the schedulers do now.
func TestGoldenHeuristics(t *testing.T) {
	small, _ := sim.Flat(4, "pai-v100")
	large, _ := sim.Flat(32, "pai-v100")
	ft4, _ := sim.FatTree(4, "power8")
	ft8, _ := sim.FatTree(8, "power8")
	interval := sim.DefaultConfig()
	interval.Trigger = sim.TriggerInterval
	gold := golden.Open(t, "testdata/golden_heuristics.txt")
	pai := schedulerstest.PAILike(300, 0.01, 5)
	marl := schedulerstest.MARLLike(160, 1800, 5)
	for _, name := range schedulers.Heuristics() {
		for _, tc := range []struct {
			kind string
			c    *sim.Cluster
			jobs []datasets.Job
			cfg  sim.Config
		}{{"das-small", small, pai, sim.DefaultConfig()}, {"marl-fattree4", ft4, marl, interval}} {
			key := tc.kind + "/" + string(name)
			jobs := tc.jobs
			if isMeta(name) {
				jobs = jobs[:80] // a search per decision: keep the test short
			}
			t.Run(key, func(t *testing.T) {
				if raceEnabled && isMeta(name) {
					// A digest pins the whole run, which the detector
					// slows tenfold; MALO and MOSA run under it in
					// TestConformance, TestCompare and TestMetaSeeds.
					t.Skip("MALO and MOSA's digests are checked without the race detector (make test-norace)")
				}
				gold.Check(t, key, runDigest(t, tc.c, jobs, name, tc.cfg))
			})
		}
	}
	t.Run("bench/replay-pai-10k", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short")
		}
		gold.Check(t, "bench/replay-pai-10k", runDigest(t, large, schedulerstest.PAILike(10000, 0.035, 1), "fifo-firstfit", sim.DefaultConfig()))
	})
	t.Run("bench/fattree-k8", func(t *testing.T) {
		gold.Check(t, "bench/fattree-k8", runDigest(t, ft8, marlPerPod(8, 15, 20, 1), "load-balancing", interval))
	})
}

// TestByShapeMatchesLoop checks Greedy's per-shape walk of a submission
// ordered queue against its per-job loop, which it takes for any order
// that is not st.Pending itself: an order returning a copy of st.Pending
// must give the same placements, on fractional demands whose sums round
// (so that a rolled-back placement can leave the ledger an ulp above
// where it was) and on an overloaded cluster with a long queue.
func TestByShapeMatchesLoop(t *testing.T) {
	copyOrder := func(st *sim.State, dst []*sim.JobState) []*sim.JobState { return append(dst, st.Pending...) }
	small, _ := sim.Flat(3, "dgx1")
	jobs := schedulerstest.PAILike(600, 0.05, 9)
	r := rand.New(rand.NewPCG(9, 9))
	for i := range jobs {
		tk := &jobs[i].Tasks[0]
		tk.GPU = []float64{0, 0.1, 0.3, 0.7, 1.1, 2.3}[r.IntN(6)]
		tk.CPU = []float64{0, 0.1, 1.7, 3.3, 6.9}[r.IntN(5)]
		tk.MemGiB = []float64{0, 0.2, 7.1, 30.3}[r.IntN(4)]
		tk.Instances = int32(1 + r.IntN(3))
	}
	for _, p := range []struct {
		name  string
		place func() schedulers.Placer
	}{
		{"firstfit", func() schedulers.Placer { return schedulers.FirstFit{} }},
		{"leastload", func() schedulers.Placer { return &schedulers.LeastLoad{} }},
		{"packing", func() schedulers.Placer { return &schedulers.Packing{} }},
	} {
		var got [2]string
		for k, order := range []schedulers.Order{schedulers.FIFO, copyOrder} {
			g := schedulers.NewGreedy("g", order, p.place())
			h := &placementHash{Scheduler: g, d: simtest.NewDigest()}
			res, err := sim.Run(context.Background(), small, jobs, h, sim.DefaultConfig(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Metrics.MeanQueueS < 3600 {
				t.Fatalf("%s: mean queue %gs: the cluster is not overloaded, the test proves little", p.name, res.Metrics.MeanQueueS)
			}
			got[k] = h.d.Sum()
		}
		if got[0] != got[1] {
			t.Errorf("%s: per-shape walk %s, per-job loop %s", p.name, got[0], got[1])
		}
	}
}
