package schedulers

import (
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// mixedTree is the mixed fat-tree of k = 6 the load trees are checked on,
// with its capacities' inverses.
func mixedTree(t *testing.T) (*sim.Cluster, *capInverse) {
	t.Helper()
	c := simtest.FatTree(t, 6, "mixed")
	inv := new(capInverse)
	inv.update(c)
	return c, inv
}

// tiedLedger is a random ledger of c in which each server has none, half
// or all of its capacity free, so that equal loads (ties to the lowest
// index) are common.
func tiedLedger(c *sim.Cluster, r *rand.Rand) *sim.Ledger {
	l := &sim.Ledger{Free: make([]sim.Resources, len(c.Servers))}
	for s := range l.Free {
		cp := c.Capacity(s)
		f := float64(r.IntN(3)) / 2
		l.Free[s] = sim.Resources{GPU: cp.GPU * f, CPU: cp.CPU * f, MemGiB: cp.MemGiB * f}
	}
	return l
}

// scanLeastLoad is the scan the trees replace: bestServer with
// LeastLoad's score.
func scanLeastLoad(l *sim.Ledger, d sim.Resources, inv *capInverse) int {
	return bestServer(l, d, func(s int) float64 { return inv.load(s, l.Free[s]) })
}

// TestLoadTreeMatchesScan checks loadTree.best against the scan it
// replaces (bestServer with LeastLoad's score) on random ledgers of a
// mixed fat-tree, with free amounts drawn from few values so that equal
// loads (ties to the lowest index) are common, through a series of Takes
// reported with set.
func TestLoadTreeMatchesScan(t *testing.T) {
	c, inv := mixedTree(t)
	r := rand.New(rand.NewPCG(3, 4))
	var tree loadTree
	for trial := 0; trial < 200; trial++ {
		l := tiedLedger(c, r)
		tree.build(l.Free, inv)
		for step := 0; step < 30; step++ {
			d := sim.Resources{GPU: float64(r.IntN(3)), CPU: float64(2 * r.IntN(5)), MemGiB: 8}
			want := scanLeastLoad(l, d, inv)
			got := tree.best(d, l)
			if got != want {
				t.Fatalf("trial %d step %d: tree picks %d, scan %d", trial, step, got, want)
			}
			if got >= 0 {
				l.Take(got, d)
				tree.set(got, l.Free[got], inv)
			}
		}
	}
}

// TestFitTreeMatchesScan checks fitTree against the scan it replaces
// (bestServer with LeastLoad's score) for a few demands followed at once,
// through bookings and give-backs of any of them, on ledgers where equal
// loads are common and many servers fit none of the demands.
func TestFitTreeMatchesScan(t *testing.T) {
	c, inv := mixedTree(t)
	r := rand.New(rand.NewPCG(7, 8))
	var tree loadTree
	demands := []sim.Resources{{GPU: 1, CPU: 2, MemGiB: 8}, {CPU: 2, MemGiB: 8}, {GPU: 2, CPU: 8, MemGiB: 8}}
	for trial := 0; trial < 100; trial++ {
		l := tiedLedger(c, r)
		tree.build(l.Free, inv)
		fits := make([]fitTree, len(demands))
		for k, d := range demands {
			fits[k].build(d, l, &tree)
		}
		for step := 0; step < 60; step++ {
			k := r.IntN(len(demands))
			d := demands[k]
			want := scanLeastLoad(l, d, inv)
			got := fits[k].best()
			if got != want {
				t.Fatalf("trial %d step %d: fit tree for %v picks %d, scan %d", trial, step, d, got, want)
			}
			s := got
			if s < 0 || r.IntN(4) == 0 {
				s = r.IntN(len(l.Free)) // a give-back elsewhere
				l.Give(s, d)
			} else {
				l.Take(s, d)
			}
			tree.set(s, l.Free[s], inv)
			for k := range fits {
				fits[k].set(s, l, &tree)
			}
		}
	}
}
