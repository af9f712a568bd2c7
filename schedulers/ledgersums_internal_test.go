package schedulers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestLedgerSums checks ledgerSums against sums, to the bit, on ledgers
// changed a few servers at a time, as placements and give-backs change
// them: by amounts that round (thirds and tenths: the running prefixes),
// by integral and dyadic amounts (the grid: differences and a tree of
// maxima, all free amounts sometimes negative or −0), and by dyadic
// amounts until one rounds (the grid left mid-decision). A change it is
// not told of must show (so the check can fail).
func TestLedgerSums(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	same := func(a, b sim.Resources) bool {
		return math.Float64bits(a.GPU) == math.Float64bits(b.GPU) &&
			math.Float64bits(a.CPU) == math.Float64bits(b.CPU) &&
			math.Float64bits(a.MemGiB) == math.Float64bits(b.MemGiB)
	}
	for trial := 0; trial < 200; trial++ {
		kind := trial % 3 // 0: rounding amounts; 1: the grid; 2: the grid, then rounding
		n := 1 + r.IntN(300)
		if kind != 0 {
			n = 256 + r.IntN(300) // the grid's way needs 2⁸ servers
		}
		l := &sim.Ledger{Free: make([]sim.Resources, n)}
		for i := range l.Free {
			if kind == 0 {
				l.Free[i] = sim.Resources{GPU: float64(r.IntN(9)), CPU: 10 * r.Float64(), MemGiB: 100 * r.Float64()}
			} else {
				l.Free[i] = sim.Resources{GPU: float64(r.IntN(9)) / 4, CPU: float64(r.IntN(40)), MemGiB: math.Copysign(0, -1)}
			}
		}
		var ls ledgerSums
		ls.reset(l)
		if ls.grid != (kind != 0) {
			t.Fatalf("trial %d: on the grid %v, want %v", trial, ls.grid, kind != 0)
		}
		for step := 0; step < 50; step++ {
			for k := r.IntN(4); k > 0; k-- {
				s := r.IntN(n)
				d := sim.Resources{GPU: float64(r.IntN(3)) / 3, CPU: r.Float64() / 10, MemGiB: r.Float64()}
				if kind == 1 || kind == 2 && step < 25 {
					d = sim.Resources{GPU: float64(r.IntN(5)) / 2, CPU: float64(r.IntN(4)), MemGiB: float64(8 * r.IntN(3))}
				}
				ls.touch(l, s)
				if r.IntN(2) == 0 {
					l.Take(s, d)
				} else {
					l.Give(s, d)
				}
			}
			gt, gm := ls.update(l)
			wt, wm := sums(l)
			if !same(gt, wt) || !same(gm, wm) {
				t.Fatalf("trial %d step %d: update = %v, %v; sums = %v, %v", trial, step, gt, gm, wt, wm)
			}
		}
		if trial%3 == 0 && n >= 2 {
			// A small ledger on the grid takes the prefixes' way.
			var small ledgerSums
			small.reset(&sim.Ledger{Free: make([]sim.Resources, 2)})
			if small.grid {
				t.Fatal("a ledger of 2 servers takes the grid's way")
			}
		}
		if want := kind == 1; ls.grid != want {
			t.Fatalf("trial %d: on the grid at the end %v, want %v", trial, ls.grid, want)
		}
		// An untold change to the last server is missed: the test sees it.
		l.Free[n-1].CPU += 1
		if gt, _ := ls.update(l); same(gt, func() sim.Resources { t, _ := sums(l); return t }()) {
			t.Fatalf("trial %d: an unreported change went unnoticed by the comparison", trial)
		}
	}
}
