package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// stateless is the no-op half of Placer for rules that only read the
// ledger.
type stateless struct{}

func (stateless) Begin(*sim.State)                 {}
func (stateless) Booked(*sim.JobState, int, int)   {}
func (stateless) Unbooked(*sim.JobState, int, int) {}

// bestServer returns the fitting server with the lowest score (ties to the
// lowest index), or −1.
func bestServer(l *sim.Ledger, d sim.Resources, score func(s int) float64) int {
	best, bestScore := -1, 0.0
	for s := range l.Free {
		if !l.Fits(s, d) {
			continue
		}
		if sc := score(s); best < 0 || sc < bestScore {
			best, bestScore = s, sc
		}
	}
	return best
}

// capInverse caches 1/capacity per server and dimension (0 where the
// server has none of it) for load computations on large clusters.
type capInverse struct {
	c   *sim.Cluster
	inv [][3]float64
	n   []float64 // dimensions present
}

func (ci *capInverse) update(c *sim.Cluster) {
	if ci.c == c {
		return
	}
	ci.c = c
	ci.inv = make([][3]float64, len(c.Servers))
	ci.n = make([]float64, len(c.Servers))
	for s := range c.Servers {
		cp := c.Capacity(s)
		for d, v := range [3]float64{cp.GPU, cp.CPU, cp.MemGiB} {
			if v > 0 {
				ci.inv[s][d] = 1 / v
				ci.n[s]++
			}
		}
	}
}

// load is the mean used share over the dimensions server s has.
func (ci *capInverse) load(s int, f sim.Resources) float64 {
	if ci.n[s] == 0 {
		return 0
	}
	v := ci.inv[s]
	return 1 - (f.GPU*v[0]+f.CPU*v[1]+f.MemGiB*v[2])/ci.n[s]
}
