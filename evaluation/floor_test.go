package evaluation

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// floorTolerance is the relative slack of the floor property: the engine
// sums a job's progress piece by piece between rate changes, so a job at
// full speed may finish a few ulps before start + duration.
const floorTolerance = 1e-9

// TestFloorIsABound is the floor's property (DESIGN.md §4): on 100 seeded
// workloads of each generator (the MARL paper's uniform, Poisson and
// Google-pattern arrivals under interval triggers, the same overloaded ×3
// in batches and ×2 placed on arrival, and the PAI-like trace under event
// triggers), no registered heuristic's mean JCT is below the
// floor the engine reports, and the floor is the one FloorOf computes
// from the jobs alone. Small clusters and short traces keep it fast; the
// clusters are small (two power8 servers; two 8-GPU servers) and the
// PAI-like arrivals dense, so that jobs queue and the area bound is
// exercised as well as the standalone one. Under -short or -race, 3
// workloads each, 1 of the overloaded ones.
func TestFloorIsABound(t *testing.T) {
	ft2, err := sim.FatTree(2, "power8")
	if err != nil {
		t.Fatal(err)
	}
	flat, err := sim.Flat(2, "pai-v100")
	if err != nil {
		t.Fatal(err)
	}
	interval := sim.DefaultConfig()
	interval.Trigger = sim.TriggerInterval
	event := sim.DefaultConfig()
	arrivals := make([]datasets.Arrival, 4)
	for i := range arrivals {
		arrivals[i] = datasets.Arrival{Interval: int64(i), StartS: 1800 * float64(i), Jobs: int64(1 + 3*(i%2))}
	}
	gens := []struct {
		name    string
		cluster *sim.Cluster
		cfg     sim.Config
		jobs    func(seed int) ([]datasets.Job, error)
	}{}
	for _, kind := range []string{datasets.MARLUniform, datasets.MARLPoisson, datasets.MARLGoogle} {
		gens = append(gens, struct {
			name    string
			cluster *sim.Cluster
			cfg     sim.Config
			jobs    func(seed int) ([]datasets.Job, error)
		}{"marl-" + kind, ft2, interval, func(seed int) ([]datasets.Job, error) {
			w := datasets.MARLWorkload{Kind: kind, Pods: 2, JobsPerPod: 2, Intervals: 3, IntervalS: interval.IntervalS, Arrivals: arrivals}
			return datasets.GenerateMARL(w, pipeline.Rand(uint64(seed), "floor-test", pipeline.Key(kind)))
		}})
	}
	// Overload: three times the jobs per interval above in one batch, and
	// twice them over two intervals placed on arrival (eval.marl_arrivals'
	// placement arrival); short, so that the metaheuristics' searches
	// stay fast: jobs queue for several intervals, where the capacity and
	// packing bounds bind.
	for _, o := range []struct {
		name string
		jpp  float64
		cfg  sim.Config
		n    int
	}{{"marl-uniform-x3", 6, interval, 1}, {"marl-poisson-x2-arrival", 4, event, 2}} {
		kind := strings.Split(o.name, "-")[1]
		gens = append(gens, struct {
			name    string
			cluster *sim.Cluster
			cfg     sim.Config
			jobs    func(seed int) ([]datasets.Job, error)
		}{o.name, ft2, o.cfg, func(seed int) ([]datasets.Job, error) {
			w := datasets.MARLWorkload{Kind: kind, Pods: 2, JobsPerPod: o.jpp, Intervals: o.n, IntervalS: interval.IntervalS}
			return datasets.GenerateMARL(w, pipeline.Rand(uint64(seed), "floor-test", pipeline.Key(o.name)))
		}})
	}
	gens = append(gens, struct {
		name    string
		cluster *sim.Cluster
		cfg     sim.Config
		jobs    func(seed int) ([]datasets.Job, error)
	}{"pai-like", flat, event, func(seed int) ([]datasets.Job, error) {
		jobs, err := datasets.GeneratePAILikeJobs(context.Background(), datasets.PAILikeConfig{Jobs: 20}, pipeline.Rand(uint64(seed), "floor-test", "pai"))
		// Arrivals ten times as dense: jobs queue.
		return scaleArrivals(jobs, 10), err
	}})
	names := schedulers.Heuristics()
	if len(names) < 8 {
		t.Fatalf("only %d heuristics registered: %v", len(names), names)
	}
	workloads := 100
	if testing.Short() || raceEnabled {
		// sim and schedulers start no goroutines: the detector has
		// nothing to find here that three workloads do not show (make
		// test-norace runs all 100).
		workloads = 3
	}
	for _, g := range gens {
		t.Run(g.name, func(t *testing.T) {
			// Each generator's replays share nothing with another's
			// (the clusters are read only): both cores, where make
			// test-norace runs this last.
			t.Parallel()
			area := 0 // workloads whose floor is the area bound
			n := workloads
			if strings.Contains(g.name, "-x") && n < 100 {
				// The overloaded ones cost most (long queues, the
				// metaheuristics' searches): one under -short or
				// -race, all 100 in make test-norace.
				n = 1
			}
			for seed := 0; seed < n; seed++ {
				jobs, err := g.jobs(seed)
				if err != nil {
					t.Fatal(err)
				}
				want, err := sim.FloorOf(g.cluster, jobs, g.cfg)
				if err != nil {
					t.Fatal(err)
				}
				if want.Binding != "standalone" {
					area++
				}
				for _, name := range names {
					s, err := schedulers.New(name, schedulers.Options{Seed: uint64(seed)})
					if errors.Is(err, schedulers.ErrNeedsData) {
						continue // a policy that learns from a data set (tiresias-gittins)
					}
					if err != nil {
						t.Fatal(err)
					}
					res, err := sim.Run(context.Background(), g.cluster, jobs, s, g.cfg, nil)
					if err != nil {
						t.Fatalf("seed %d, %s: %v", seed, name, err)
					}
					m := res.Metrics
					if m.FloorJCTS != want.MeanJCTS || res.Floor != want {
						t.Fatalf("seed %d, %s: the run's floor %+v, FloorOf %+v", seed, name, res.Floor, want)
					}
					if m.MeanJCTS < m.FloorJCTS*(1-floorTolerance) {
						t.Errorf("seed %d, %s: mean JCT %.6f s below the floor %.6f s (%+v)", seed, name, m.MeanJCTS, m.FloorJCTS, res.Floor)
					}
				}
			}
			t.Logf("%d workloads, %d heuristics; the capacity or packing bound binds on %d", n, len(names), area)
		})
	}
}

// TestFloorExact: the floor is reached where nothing stops a scheduler
// from reaching it, so it is not a loose constant: one job alone runs at
// its standalone speed from the first interval boundary, and the area
// bound of jobs that must share one GPU is the single-machine SRPT sum.
// Each case also names the bound that gives the floor (Floor.Name, the
// metrics' floor_bound), one case per relaxation.
func TestFloorExact(t *testing.T) {
	flat, err := sim.Flat(1, "pai-v100")
	if err != nil {
		t.Fatal(err)
	}
	job := func(id string, submit, dur float64, gpus int32) datasets.Job {
		return datasets.Job{JobID: id, SubmitS: submit, DurationS: dur, Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: gpus, GPU: 1, CPU: 1, MemGiB: 1}}}
	}
	// whole is a job of one instance of gpus GPUs.
	whole := func(id string, submit, dur float64, gpus float64) datasets.Job {
		return datasets.Job{JobID: id, SubmitS: submit, DurationS: dur, Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: gpus, CPU: 1, MemGiB: 1}}}
	}
	interval := sim.DefaultConfig()
	interval.Trigger, interval.IntervalS = sim.TriggerInterval, 100
	for _, tc := range []struct {
		name    string
		cfg     sim.Config
		jobs    []datasets.Job
		want    float64
		binding string
		bound   string // Floor.Name
		reached bool   // FIFO reaches the floor
	}{
		{"alone, event", sim.DefaultConfig(), []datasets.Job{job("a", 30, 50, 1)}, 50, "standalone", "standalone", true},
		// Released at the boundary 100: JCT 70 + 50.
		{"alone, interval", interval, []datasets.Job{job("a", 30, 50, 1)}, 120, "standalone", "standalone", true},
		// Eight GPUs, three jobs of all eight at t=0 of 10, 20, 30 s:
		// shortest first finishes at 10, 30, 60 (the mean-busy bound
		// ties, and the first named wins). FIFO runs a, b, c in
		// submission order: above the floor.
		{"queued", sim.DefaultConfig(), []datasets.Job{job("a", 0, 30, 8), job("b", 0, 10, 8), job("c", 0, 20, 8)}, 100.0 / 3, "gpu", "capacity/gpu", false},
		// Three jobs of four 1-GPU instances at t=0 of 10 s: pooled,
		// each is 5 s of the eight GPUs (SRPT: 5, 10, 15, mean 10);
		// holding its GPUs 10 s, a job's mean busy time is at most C − 5,
		// so Σ C ≥ (2.5 + 7.5 + 12.5) + 15 = 37.5. Two fit at once: FIFO
		// gets 10, 10, 20.
		{"mean busy", sim.DefaultConfig(), []datasets.Job{job("a", 0, 10, 4), job("b", 0, 10, 4), job("c", 0, 10, 4)}, 12.5, "gpu", "mean-busy/gpu", false},
		// Two jobs of one 5-GPU instance at t=0 of 10 s: pooled they
		// would share the eight GPUs (mean-busy bound 11.25), but no two
		// fit one server: u⁽¹⁾ weighs each as a whole server, and one
		// after the other is 10, 20, which FIFO reaches.
		{"packing", sim.DefaultConfig(), []datasets.Job{whole("a", 0, 10, 5), whole("b", 0, 10, 5)}, 15, "gpu", "packing/gpu", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := sim.FloorOf(flat, tc.jobs, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := f.MeanJCTS - tc.want; d > 1e-9 || d < -1e-9 || f.Binding != tc.binding || f.Name() != tc.bound {
				t.Fatalf("floor %+v (%s), want %g bound by %s (%s)", f, f.Name(), tc.want, tc.binding, tc.bound)
			}
			// Shortest first on the one server reaches it.
			s, err := schedulers.New("fifo-firstfit", schedulers.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.reached {
				return
			}
			res, err := sim.Run(context.Background(), flat, tc.jobs, s, tc.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Metrics.MeanJCTS != tc.want {
				t.Fatalf("mean JCT %g, the floor %g", res.Metrics.MeanJCTS, tc.want)
			}
			if res.Metrics.FloorBound != tc.bound {
				t.Errorf("the run's metrics name the bound %q, want %q", res.Metrics.FloorBound, tc.bound)
			}
		})
	}
}

// TestHeadrooms: every cell's columns come from its own column (cluster,
// workload, seed): the floor it reported, the best of the heuristics
// there (never a learned row, even a better one), the headroom and the
// cell's share of it.
func TestHeadrooms(t *testing.T) {
	cell := func(s schedulers.Name, seed int, jct, floor float64) CellResult {
		return CellResult{Cell: Cell{Scheduler: s, Seed: seed}, Metrics: sim.Metrics{MeanJCTS: jct, FloorJCTS: floor}}
	}
	rep := &Report{Cells: []CellResult{
		cell("tetris", 0, 12, 10), cell("lif", 0, 11, 10), cell("marl-device", 0, 10.5, 10),
		cell("tetris", 1, 30, 20), cell("lif", 1, 40, 20), cell("marl-device", 1, 25, 20),
		cell("marl-device", 2, 5, 4), // no heuristic in the column
	}}
	type want struct {
		best          string
		headroom, sha float64
	}
	same := func(a, b float64) bool { return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-12 }
	for i, w := range []want{
		{"lif", 0.1, -1}, {"lif", 0.1, 0}, {"lif", 0.1, 0.5},
		{"tetris", 0.5, 0}, {"tetris", 0.5, -1}, {"tetris", 0.5, 0.5},
		{"", math.NaN(), math.NaN()},
	} {
		h := rep.headrooms()[i]
		if h.BestHeuristic != w.best || !same(h.Headroom, w.headroom) || !same(h.Share, w.sha) || h.FloorJCTS != rep.Cells[i].Metrics.FloorJCTS {
			t.Errorf("cell %d: %+v, want best %q headroom %g share %g", i, h, w.best, w.headroom, w.sha)
		}
	}
	if got := MaxMargin(0.25); math.Abs(got-0.2) > 1e-12 {
		t.Errorf("MaxMargin(0.25) = %g, want 0.2: a scheduler at the floor beats the baseline by 20 %%", got)
	}
}

// TestFloorBoundNote: a column group's floor names its bound, once when
// every seed has the same, with each bound's count of seeds (most first)
// when they differ, and not at all for a run that predates the name.
func TestFloorBoundNote(t *testing.T) {
	cell := func(ci, seed int, bound string) CellResult {
		return CellResult{Cell: Cell{ci: ci, Scheduler: "lif", Seed: seed}, Metrics: sim.Metrics{FloorBound: bound}}
	}
	rep := &Report{Cells: []CellResult{
		cell(0, 1, "mean-busy/gpu"), cell(0, 2, "mean-busy/gpu"),
		cell(1, 1, "standalone"), cell(1, 2, "packing/gpu"), cell(1, 3, "packing/gpu"),
		cell(2, 1, ""),
	}}
	for ci, want := range []string{"mean-busy/gpu", "packing/gpu at 2 of 3 seeds, standalone at 1", ""} {
		if got := rep.floorBound(ci, 0); got != want {
			t.Errorf("group %d: %q, want %q", ci, got, want)
		}
	}
}
