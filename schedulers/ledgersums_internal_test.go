package schedulers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestLedgerSums checks ledgerSums against sums, to the bit, on ledgers
// changed a few servers at a time by amounts that round (thirds and
// tenths), as placements and give-backs change them; a change it is not
// told of must show (so the check can fail).
func TestLedgerSums(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	same := func(a, b sim.Resources) bool {
		return math.Float64bits(a.GPU) == math.Float64bits(b.GPU) &&
			math.Float64bits(a.CPU) == math.Float64bits(b.CPU) &&
			math.Float64bits(a.MemGiB) == math.Float64bits(b.MemGiB)
	}
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(300)
		l := &sim.Ledger{Free: make([]sim.Resources, n)}
		for i := range l.Free {
			l.Free[i] = sim.Resources{GPU: float64(r.IntN(9)), CPU: 10 * r.Float64(), MemGiB: 100 * r.Float64()}
		}
		var ls ledgerSums
		ls.reset(l)
		for step := 0; step < 50; step++ {
			for k := r.IntN(4); k > 0; k-- {
				s := r.IntN(n)
				d := sim.Resources{GPU: float64(r.IntN(3)) / 3, CPU: r.Float64() / 10, MemGiB: r.Float64()}
				if r.IntN(2) == 0 {
					l.Take(s, d)
				} else {
					l.Give(s, d)
				}
				ls.touch(s)
			}
			gt, gm := ls.update(l)
			wt, wm := sums(l)
			if !same(gt, wt) || !same(gm, wm) {
				t.Fatalf("trial %d step %d: update = %v, %v; sums = %v, %v", trial, step, gt, gm, wt, wm)
			}
		}
		// An untold change to the last server is missed: the test sees it.
		l.Free[n-1].CPU += 1
		if gt, _ := ls.update(l); same(gt, func() sim.Resources { t, _ := sums(l); return t }()) {
			t.Fatalf("trial %d: an unreported change went unnoticed by the comparison", trial)
		}
	}
}
