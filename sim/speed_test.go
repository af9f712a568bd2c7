package sim_test

import (
	"context"
	"math"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// sumSame is an interference model whose slowdown is 1 % per core of
// same-socket co-runners: easy to compute by hand, and 0 for an instance
// alone, so a job's run time shows exactly which co-runners were counted.
var sumSame = sim.InterferenceFunc(func(_ sim.JobLoad, same, _ []sim.JobLoad, _ int) float64 {
	var c float64
	for _, j := range same {
		c += j.C
	}
	return 0.01 * c
})

// TestInstanceSlowdownSkipsOnlyItself: the instance being scored is not its
// own co-runner; every other instance, its own job's included, is. A
// one-socket server ("mixed" server 0 is a small one) keeps communication
// out of the picture: worker and PS share the socket, so no flow crosses a
// link and the run time is duration·(1 + max instance slowdown).
func TestInstanceSlowdownSkipsOnlyItself(t *testing.T) {
	c := simtest.Flat(t, 1, "mixed")
	if n := len(c.Servers[0].Kind.Sockets); n != 1 {
		t.Fatalf("server 0 has %d sockets, want a one-socket server", n)
	}
	ctx := context.Background()
	one := sim.Placement{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: 0}}}

	// A single instance alone runs exactly its recorded duration.
	alone := []datasets.Job{{JobID: "alone", DurationS: 1000, Model: "resnet-50",
		Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 6, MemGiB: 8}}}}
	for _, m := range []sim.Interference{sumSame, sim.DefaultInterference()} {
		r, err := sim.Run(ctx, c, alone, fixed{[]sim.Placement{one}}, sim.DefaultConfig(), m)
		if err != nil {
			t.Fatal(err)
		}
		if r.Jobs[0].RunS != 1000 {
			t.Errorf("%T: single instance alone ran %g s, want exactly 1000", m, r.Jobs[0].RunS)
		}
	}

	// Worker (6 cores) + PS (1 core) on the one socket: the worker sees the
	// PS (1 % slowdown), the PS sees the worker (6 %); the job runs at the
	// straggler's 6 %. Counting by job rather than by instance scored the
	// PS against itself and never counted the worker for it (1 %).
	ps := []datasets.Job{{JobID: "ps", DurationS: 1000, Model: "resnet-50",
		Tasks: []datasets.Task{
			{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 6, MemGiB: 8},
			{Role: datasets.RolePS, Instances: 1, CPU: 1, MemGiB: 4},
		}}}
	two := sim.Placement{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: 0}, {Server: 0, Socket: 0}}}
	r, err := sim.Run(ctx, c, ps, fixed{[]sim.Placement{two}}, sim.DefaultConfig(), sumSame)
	if err != nil {
		t.Fatal(err)
	}
	// Tolerance: 1000·1.06 is not exact in binary floating point.
	if got := r.Jobs[0].RunS; math.Abs(got-1060) > 1e-9 {
		t.Errorf("worker + PS on one socket ran %g s, want 1060 (the PS's 6 %% from the worker)", got)
	}
}

// TestProfilesCarrySources: every number of the one profile table names its
// source (NoSource where there is none), and every MARL Table I model is in
// it.
func TestProfilesCarrySources(t *testing.T) {
	for _, p := range append(append([]sim.ModelProfile(nil), sim.Profiles...), sim.DefaultProfile) {
		s := p.Source
		for col, v := range map[string]string{"model": s.Model, "cpu": s.CPU, "pcie": s.PCIe, "gradient_mb": s.GradientMB, "iter_s": s.IterS} {
			if v == "" {
				t.Errorf("profile %q: column %s has no source", p.Name, col)
			}
		}
	}
	for _, m := range sim.MARLModels {
		if !sim.ProfileOf(m).Known {
			t.Errorf("MARL Table I model %s has no profile", m)
		}
	}
}
