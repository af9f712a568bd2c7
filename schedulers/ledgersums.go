package schedulers

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/sim"
)

// sums returns the total free resources and, per dimension, the most free
// on any one server (a job whose first instance exceeds it cannot fit).
func sums(l *sim.Ledger) (total, most sim.Resources) {
	for _, f := range l.Free {
		total = total.Add(f)
		most.GPU = max(most.GPU, f.GPU)
		most.CPU = max(most.CPU, f.CPU)
		most.MemGiB = max(most.MemGiB, f.MemGiB)
	}
	return total, most
}

// ledgerSums gives sums' answer for a ledger that changes on a few
// servers at a time, without a pass over all servers per change. On a
// k = 20 fat-tree (2,000 servers) sums after every placement was a tenth
// of a Load-Balancing decision. Two ways, both sums' to the bit:
//
//   - On the grid (every free amount a multiple of 2⁻¹⁰ below 2³⁰ in
//     size, from 2⁸ to 2¹³ servers; integral and dyadic requests, as
//     clusters and traces mostly have): every partial sum is then exact,
//     so sums' sequential total equals the exact sum, kept here by
//     adding each changed server's difference (exact too); the maxima,
//     exact in any order, are kept in a tree over the servers.
//   - Off it: the running total and maximum at every server in sums'
//     order, recomputed from the lowest server changed; the running
//     values before it are those sums reaches there.
//
// A changed amount off the grid turns the first way into the second. On
// fewer servers the second way's pass costs less than the first's
// checks and tree.
type ledgerSums struct {
	grid bool
	// The first way: the total, the per-dimension maxima over the servers
	// (a binary tree, leaves padded to a power of two with −Inf), and
	// the servers changed since the last update with their amounts then.
	sum     sim.Resources
	maxTree []sim.Resources
	leaves  int
	changed []int
	old     []sim.Resources
	seen    []uint32 // per server, epoch when it joined changed
	epoch   uint32
	// The second way.
	total, most []sim.Resources // over servers 0..i
	lo          int             // lowest server changed since the last update
}

// onGrid reports whether x is a multiple of 2⁻¹⁰ of magnitude below 2³⁰
// (false for NaN and ±Inf).
func onGrid(x float64) bool {
	y := x * 1024 // exact: a power of two
	return math.Abs(x) < 1<<30 && y == math.Trunc(y)
}

func onGridRes(r sim.Resources) bool { return onGrid(r.GPU) && onGrid(r.CPU) && onGrid(r.MemGiB) }

// reset starts following l.
func (p *ledgerSums) reset(l *sim.Ledger) {
	n := len(l.Free)
	p.grid = n >= 1<<8 && n < 1<<13
	for _, f := range l.Free {
		if !p.grid {
			break
		}
		p.grid = onGridRes(f)
	}
	p.lo = 0
	if !p.grid {
		p.total = slices.Grow(p.total[:0], n)[:n]
		p.most = slices.Grow(p.most[:0], n)[:n]
		return
	}
	p.sum, _ = sums(l)
	p.leaves = 1
	for p.leaves < n {
		p.leaves *= 2
	}
	p.maxTree = slices.Grow(p.maxTree[:0], 2*p.leaves)[:2*p.leaves]
	none := sim.Resources{GPU: math.Inf(-1), CPU: math.Inf(-1), MemGiB: math.Inf(-1)}
	for k := 0; k < p.leaves; k++ {
		if k < n {
			p.maxTree[p.leaves+k] = l.Free[k]
		} else {
			p.maxTree[p.leaves+k] = none
		}
	}
	for v := p.leaves - 1; v >= 1; v-- {
		p.pull(v)
	}
	if len(p.seen) < n {
		p.seen = make([]uint32, n)
	}
	p.changed, p.old = p.changed[:0], p.old[:0]
	p.nextEpoch()
}

func (p *ledgerSums) nextEpoch() {
	p.epoch++
	if p.epoch == 0 {
		clear(p.seen)
		p.epoch = 1
	}
}

func (p *ledgerSums) pull(v int) {
	a, b := p.maxTree[2*v], p.maxTree[2*v+1]
	p.maxTree[v] = sim.Resources{GPU: max(a.GPU, b.GPU), CPU: max(a.CPU, b.CPU), MemGiB: max(a.MemGiB, b.MemGiB)}
}

// touch records that server s's free resources are about to change
// (l.Free[s] is still the amount before).
func (p *ledgerSums) touch(l *sim.Ledger, s int) {
	if !p.grid {
		p.lo = min(p.lo, s)
		return
	}
	if p.seen[s] != p.epoch {
		p.seen[s] = p.epoch
		p.changed = append(p.changed, s)
		p.old = append(p.old, l.Free[s])
	}
}

// update returns sums(l).
func (p *ledgerSums) update(l *sim.Ledger) (total, most sim.Resources) {
	if p.grid {
		for _, s := range p.changed {
			if !onGridRes(l.Free[s]) {
				// Off the grid: the second way, from the start.
				p.grid = false
				n := len(l.Free)
				p.total = slices.Grow(p.total[:0], n)[:n]
				p.most = slices.Grow(p.most[:0], n)[:n]
				p.lo = 0
				break
			}
		}
	}
	if p.grid {
		for k, s := range p.changed {
			f := l.Free[s]
			p.sum = p.sum.Sub(p.old[k]).Add(f)
			v := p.leaves + s
			p.maxTree[v] = f
			for v /= 2; v >= 1; v /= 2 {
				p.pull(v)
			}
		}
		p.changed, p.old = p.changed[:0], p.old[:0]
		p.nextEpoch()
		// sums starts its maxima at 0.
		m := p.maxTree[1]
		return p.sum, sim.Resources{GPU: max(0, m.GPU), CPU: max(0, m.CPU), MemGiB: max(0, m.MemGiB)}
	}
	n := len(l.Free)
	if p.lo > 0 {
		total, most = p.total[p.lo-1], p.most[p.lo-1]
	}
	for i := p.lo; i < n; i++ {
		f := l.Free[i]
		total = total.Add(f)
		most.GPU = max(most.GPU, f.GPU)
		most.CPU = max(most.CPU, f.CPU)
		most.MemGiB = max(most.MemGiB, f.MemGiB)
		p.total[i], p.most[i] = total, most
	}
	p.lo = n
	return total, most
}
