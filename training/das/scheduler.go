package das

import (
	"context"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/nn"
)

// Scheduler runs a trained DAS policy in the simulator as a
// sim.Scheduler, in evaluation mode: the priority and affinity means, no
// sampling, the N longest-waiting jobs when more are pending. It keeps
// the RWGP's history of placements across decisions, so one value serves
// one run (as sim.Scheduler requires).
type Scheduler struct {
	m    *Model
	t    nn.Tape
	hist []*HistEntry
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
	if !anyFits(st, chosen) {
		// Whatever the agents said, decode would place nothing.
		return nil, nil
	}
	o.Hist = s.hist
	d := s.m.act(&s.t, o, nil)
	pl, placed, err := decode(st, chosen, d)
	if err != nil {
		return nil, err
	}
	s.hist = pushHistory(s.hist, d, placed, s.m.cfg.History)
	return pl, nil
}

// anyFits reports whether decode might place one of jobs.
func anyFits(st *sim.State, jobs []*sim.JobState) bool {
	led := st.Ledger()
	for _, js := range jobs {
		if mayFit(led, js) && roomFor(led, js) >= len(js.Instances) {
			return true
		}
	}
	return false
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
