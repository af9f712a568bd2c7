package schedulers

import (
	"context"

	"github.com/schedlab/schedlab/sim"
)

// FIFOStrict is first-in-first-out with head-of-line blocking, as the
// Tiresias simulator's "fifo" policy (SymbioticLab/Tiresias,
// simulator/run_sim.py, one_queue_fifo_sim_jobs): pending jobs start in
// submission order, each on the lowest-index servers that fit its
// instances, until the first that does not fit; the jobs behind it wait
// even if they would fit (unlike fifo-firstfit, which lets them pass). As
// in the reference nothing is tried while no GPU is free. It never
// preempts.
type FIFOStrict struct{ ledger runnable }

var _ sim.ProgressBlind = (*FIFOStrict)(nil)

// Name implements sim.Scheduler.
func (*FIFOStrict) Name() string { return "fifo-strict" }

// IgnoresProgress implements sim.ProgressBlind: the walk reads only the
// pending queue and what is free.
func (*FIFOStrict) IgnoresProgress() {}

// Schedule implements sim.Scheduler.
func (f *FIFOStrict) Schedule(_ context.Context, st *sim.State) ([]sim.Placement, error) {
	r := &f.ledger
	r.free = append(r.free[:0], st.Free...)
	var gpus float64
	for _, x := range st.Free {
		gpus += x.GPU
	}
	if gpus <= 1e-9 {
		return nil, nil
	}
	var out []sim.Placement
	for _, js := range st.Pending {
		slots := r.firstFit(js)
		if slots == nil {
			break
		}
		out = append(out, sim.Placement{Job: js.Index, Slots: slots})
	}
	return out, nil
}
