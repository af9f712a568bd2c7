package schedulers_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// pendingSpy forwards to a walking policy and keeps its promises but
// sim.PendingBlind, and counts the States that listed pending jobs.
type pendingSpy struct {
	d      sim.Decider
	listed *int
}

func (p *pendingSpy) Name() string     { return p.d.Name() }
func (p *pendingSpy) ForgetsState()    {}
func (p *pendingSpy) IgnoresProgress() {}
func (p *pendingSpy) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	return nil, nil // not called: Run drives a Decider through Decide
}

func (p *pendingSpy) Decide(ctx context.Context, st *sim.State) (sim.Decision, error) {
	if st.Pending != nil || st.Since.Unplaced != nil {
		*p.listed++
	}
	return p.d.Decide(ctx, st)
}

// blindPendingSpy is a pendingSpy that declares sim.PendingBlind.
type blindPendingSpy struct{ pendingSpy }

func (*blindPendingSpy) IgnoresPending() {}

// TestPendingBlindSameResults replays the shared 500-job ElasticFlow
// trace on n8g4 (restart 0 and 30 s, and under the event trigger) and
// the first 2,000 PAI jobs on Large under the walking policies (only
// SRSF on PAI under the race detector), each
// behind a wrapper that hides its sim.PendingBlind and behind one that
// declares it, and compares the results' bytes: keeping the pending jobs
// in no order changes nothing the engine computes. The blind runs must
// see no pending list, the others some.
func TestPendingBlindSameResults(t *testing.T) {
	root := shareddata.Path(t, "tiresias")
	ef := readTiresiasTrace(t, filepath.Join(root, "traces", "ef02-500.csv"))
	n8g4 := tiresiasCluster(t, root, "n8g4")
	pai := paiSubset(t)[:2000]
	large := paiCluster(t, 32)
	type cell struct {
		name    string
		c       *sim.Cluster
		jobs    []datasets.Job
		policy  string
		restart float64
		trigger string
	}
	var cells []cell
	for _, p := range []string{"srtf", "srsf", "smallest-first", "dlas-gpu", "dlas-gpu-gittins", "las"} {
		for _, r := range []float64{0, 30} {
			cells = append(cells, cell{"ef02-500", n8g4, ef, p, r, sim.TriggerEvery})
		}
	}
	cells = append(cells, cell{"ef02-500 event", n8g4, ef, "srtf", 0, sim.TriggerEvent}, cell{"ef02-500 event", n8g4, ef, "las", 0, sim.TriggerEvent})
	paiPolicies := []string{"srtf", "srsf", "las"}
	if raceEnabled {
		paiPolicies = paiPolicies[1:2] // sim and schedulers start no goroutine: the detector has little to watch
	}
	for _, p := range paiPolicies {
		cells = append(cells, cell{"pai-2000", large, pai, p, 0, sim.TriggerEvery})
	}
	for _, tc := range cells {
		run := func(blind bool) ([]byte, int) {
			s, err := schedulers.New(schedulers.Name(tc.policy), schedulers.Options{Tiresias: &schedulers.TiresiasConfig{GittinsSamples: filepath.Join(root, "yarn-gput1000.csv")}})
			if err != nil {
				t.Fatal(err)
			}
			d, ok := s.(sim.Decider)
			if _, pb := s.(sim.PendingBlind); !ok || !pb {
				t.Fatalf("%s: a sim.Decider %v, a sim.PendingBlind %v; want both", tc.policy, ok, pb)
			}
			listed := 0
			var sched sim.Scheduler = &pendingSpy{d, &listed}
			if blind {
				sched = &blindPendingSpy{pendingSpy{d, &listed}}
			}
			cfg := sim.DefaultConfig()
			cfg.Speed, cfg.Trigger, cfg.SkipFloor = sim.SpeedStandalone, tc.trigger, true
			if tc.restart != 0 {
				cfg.RestartS = sim.RestartFixed(tc.restart)
			}
			b, _ := runBytes(t, tc.c, tc.jobs, sched, cfg)
			return b, listed
		}
		visible, n := run(false)
		blind, m := run(true)
		if n == 0 || m != 0 {
			t.Errorf("%s/%s restart %g: %d States listed pending jobs with the list kept, %d blind; want some and none", tc.name, tc.policy, tc.restart, n, m)
		}
		if !bytes.Equal(visible, blind) {
			t.Errorf("%s/%s restart %g: keeping pending in no order changed the results", tc.name, tc.policy, tc.restart)
		}
	}
}
