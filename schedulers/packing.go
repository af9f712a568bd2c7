package schedulers

import (
	"slices"

	"github.com/schedlab/schedlab/sim"
)

// Packing is the MARL paper's Tetris: multi-resource bin packing with job
// locality ("jobs are maximally packed onto servers to avoid potential
// cross-machine communication and minimize resource fragmentation"). Unlike
// Alignment, which follows the DAS paper's description and so favours the
// emptiest server, it keeps a job's instances together:
//
//  1. An instance goes to a server already holding an instance of the same
//     job booked earlier in this decision, if one fits it.
//  2. Otherwise it opens the fitting server that would take the most of the
//     job's remaining instances (this one and those after it, each counted
//     if it still fits after the ones counted before). A job that fits
//     whole on some server therefore lands on one server; a larger one is
//     spread greedily over few servers.
//
// Ties in either step go to the best fit, the server whose mean used share
// of its GPU, CPU and memory (over the dimensions it has) is highest after
// the counted instances are placed, which leaves the least normalised free
// capacity behind; remaining ties go to the lowest index.
type Packing struct {
	inv    capInverse
	job    *sim.JobState
	booked []int // server of each instance of job booked so far
}

// Begin implements Placer.
func (p *Packing) Begin(st *sim.State) {
	p.inv.update(st.Cluster)
	p.job, p.booked = nil, p.booked[:0]
}

// Booked implements Placer.
func (p *Packing) Booked(j *sim.JobState, _, s int) {
	if j != p.job {
		p.job, p.booked = j, p.booked[:0]
	}
	p.booked = append(p.booked, s)
}

// Unbooked implements Placer.
func (p *Packing) Unbooked(j *sim.JobState, _, s int) {
	if j != p.job {
		return
	}
	if k := slices.Index(p.booked, s); k >= 0 {
		p.booked = slices.Delete(p.booked, k, k+1)
	}
}

// Pick implements Placer.
func (p *Packing) Pick(_ *sim.State, l *sim.Ledger, j *sim.JobState, i int) int {
	d := j.Instances[i].Demand
	best, bestLoad := -1, 0.0
	if j == p.job {
		for _, s := range p.booked {
			if !l.Fits(s, d) {
				continue
			}
			if ld := p.inv.load(s, l.Free[s].Sub(d)); best < 0 || ld > bestLoad || ld == bestLoad && s < best {
				best, bestLoad = s, ld
			}
		}
		if best >= 0 {
			return best
		}
	}
	bestN := 0
	for s, f := range l.Free {
		if !d.Fits(f) {
			continue
		}
		n := 0
		for _, in := range j.Instances[i:] {
			if in.Demand.Fits(f) {
				f = f.Sub(in.Demand)
				n++
			}
		}
		if ld := p.inv.load(s, f); n > bestN || n == bestN && ld > bestLoad {
			best, bestN, bestLoad = s, n, ld
		}
	}
	return best
}
