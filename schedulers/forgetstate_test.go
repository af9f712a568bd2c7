package schedulers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// stateSpy passes decisions through to a policy (sim.DecisionOf) and
// records how many distinct States it was handed, and how many came with
// Since.Progress. It declares neither sim.StateForgetter nor
// sim.ProgressBlind, whatever the policy does.
type stateSpy struct {
	sched    sim.Scheduler
	seen     map[*sim.State]bool
	progress *int
}

func (s *stateSpy) Name() string { return s.sched.Name() }

func (s *stateSpy) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	d, err := s.Decide(ctx, st)
	return d.Start, err
}

func (s *stateSpy) Decide(ctx context.Context, st *sim.State) (sim.Decision, error) {
	s.seen[st] = true
	if st.Since.Progress != nil {
		*s.progress++
	}
	return sim.DecisionOf(ctx, s.sched, st)
}

// forgetfulSpy is a stateSpy that declares sim.StateForgetter.
type forgetfulSpy struct{ stateSpy }

func (*forgetfulSpy) ForgetsState() {}

// blindSpy is a stateSpy that declares sim.ProgressBlind.
type blindSpy struct{ stateSpy }

func (*blindSpy) IgnoresProgress() {}

// blindForgetfulSpy is a forgetfulSpy that declares sim.ProgressBlind too.
type blindForgetfulSpy struct{ forgetfulSpy }

func (*blindForgetfulSpy) IgnoresProgress() {}

// TestStateForgetterSameResults runs every built-in policy, all of which
// declare sim.ProgressBlind, on random traces at two seeds: behind a
// wrapper that hides its declarations (a fresh State per decision, with
// Progress), and behind one that makes the policy's own (no State with
// Progress where the first run had some; one State refilled by Run for a
// sim.StateForgetter). A policy that declares sim.StateForgetter runs a
// third time as one without the blindness. Every result but the wall
// clock's must be the same bytes, and each run must have been handed one
// State or one per decision, as the contracts say.
func TestStateForgetterSameResults(t *testing.T) {
	c, err := sim.Racks(1, 2, sim.ServerKind{Name: "g4", Sockets: []sim.Socket{{Cores: 16, GPUs: 4, PCIeGbps: 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	forgetters := []string{"dlas-gpu", "las", "srtf", "srsf", "sjf"}
	others := []string{"fifo", "gandiva", "gavel-las", "gavel-ftf", "gavel-ftf-oracle",
		"fifo-firstfit", "fifo-loadbalance", "drf-firstfit", "tetris", "load-balancing", "lif", "lif-new", "tetris-pack", "malo", "mosa"}
	seeds, n, meta := []uint64{1, 7}, 150, 40
	if raceEnabled {
		// Every run is three to four whole replays, which the detector
		// slows tenfold: one seed and fewer jobs under it, the whole test
		// in make test-norace.
		seeds, n, meta = seeds[:1], 50, 15
	}
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 4806))
		var jobs []datasets.Job
		for i := range n {
			jobs = append(jobs, datasets.Job{JobID: "j" + strconv.Itoa(i),
				SubmitS: float64(30 * rng.IntN(60)), DurationS: float64(max(0, rng.IntN(3600)-60)),
				Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: int32(1 + rng.IntN(2)), GPU: float64(1 + rng.IntN(4)), CPU: 2, MemGiB: 4}}})
		}
		for _, name := range slices.Concat(forgetters, others) {
			t.Run(fmt.Sprintf("seed=%d/%s", seed, name), func(t *testing.T) {
				info, ok := schedulers.Lookup(name)
				if !ok {
					t.Fatalf("%s: not registered", name)
				}
				forgets := slices.Contains(forgetters, name)
				cfg := sim.DefaultConfig()
				cfg.Speed = sim.SpeedStandalone
				if info.Trigger != "" {
					cfg.Trigger = info.Trigger
				}
				cfg.SkipFloor = true
				jobs := jobs
				if isMeta(schedulers.Name(name)) {
					jobs = jobs[:meta] // a search per decision: keep the test short
				}
				run := func(forget, blind bool) ([]byte, int, int, int) {
					s, err := schedulers.New(schedulers.Name(name), schedulers.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := s.(sim.StateForgetter); ok != forgets {
						t.Fatalf("%s: a sim.StateForgetter is %v, want %v", name, ok, forgets)
					}
					if _, ok := s.(sim.ProgressBlind); !ok {
						t.Fatalf("%s: not a sim.ProgressBlind", name)
					}
					var progress int
					spy := stateSpy{sched: s, seen: map[*sim.State]bool{}, progress: &progress}
					var sched sim.Scheduler = &spy
					switch {
					case forget && blind:
						sched = &blindForgetfulSpy{forgetfulSpy{spy}} // the same seen map
					case forget:
						sched = &forgetfulSpy{spy}
					case blind:
						sched = &blindSpy{spy}
					}
					b, res := runBytes(t, c, jobs, sched, cfg)
					return b, len(spy.seen), res.Decisions, progress
				}
				fresh, nFresh, decisions, pFresh := run(false, false)
				own, nOwn, _, pOwn := run(forgets, true)
				if string(own) != string(fresh) {
					t.Errorf("seed %d, %s: results differ without Progress", seed, name)
				}
				if want := map[bool]int{false: decisions, true: 1}[forgets]; nFresh != decisions || nOwn != want {
					t.Errorf("seed %d, %s: %d decisions saw %d States fresh, %d as declared; want %d and %d", seed, name, decisions, nFresh, nOwn, decisions, want)
				}
				if pFresh == 0 || pOwn != 0 {
					t.Errorf("seed %d, %s: %d and %d States with Progress fresh and as declared; want some and none", seed, name, pFresh, pOwn)
				}
				if forgets {
					reused, nReused, _, pReused := run(true, false)
					if string(reused) != string(fresh) || nReused != 1 || pReused == 0 {
						t.Errorf("seed %d, %s: with one reused State and Progress, the same results %v, %d States, %d with Progress; want true, 1 and some",
							seed, name, string(reused) == string(fresh), nReused, pReused)
					}
				}
			})
		}
	}
}
