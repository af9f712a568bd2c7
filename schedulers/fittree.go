package schedulers

import (
	"math"

	"github.com/schedlab/schedlab/sim"
)

// fitTree is loadTree's answer for one demand d, kept up to date: a tree
// over the servers (the loadTree's shape) holding per subtree the least
// load among the servers d fits, with the lowest index reaching it (+Inf
// where d fits none). Its root is bestServer's answer under LeastLoad's
// score: the fitting server of least load, ties to the lowest index
// (children compared strictly, so equal loads keep the left, lower one).
// Loads are the loadTree's leaves, the score function's own values.
type fitTree struct {
	d    sim.Resources
	n    int
	load []float64
	idx  []int32
}

func (f *fitTree) build(d sim.Resources, l *sim.Ledger, t *loadTree) {
	f.d, f.n = d, t.n
	if len(f.load) != 2*t.n {
		f.load = make([]float64, 2*t.n)
		f.idx = make([]int32, 2*t.n)
	}
	for k := 0; k < t.n; k++ {
		f.leaf(k, l, t)
	}
	for v := t.n - 1; v >= 1; v-- {
		pullLeast(f.load, f.idx, v)
	}
}

func (f *fitTree) leaf(s int, l *sim.Ledger, t *loadTree) {
	v := f.n + s
	f.idx[v] = int32(s)
	if s < t.servers && l.Fits(s, f.d) {
		f.load[v] = t.minLoad[v]
	} else {
		f.load[v] = math.Inf(1)
	}
}

// set follows server s's change (the loadTree already holds its load).
func (f *fitTree) set(s int, l *sim.Ledger, t *loadTree) {
	f.leaf(s, l, t)
	for v := (f.n + s) / 2; v >= 1; v /= 2 {
		pullLeast(f.load, f.idx, v)
	}
}

// best returns the fitting server of least load (ties to the lowest
// index), or −1.
func (f *fitTree) best() int {
	if math.IsInf(f.load[1], 1) {
		return -1
	}
	return int(f.idx[1])
}
