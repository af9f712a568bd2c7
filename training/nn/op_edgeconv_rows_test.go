package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGatherSharedBits checks that rows sharing their sources, summed as
// products (gatherShared), hold gatherMessages' bits row by row, the
// blocks with equal coefficients in every row included, and that rows
// whose sources differ are left to gatherMessages.
func TestGatherSharedBits(t *testing.T) {
	for _, tc := range []struct {
		name       string
		d, f       int
		sources    int
		rows       int
		contiguous bool  // the sources are consecutive nodes, in order
		shared     []int // blocks whose coefficients every row shares
		differ     bool  // the last row misses one source: no sharing
		swap       bool  // the last row has its first two sources swapped: none
	}{
		{"inter-like", 32, 3, 100, 20, true, []int{0, 2, 3}, false, false},
		{"permuted", 32, 3, 30, 7, false, nil, false, false},
		{"all shared", 16, 3, 12, 5, true, []int{0, 1, 2, 3}, false, false},
		{"narrow", 5, 2, 9, 4, false, []int{1}, false, false},
		{"fewer sources", 32, 3, 10, 3, true, nil, true, false},
		{"other order", 32, 3, 10, 3, true, nil, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, uint64(tc.d*100+tc.rows)))
			d, f, ns, r := tc.d, tc.f, tc.sources, tc.rows
			// Nodes: r destinations first, then the sources (in a shuffled
			// order unless contiguous), then one spare.
			seq := make([]int, ns)
			for i := range seq {
				seq[i] = r + i
			}
			if !tc.contiguous {
				rng.Shuffle(ns, func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
			}
			nodes := r + ns + 1
			var src, dst []int
			for l, s := range seq { // edges of different rows interleave
				for u := 0; u < r; u++ {
					if tc.differ && u == r-1 {
						switch {
						case tc.swap && l < 2:
							s = seq[1-l]
						case !tc.swap && l == 0:
							continue
						}
					}
					src, dst = append(src, s), append(dst, u)
				}
			}
			g, err := NewGraph(nodes, src, dst)
			if err != nil {
				t.Fatal(err)
			}
			h := make([]float64, nodes*d)
			for i := range h {
				h[i] = rng.NormFloat64()
			}
			coef := make([]float64, g.Edges()*(f+1))
			for i := range coef {
				coef[i] = rng.NormFloat64()
			}
			for _, k := range tc.shared {
				for l := range seq {
					v := rng.NormFloat64()
					for u := 0; u < r; u++ {
						coef[g.inEdges(u)[l]*(f+1)+k] = v
					}
				}
			}
			rows := make([]int, r)
			for i := range rows {
				rows[i] = i
			}
			yw := (f + 1) * d
			want := make([]float64, r*yw)
			for i, u := range rows {
				gatherMessages(want[i*yw:(i+1)*yw], coef, h, d, g.inEdges(u), g, f)
			}
			got := make([]float64, r*yw)
			for i := range got {
				got[i] = math.NaN() // every value must be written
			}
			if ok := gatherShared(got, coef, h, g, rows, d, f); ok == tc.differ {
				t.Fatalf("gatherShared reported %v", ok)
			}
			if tc.differ {
				return
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("row %d, block %d, column %d: %v, gatherMessages %v", i/yw, i%yw/d, i%d, got[i], want[i])
				}
			}
			// The whole layer's rows, through edgeConvRows, in another
			// order of rows.
			slices.Reverse(rows)
			mc := make([]float64, yw*d)
			for i := range mc {
				mc[i] = rng.NormFloat64()
			}
			out := make([]float64, r*d)
			edgeConvRows(out, got, mc, h, coef, g, rows, d, f)
			for i, u := range rows {
				for j := range yw {
					if math.Float64bits(got[i*yw+j]) != math.Float64bits(want[u*yw+j]) {
						t.Fatalf("edgeConvRows, row %d: sums differ from gatherMessages'", u)
					}
				}
			}
		})
	}
}
