package sim_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// homes places four one-GPU, one-core jobs on the one power8 server in
// one decision, leaving the socket to the engine, and returns the sockets
// they were homed on.
func homes(t *testing.T, cfg sim.Config) []int {
	t.Helper()
	c := simtest.Flat(t, 1, "power8")
	var jobs []datasets.Job
	for i := 0; i < 4; i++ {
		jobs = append(jobs, datasets.Job{JobID: string(rune('a' + i)), DurationS: 100, Model: "resnet-50",
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 1, MemGiB: 1}}})
	}
	s, err := sim.New(c, jobs, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	var pl []sim.Placement
	for i := range jobs {
		pl = append(pl, sim.Placement{Job: i, Slots: []sim.Slot{{Server: 0, Socket: -1}}})
	}
	if err := s.Apply(pl); err != nil {
		t.Fatal(err)
	}
	var out []int
	for i := range jobs {
		out = append(out, s.Job(i).Slots[0].Socket)
	}
	return out
}

// TestSocketRules: most-free spreads instances over the sockets, first-fit
// fills socket 0 (two GPUs) first, random is a function of its seed and
// differs between seeds; an unknown rule is rejected by name.
func TestSocketRules(t *testing.T) {
	cfg := sim.DefaultConfig()
	if got := homes(t, cfg); !slices.Equal(got, []int{0, 1, 0, 1}) {
		t.Errorf("most-free: %v, want [0 1 0 1]", got)
	}
	cfg.Socket = sim.SocketFirstFit
	if got := homes(t, cfg); !slices.Equal(got, []int{0, 0, 1, 1}) {
		t.Errorf("first-fit: %v, want [0 0 1 1]", got)
	}
	cfg.Socket = sim.SocketRandom
	seen := map[string]bool{}
	for seed := uint64(0); seed < 16; seed++ {
		cfg.SocketSeed = seed
		a, b := homes(t, cfg), homes(t, cfg)
		if !slices.Equal(a, b) {
			t.Fatalf("random, seed %d: %v then %v", seed, a, b)
		}
		for k := 0; k < 2; k++ {
			if n := len(slices.DeleteFunc(slices.Clone(a), func(x int) bool { return x != k })); n != 2 {
				t.Fatalf("random, seed %d: %v, want two instances per socket (two GPUs each)", seed, a)
			}
		}
		seen[fmt.Sprint(a)] = true
	}
	if len(seen) < 2 {
		t.Errorf("random: the same homes %v for 16 seeds", seen)
	}
	cfg.Socket = "numa"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "sim.socket") {
		t.Errorf("unknown rule: %v", err)
	}
}

// TestPredictServerSlowdown: the paper's LIF score of a server is the sum
// of every task's slowdown with the new instance there: zero on an empty
// server, and on a busy one at least the new instance's own slowdown plus
// what it does to the instance already running.
func TestPredictServerSlowdown(t *testing.T) {
	c := simtest.Flat(t, 2, "power8")
	job := func(id string, submit float64) datasets.Job {
		return datasets.Job{JobID: id, SubmitS: submit, DurationS: 1000, Model: "ctc",
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: 6, MemGiB: 1}}}
	}
	cfg := sim.DefaultConfig()
	cfg.Socket = sim.SocketFirstFit
	s, err := sim.New(c, []datasets.Job{job("a", 0), job("b", 10)}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply([]sim.Placement{{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: -1}}}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	load := s.Job(1).Instances[0].Load
	if got := st.PredictServerSlowdown(load, 1, nil); got != 0 {
		t.Errorf("empty server: %g, want 0", got)
	}
	own := st.PredictSlowdown(load, 0, nil)
	all := st.PredictServerSlowdown(load, 0, nil)
	if !(own > 0) || !(all > own) {
		t.Errorf("beside a running CTC worker on its socket: all tasks %g, the new one alone %g; want 0 < alone < all", all, own)
	}
	if err := s.Apply(nil); err != nil {
		t.Fatal(err)
	}
}
