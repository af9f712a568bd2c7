package schedulers_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

func TestRegistry(t *testing.T) {
	want := []string{"fifo-firstfit", "fifo-loadbalance", "drf-firstfit", "drf-loadbalance", "tetris", "load-balancing", "lif", "tetris-pack", "malo", "mosa"}
	if got := schedulers.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"FIFO-FirstFit", "fifo-firstfit"}, {"fifo-ff", "fifo-firstfit"}, {"DRF_LB", "drf-loadbalance"},
		{"LB", "load-balancing"}, {"Least-Interference-First", "lif"}, {" MALO ", "malo"},
	} {
		s, err := schedulers.New(tc.in, 3)
		if err != nil || s.Name() != tc.want {
			t.Errorf("New(%q) = %v, %v; want %s", tc.in, s, err, tc.want)
		}
	}
	if _, err := schedulers.New("sjf"); err == nil {
		t.Error("unknown name accepted")
	}
	if _, err := schedulers.New("malo", 1, 2); err == nil {
		t.Error("two seeds accepted")
	}
	for _, n := range schedulers.Names() {
		if schedulers.Describe(n) == "" {
			t.Errorf("%s has no description", n)
		}
	}
}

// TestMetaSeeds: the meta-heuristics depend on their seed only through
// their random stream; the same seed repeats a run exactly.
func TestMetaSeeds(t *testing.T) {
	c, _ := sim.Flat(4, "pai-v100")
	jobs := schedulerstest.PAILike(40, 0.02, 9)
	run := func(name string, seed uint64) []sim.JobResult {
		s, err := schedulers.New(name, seed)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(context.Background(), c, jobs, s, sim.DefaultConfig(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Jobs
	}
	for _, name := range []string{"malo", "mosa"} {
		if !reflect.DeepEqual(run(name, 1), run(name, 1)) {
			t.Errorf("%s: same seed, different results", name)
		}
	}
	if err := (schedulers.MetaConfig{Temperature: 1, Cooling: 2, Iterations: 1, Population: 2, MaxJobs: 1}).Validate(); err == nil {
		t.Error("cooling 2 accepted")
	}
}
