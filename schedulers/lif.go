package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// LeastInterference is LIF, Least Interference First: a baseline of the
// MARL paper (X. Zhao and C. Wu, "Large-scale Machine Learning Cluster
// Scheduling via Multi-agent Graph Reinforcement Learning", IEEE TNSM
// 2021, §VI-A), which scores "the interference level on each server,
// which is calculated as the execution slowdown of all tasks on a server"
// with its interference model, and places a worker or PS "onto the server
// with the least interference". Registered as "lif" (AllTasks): the
// fitting server where the sum of the predicted slowdowns of every task
// on it, the new instance and those booked earlier in the same decision
// included, is least (sim.State.PredictServerSlowdown). Registered as
// "lif-new", schedlab's earlier rule: the server where the new instance's
// own predicted slowdown is least. Ties go to the least loaded server,
// then the lowest index.
type LeastInterference struct {
	// AllTasks scores a server by all its tasks' slowdowns (the paper's
	// LIF), not by the new instance's alone.
	AllTasks bool
	extra    [][]sim.JobLoad
	inv      capInverse
}

// Begin implements Placer.
func (p *LeastInterference) Begin(st *sim.State) {
	p.inv.update(st.Cluster)
	if len(p.extra) != len(st.Free) {
		p.extra = make([][]sim.JobLoad, len(st.Free))
	}
	for i := range p.extra {
		p.extra[i] = p.extra[i][:0]
	}
}

// Booked implements Placer.
func (p *LeastInterference) Booked(j *sim.JobState, i, s int) {
	p.extra[s] = append(p.extra[s], j.Instances[i].Load)
}

// Unbooked implements Placer.
func (p *LeastInterference) Unbooked(j *sim.JobState, i, s int) {
	p.extra[s] = p.extra[s][:len(p.extra[s])-1]
}

// Pick implements Placer.
func (p *LeastInterference) Pick(st *sim.State, l *sim.Ledger, j *sim.JobState, i int) int {
	// bestServer's scan, with the score slowdown + 1e-3·load (slowdown:
	// the server's total under AllTasks): slowdown dominates; load (in [0,1]) breaks ties at a scale that cannot
	// reorder distinct slowdowns of more than 1e-3. A predicted slowdown
	// is never negative (nor NaN), so a server whose load term alone
	// reaches the best score cannot beat it (rounding is monotone:
	// fl(S + t) ≥ t for S ≥ 0) and its slowdown, the scan's whole cost
	// on a busy cluster, is not computed: the same server wins.
	in := j.Instances[i]
	best, bestScore := -1, 0.0
	for s := range l.Free {
		if !l.Fits(s, in.Demand) {
			continue
		}
		t := 1e-3 * p.inv.load(s, l.Free[s])
		if best >= 0 && t >= bestScore {
			continue
		}
		var x float64
		if p.AllTasks {
			x = st.PredictServerSlowdown(in.Load, s, p.extra[s])
		} else {
			x = st.PredictSlowdown(in.Load, s, p.extra[s])
		}
		if sc := x + t; best < 0 || sc < bestScore {
			best, bestScore = s, sc
		}
	}
	return best
}
