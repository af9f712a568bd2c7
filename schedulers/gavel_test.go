package schedulers_test

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

// TestGavelMaxMinRounds: Gavel's rounds on two GPUs, worked out by hand.
// A and B ask one GPU, C two, all arrive at 0 with 1000 s of work. At 0
// there is no allocation yet: A and B start where they fit. At 360 the
// program gives X = (2/3, 2/3, 1/3) (TestMaxMinByHand) and every job has
// priority X·10⁹: A and B keep the round. At 720 A and B have had all of
// the time since 360 (priority 2/3) and C none (10⁹/3): C takes the
// round, A and B are preempted. At 1080 A and B have had half (4/3), C
// half (2/3): A and B resume, finish their last 280 s at 1360, and C,
// alone, resumes at once and ends at 2000.
func TestGavelMaxMinRounds(t *testing.T) {
	jobs := []datasets.Job{gpuJob("A", 0, 1000, 1), gpuJob("B", 0, 1000, 1), gpuJob("C", 0, 1000, 2)}
	res := replayPolicy(t, twoGPUCluster(t), jobs, "gavel-las", schedulers.Options{}, 0)
	want := []struct{ start, end float64 }{{0, 1360}, {0, 1360}, {720, 2000}}
	for i, j := range res.Jobs {
		if j.StartS != want[i].start || j.FinishS != want[i].end {
			t.Errorf("job %s: %g–%g, want %g–%g", j.JobID, j.StartS, j.FinishS, want[i].start, want[i].end)
		}
	}
	if len(res.Preempted) != 3 {
		t.Errorf("preempted %v, want each job once", res.Preempted)
	}
}

// TestGavelDeterministic: the Gavel policies give the same bytes run
// twice, at two workload seeds and with GOMAXPROCS 1 and the machine's.
func TestGavelDeterministic(t *testing.T) {
	c, _ := sim.Flat(2, "pai-v100")
	cfg := sim.DefaultConfig()
	cfg.Trigger = sim.TriggerEvery
	cfg.RestartS = sim.RestartFixed(30)
	for _, name := range []schedulers.Name{"gavel-las", "gavel-ftf", "gavel-ftf-oracle", "gandiva"} {
		for _, seed := range []uint64{1, 2} {
			jobs := schedulerstest.PAILike(60, 0.02, seed)
			first := runDigest(t, c, jobs, name, cfg)
			prev := runtime.GOMAXPROCS(1)
			again := runDigest(t, c, jobs, name, cfg)
			runtime.GOMAXPROCS(prev)
			if first != again {
				t.Errorf("%s seed %d: %s then %s", name, seed, first, again)
			}
		}
	}
}

// TestGavelHeterogeneous: with throughputs per GPU type the allocation
// moves each job to the type it gains most on, at the first round's end,
// without leaving GPUs idle. One K80 server and one V100 server of one
// GPU each; A runs 5× faster on the V100, B 1/0.9 faster on the K80. At 0
// first fit puts A on the K80 and B on the V100. The program's optimum
// needs all of the K80 for B (B's normalised throughput cannot
// reach 1/0.95 otherwise), so the K80 is B's alone and A's allocation is on the
// V100: at 360 both move, each preempted once, and both resume at once,
// finishing at 5000 s as if never moved (the simulator runs every GPU at
// one speed).
func TestGavelHeterogeneous(t *testing.T) {
	c, err := sim.Racks(1, 2, sim.ServerKind{Name: "k80", Sockets: []sim.Socket{{Cores: 8, GPUs: 1, PCIeGbps: 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	c.Servers[1].Kind.Name = "v100"
	thr := func(model, gpu string) float64 {
		switch {
		case model == "resnet" && gpu == "k80":
			return 0.2
		case model == "lm" && gpu == "v100":
			return 0.9
		}
		return 1
	}
	a, b := gpuJob("A", 0, 5000, 1), gpuJob("B", 0, 5000, 1)
	a.Model, b.Model = "resnet", "lm"
	s, err := schedulers.NewGavelMaxMin(0, thr)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig()
	cfg.Speed = sim.SpeedStandalone
	cfg.Trigger = sim.TriggerEvery
	res, err := sim.Run(context.Background(), c, []datasets.Job{a, b}, s, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Jobs {
		if j.FinishS < 5000 || j.FinishS > 5000+1e-6 {
			t.Errorf("job %s ends at %g, want 5000 (no idle time when moving)", j.JobID, j.FinishS)
		}
	}
	if want := []sim.Preempted{{Index: 0, Preemptions: 1, Resumptions: 1}, {Index: 1, Preemptions: 1, Resumptions: 1}}; !slices.Equal(res.Preempted, want) {
		t.Errorf("preempted %v, want %v", res.Preempted, want)
	}
}

// TestGavelOtherKindsOneType: server kinds that are not Gavel's GPU types
// are one type, so a job spanning servers of two such kinds runs.
func TestGavelOtherKindsOneType(t *testing.T) {
	c := twoGPUCluster(t)
	c2, err := sim.Racks(1, 2, c.Servers[0].Kind)
	if err != nil {
		t.Fatal(err)
	}
	c2.Servers[1].Kind.Name = "other"
	big := datasets.Job{JobID: "big", DurationS: 100, Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 2, GPU: 2}}}
	for _, name := range []schedulers.Name{"gavel-las", "gavel-ftf"} {
		res := replayPolicy(t, c2, []datasets.Job{big}, name, schedulers.Options{}, 0)
		if j := res.Jobs[0]; j.StartS != 0 || j.FinishS != 100 {
			t.Errorf("%s: the 4-GPU job ran %g–%g, want 0–100", name, j.StartS, j.FinishS)
		}
	}
}
