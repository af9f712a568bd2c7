package schedulers_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

func TestRegistry(t *testing.T) {
	want := []schedulers.Name{"fifo-firstfit", "fifo-loadbalance", "drf-firstfit", "drf-loadbalance", "tetris", "load-balancing", "lif", "lif-new", "tetris-pack", "malo", "mosa",
		"fifo-strict", "smallest-first", "srtf", "srsf", "tiresias-las", "tiresias-las-1d", "tiresias-gittins",
		"gandiva", "gavel-las", "gavel-ftf", "malo-oracle", "mosa-oracle", "gavel-ftf-oracle"}
	if got := schedulers.Heuristics(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Heuristics() = %v, want %v", got, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"FIFO-FirstFit", "fifo-firstfit"}, {"fifo-ff", "fifo-firstfit"}, {"DRF_LB", "drf-loadbalance"},
		{"LB", "load-balancing"}, {"Least-Interference-First", "lif"}, {" MALO ", "malo"},
		// The Tiresias simulator's --schedule names.
		{"fifo", "fifo-strict"}, {"sjf", "smallest-first"}, {"shortest", "srtf"}, {"shortest-gpu", "srsf"},
		{"dlas-gpu", "tiresias-las"}, {"dlas", "tiresias-las-1d"},
		{"max-min-fairness", "gavel-las"}, {"Themis", "gavel-ftf"},
	} {
		s, err := schedulers.New(schedulers.Name(tc.in), schedulers.Options{Seed: 3})
		if err != nil || s.Name() != tc.want {
			t.Errorf("New(%q) = %v, %v; want %s", tc.in, s, err, tc.want)
		}
		if n, err := schedulers.Canonical(tc.in); err != nil || string(n) != tc.want {
			t.Errorf("Canonical(%q) = %q, %v; want %s", tc.in, n, err, tc.want)
		}
	}
	if _, err := schedulers.New("hrrn", schedulers.Options{}); !errors.Is(err, schedulers.ErrUnknown) {
		t.Errorf("unknown name: err = %v, want ErrUnknown", err)
	}
	if _, err := schedulers.Canonical("hrrn"); !errors.Is(err, schedulers.ErrUnknown) || !strings.Contains(err.Error(), "fifo-firstfit") {
		t.Errorf("Canonical(hrrn) = %v, want ErrUnknown listing the known names", err)
	}
	for _, n := range schedulers.Heuristics() {
		info, ok := schedulers.Lookup(string(n))
		if !ok {
			t.Fatalf("%s is listed but not registered", n)
		}
		if info.Doc == "" || info.Display == "" || info.Learned() {
			t.Errorf("%s: %+v: want a description, a display name and no family", n, info)
		}
	}
	if got := schedulers.Display("tetris-pack"); got != "Tetris (packing)" {
		t.Errorf("Display(tetris-pack) = %q", got)
	}
}

// The registry is global: the test scheduler registers once per process
// (-count, -shuffle), and the heuristics' tests iterate Heuristics().
var (
	registerTestLearned sync.Once
	testLearnedGot      schedulers.Options
)

// TestRegisterLearned: a learned scheduler registers like a heuristic,
// cannot be built without a model, and is listed among the learned.
func TestRegisterLearned(t *testing.T) {
	registerTestLearned.Do(func() {
		schedulers.Register(schedulers.Info{Name: "test-learned", Display: "Test", Family: "test", Doc: "test only"},
			func(o schedulers.Options) (sim.Scheduler, error) {
				testLearnedGot = o
				return schedulers.NewGreedy("test-learned", schedulers.FIFO, schedulers.FirstFit{}), nil
			})
	})
	if !slices.Contains(schedulers.LearnedNames(), "test-learned") || slices.Contains(schedulers.Heuristics(), "test-learned") {
		t.Fatalf("learned %v, heuristics %v", schedulers.LearnedNames(), schedulers.Heuristics())
	}
	if _, err := schedulers.New("test-learned", schedulers.Options{}); err == nil {
		t.Error("learned scheduler built without a model")
	}
	if _, err := schedulers.New("TEST_LEARNED", schedulers.Options{Model: "/m", Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if got := testLearnedGot; got.Model != "/m" || got.Seed != 7 || got.PriceGPUHour != sim.DefaultConfig().PriceGPUHour {
		t.Errorf("constructor got %+v: want the model, the seed and the default price", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second registration of a name did not panic")
		}
	}()
	schedulers.Register(schedulers.Info{Name: "lb"}, func(schedulers.Options) (sim.Scheduler, error) { return nil, nil })
}

// TestMetaPrice: MALO and MOSA optimise against the price they are given
// (the experiment's), not the default: their surrogate's fee scales.
func TestMetaPrice(t *testing.T) {
	for _, name := range []string{"malo", "mosa", "malo-oracle", "mosa-oracle"} {
		s, err := schedulers.New(schedulers.Name(name), schedulers.Options{PriceGPUHour: 10})
		if err != nil {
			t.Fatal(err)
		}
		if p := reflect.ValueOf(s).Elem().FieldByName("price"); !p.IsValid() || p.Float() != 10 {
			t.Errorf("%s: price field %v, want 10", name, p)
		}
	}
}

// TestMetaSeeds: the meta-heuristics depend on their seed only through
// their random stream; the same seed repeats a run exactly.
func TestMetaSeeds(t *testing.T) {
	c, _ := sim.Flat(4, "pai-v100")
	jobs := schedulerstest.PAILike(40, 0.02, 9)
	run := func(name string, seed uint64) []sim.JobResult {
		s, err := schedulers.New(schedulers.Name(name), schedulers.Options{Seed: seed})
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
	bad := schedulers.MetaConfig{Temperature: 1, Cooling: 2, Iterations: 1, Population: 2, MaxJobs: 1}
	if err := bad.Validate(); err == nil {
		t.Error("cooling 2 accepted")
	}
	// Each constructor refuses it with the key behind its own name.
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"malo", errOf(schedulers.NewMALO(bad, 1, nil))},
		{"malo-oracle", errOf(schedulers.NewOracleMALO(bad, 1, nil))},
		{"mosa", errOf(schedulers.NewMOSA(bad, 1, nil))},
		{"mosa-oracle", errOf(schedulers.NewOracleMOSA(bad, 1, nil))},
	} {
		if want := "schedulers: " + tc.name + ".cooling: "; tc.err == nil || !strings.HasPrefix(tc.err.Error(), want) {
			t.Errorf("%s with cooling 2: error %v, want one starting %q", tc.name, tc.err, want)
		}
	}
}

func errOf[T any](_ T, err error) error { return err }
