package das

import (
	"context"
	"errors"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/nn"
)

// Scheduler runs a trained DAS policy in the simulator as a
// sim.Scheduler, in evaluation mode: the priority and affinity means, no
// sampling, the N longest-waiting jobs when more are pending. It keeps
// the RWGP's history of placements across decisions, so one value serves
// one run (as sim.Scheduler requires). The ordering agent runs off the
// tape, on the pending jobs that can fit only (actRows); its decisions
// are those of the tape's forward pass on every job (act), to the bit.
type Scheduler struct {
	m    *Model
	t    nn.Tape
	ord  orderer
	hist []*HistEntry
	// tapeOnly runs every decision through act (tests compare); fast
	// counts the decisions actRows took.
	tapeOnly bool
	fast     int
}

// NewScheduler wraps a model.
func NewScheduler(m *Model) *Scheduler { return &Scheduler{m: m} }

// Open loads the checkpoint at path (with its sidecar) as a scheduler.
func Open(path string) (*Scheduler, error) {
	m, _, err := Load(path)
	if err != nil {
		return nil, err
	}
	return NewScheduler(m), nil
}

// Name is the variant: das, da, da+mc or da+rwgp.
func (s *Scheduler) Name() string { return s.m.cfg.Variant }

// Schedule implements sim.Scheduler.
func (s *Scheduler) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if st.Decision == 0 {
		s.hist = nil
	}
	o, chosen := observe(st, s.m.cfg.Jobs, nil)
	rows := fitting(st, chosen)
	if len(rows) == 0 {
		// Whatever the agents said, decode would place nothing.
		return nil, nil
	}
	o.Hist = s.hist
	var (
		d      *agents
		pl     []sim.Placement
		placed []int
		err    error
	)
	if !s.tapeOnly {
		// Only the fitting rows can be placed: the ordering agent's
		// work on the others is left out.
		if d = s.m.actRows(&s.t, &s.ord, o, rows); d != nil {
			pl, placed, err = decode(st, chosen, d)
			if err == nil {
				s.fast++
			}
		}
	}
	if d == nil || errors.Is(err, errPartial) {
		d = s.m.act(&s.t, o, nil)
		pl, placed, err = decode(st, chosen, d)
	}
	if err != nil {
		return nil, err
	}
	s.hist = pushHistory(s.hist, d, placed, s.m.cfg.History)
	return pl, nil
}

// fitting lists the jobs (by index) that decode might place: those that
// fit the cluster's free resources before any booking.
func fitting(st *sim.State, jobs []*sim.JobState) []int {
	led := st.Ledger()
	var rows []int
	for r, js := range jobs {
		if mayFit(led, js) && roomFor(led, js) >= len(js.Instances) {
			rows = append(rows, r)
		}
	}
	return rows
}

// pushHistory appends the placed rows to the GP history, keeping the last
// τ. It returns a fresh slice, because earlier observations keep theirs.
func pushHistory(hist []*HistEntry, a *agents, placed []int, tau int) []*HistEntry {
	if a.d.hist == nil || len(placed) == 0 {
		return hist
	}
	h := make([]*HistEntry, 0, len(hist)+len(placed))
	h = append(h, hist...)
	for _, r := range placed {
		h = append(h, a.d.hist[r])
	}
	return h[max(0, len(h)-tau):]
}
