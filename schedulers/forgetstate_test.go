package schedulers_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// stateSpy passes decisions through to a policy and records how many
// distinct States it was handed, and how many came with Since.Progress.
type stateSpy struct {
	sim.Decider
	seen     map[*sim.State]bool
	progress *int
}

func (s *stateSpy) Decide(ctx context.Context, st *sim.State) (sim.Decision, error) {
	s.seen[st] = true
	if st.Since.Progress != nil {
		*s.progress++
	}
	return s.Decider.Decide(ctx, st)
}

// forgetfulSpy is a stateSpy that declares sim.StateForgetter.
type forgetfulSpy struct{ stateSpy }

func (*forgetfulSpy) ForgetsState() {}

// blindSpy is a forgetfulSpy that declares sim.ProgressBlind too.
type blindSpy struct{ forgetfulSpy }

func (*blindSpy) IgnoresProgress() {}

// TestStateForgetterSameResults runs the policies that declare
// sim.StateForgetter twice on random preemptive traces at two seeds: as
// themselves (Run refills one State) and behind a wrapper that hides the
// declaration (a fresh State per decision). Every result but the wall
// clock's must be the same bytes, and each run must have been handed one
// State or one per decision, as the contract says. A third run declares
// sim.ProgressBlind too (as the policies do): the same bytes again, and
// no State with Progress, where the other two had some.
func TestStateForgetterSameResults(t *testing.T) {
	c, err := sim.Racks(1, 2, sim.ServerKind{Name: "g4", Sockets: []sim.Socket{{Cores: 16, GPUs: 4, PCIeGbps: 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 7} {
		rng := rand.New(rand.NewPCG(seed, 4806))
		var jobs []datasets.Job
		for i := range 150 {
			jobs = append(jobs, datasets.Job{JobID: "j" + strconv.Itoa(i),
				SubmitS: float64(30 * rng.IntN(60)), DurationS: float64(max(0, rng.IntN(3600)-60)),
				Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: int32(1 + rng.IntN(2)), GPU: float64(1 + rng.IntN(4))}}})
		}
		for _, name := range []string{"dlas-gpu", "las", "srtf", "srsf", "sjf"} {
			info, ok := schedulers.Lookup(name)
			if !ok {
				t.Fatalf("%s: not registered", name)
			}
			cfg := sim.DefaultConfig()
			cfg.Speed = sim.SpeedStandalone
			cfg.Trigger = info.Trigger
			cfg.SkipFloor = true
			run := func(forget, blind bool) ([]byte, int, int, int) {
				s, err := schedulers.New(schedulers.Name(name), schedulers.Options{})
				if err != nil {
					t.Fatal(err)
				}
				d, ok := s.(sim.Decider)
				if !ok {
					t.Fatalf("%s: not a sim.Decider", name)
				}
				if _, ok := s.(sim.StateForgetter); !ok {
					t.Fatalf("%s: not a sim.StateForgetter", name)
				}
				if _, ok := s.(sim.ProgressBlind); !ok {
					t.Fatalf("%s: not a sim.ProgressBlind", name)
				}
				var progress int
				spy := stateSpy{Decider: d, seen: map[*sim.State]bool{}, progress: &progress}
				var sched sim.Scheduler = &spy
				switch {
				case blind:
					sched = &blindSpy{forgetfulSpy{spy}} // the same seen map
				case forget:
					sched = &forgetfulSpy{spy}
				}
				res, err := sim.Run(context.Background(), c, jobs, sched, cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				res.Timing = sim.Timing{}
				b, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				return b, len(spy.seen), res.Decisions, progress
			}
			fresh, nFresh, decisions, pFresh := run(false, false)
			reused, nReused, _, pReused := run(true, false)
			blind, nBlind, _, pBlind := run(true, true)
			if string(fresh) != string(reused) {
				t.Errorf("seed %d, %s: results differ with one reused State", seed, name)
			}
			if string(blind) != string(reused) || nBlind != 1 {
				t.Errorf("seed %d, %s: results differ without Progress (%d States)", seed, name, nBlind)
			}
			if pFresh == 0 || pReused == 0 || pBlind != 0 {
				t.Errorf("seed %d, %s: %d, %d and %d States with Progress fresh, reused and blind; want some, some, none", seed, name, pFresh, pReused, pBlind)
			}
			if nFresh != decisions || nReused != 1 {
				t.Errorf("seed %d, %s: %d decisions saw %d States fresh, %d reused; want %d and 1", seed, name, decisions, nFresh, nReused, decisions)
			}
		}
	}
}
