package das

import (
	"context"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/nn"
)

// burstState returns the first decision point of jobs on the Small
// cluster with every job submitted at once, and the simulator.
func burstState(t *testing.T, n int) (*sim.Sim, *sim.State) {
	t.Helper()
	jobs := make([]datasets.Job, n)
	for i := range jobs {
		jobs[i] = datasets.Job{JobID: string(rune('a' + i)), DurationS: 100 + float64(i),
			Tasks: []datasets.Task{{Role: "worker", Instances: int32(1 + i%3), GPU: 8, CPU: 10, MemGiB: 40}}}
	}
	s, err := sim.New(simtest.Preset(t, "small"), jobs, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

func TestObservePadsAndMasks(t *testing.T) {
	_, st := burstState(t, 3)
	o, chosen := observe(st, 5, nil)
	if o.Count != 3 || len(chosen) != 3 || len(o.Mask) != 5 || len(o.Jobs) != 5*JobFeatures {
		t.Fatalf("count %d chosen %d mask %d rows %d", o.Count, len(chosen), len(o.Mask), len(o.Jobs)/JobFeatures)
	}
	for r := 0; r < 5; r++ {
		if o.Mask[r] != (r < 3) {
			t.Errorf("mask[%d] = %v", r, o.Mask[r])
		}
	}
	for _, v := range o.Jobs[3*JobFeatures:] {
		if v != 0 {
			t.Fatal("padding rows are not zero")
		}
	}
	// Row 1 is job b: 2 instances of 8 GPUs, 10 cores, 40 GiB on 8-GPU,
	// 96-core, 512-GiB servers, submitted now.
	want := []float64{math.Log(3) / math.Log(65), 1, 10.0 / 96, 40.0 / 512, 0}
	for i, w := range want {
		if got := o.Jobs[JobFeatures+i]; got < w-1e-6 || got > w+1e-6 {
			t.Errorf("job feature %d = %v, want %v", i, got, w)
		}
	}
	if o.M != 8 || len(o.Machines) != 8*MachineFeatures {
		t.Fatalf("machines %d", o.M)
	}
	for k := 0; k < 8; k++ {
		r := o.Machines[k*MachineFeatures:]
		if r[0] != 1 || r[1] != 1 || r[2] != 1 || r[4] != 0 {
			t.Errorf("machine %d of an idle cluster: %v", k, r[:MachineFeatures])
		}
	}
}

func TestObserveSamplesOrTakesOldest(t *testing.T) {
	_, st := burstState(t, 12)
	o, chosen := observe(st, 4, nil)
	if o.Count != 4 {
		t.Fatalf("count %d", o.Count)
	}
	for i, js := range chosen {
		if js != st.Pending[i] {
			t.Errorf("evaluation row %d is not the %d-th oldest job", i, i)
		}
	}
	rng := pipeline.Rand(1, "test", "sample")
	seen := map[int]bool{}
	for rep := 0; rep < 20; rep++ {
		_, chosen := observe(st, 4, rng)
		for i := 1; i < len(chosen); i++ {
			if chosen[i].Index <= chosen[i-1].Index {
				t.Fatal("sampled rows are not in submission order")
			}
		}
		for _, js := range chosen {
			seen[js.Index] = true
		}
	}
	if len(seen) < 10 {
		t.Errorf("20 samples of 4 from 12 jobs saw only %d jobs", len(seen))
	}
}

// TestDecodeNeverOvercommits drives whole episodes with random priorities
// and affinities (a model with noisy weights, sampling) and checks every
// decision against the free resources before the simulator sees it.
func TestDecodeNeverOvercommits(t *testing.T) {
	c := simtest.Preset(t, "small")
	cfg := tinyConfig(VariantDAS)
	m := NewModel(cfg, pipeline.Rand(4, "test", "init"))
	rng := pipeline.Rand(4, "test", "decode")
	m.ps.Perturb(1, rng)
	jobs := contendedJobs(150, 4)
	s, err := sim.New(c, jobs, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var hist []*HistEntry
	var tape nn.Tape
	placed := 0
	for {
		st, err := s.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		o, chosen := observe(st, cfg.Jobs, rng)
		o.Hist = hist
		d := m.act(&tape, o, rng)
		pl, rows, err := decode(st, chosen, d)
		if err != nil {
			t.Fatal(err)
		}
		used := make([]sim.Resources, len(st.Free))
		for _, p := range pl {
			js := s.Job(p.Job)
			if len(p.Slots) != len(js.Instances) {
				t.Fatalf("job %d: %d slots for %d instances", p.Job, len(p.Slots), len(js.Instances))
			}
			for i, sl := range p.Slots {
				used[sl.Server] = used[sl.Server].Add(js.Instances[i].Demand)
			}
		}
		for k, u := range used {
			if !u.Fits(st.Free[k]) {
				t.Fatalf("t=%g: server %d over-committed: %+v of %+v free", st.Now, k, u, st.Free[k])
			}
		}
		if err := s.Apply(pl); err != nil {
			t.Fatal(err) // ErrInfeasible would mean decode over-committed
		}
		placed += len(pl)
		hist = pushHistory(hist, d, rows, cfg.History)
	}
	if placed != len(jobs)-len(s.Pruned()) {
		t.Errorf("placed %d of %d jobs", placed, len(jobs))
	}
}
