package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAggregateBits compares aggregate, a node's messages summed in one
// call (the kernel keeps the row in registers), with addMessage edge by
// edge, bit for bit: at the widths the kernel takes (16 and 32) and
// others, with f+1 = 4 and other counts, for edge lists of 0 to 40
// edges in any order with repeated sources, and with ±0, NaN and ±Inf
// among the values, on both the assembly and the Go paths.
func TestAggregateBits(t *testing.T) { fmaPaths(t, testAggregateBits) }

func testAggregateBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 200 {
		f := []int{3, 3, 3, 1, 5}[trial%5]
		d := []int{16, 32, 16, 32, 8, 12, 20}[trial%7]
		nodes, edges := 1+rng.IntN(30), rng.IntN(60)
		yw := (f + 1) * d
		vec := func(n int) []float64 {
			v := randSparse(n, rng)
			if trial%2 == 1 {
				v = withSpecials(v, 30, rng)
			}
			return v
		}
		y, coef := vec(nodes*yw), vec(max(edges, 1)*(f+1))
		src, dst := make([]int, edges), make([]int, edges)
		for e := range src {
			src[e], dst[e] = rng.IntN(nodes), rng.IntN(nodes)
		}
		g, err := NewGraph(nodes, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		var list []int
		for range rng.IntN(41) {
			if edges > 0 {
				list = append(list, rng.IntN(edges))
			}
		}
		o := vec(d)
		want, got := append([]float64(nil), o...), append([]float64(nil), o...)
		for _, e := range list {
			addMessage(want, coef[e*(f+1):(e+1)*(f+1)], y[src[e]*yw:(src[e]+1)*yw])
		}
		aggregate(got, coef, y, yw, list, g, f)
		for i := range want {
			if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
				t.Fatalf("trial %d (f=%d d=%d, %d edges): element %d is %#x, addMessage gives %#x", trial, f, d, len(list), i, math.Float64bits(got[i]), math.Float64bits(want[i]))
			}
		}
	}
}

// TestSpreadBits compares spread, a source's transposed messages added
// in one call (the kernel keeps a quarter of the row in registers), with
// spreadMessage edge by edge, bit for bit, as TestAggregateBits does for
// aggregate.
func TestSpreadBits(t *testing.T) { fmaPaths(t, testSpreadBits) }

func testSpreadBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for trial := range 200 {
		f := []int{3, 3, 3, 1, 5}[trial%5]
		d := []int{16, 32, 16, 32, 8, 12, 20}[trial%7]
		nodes, edges := 1+rng.IntN(30), rng.IntN(60)
		vec := func(n int) []float64 {
			v := randSparse(n, rng)
			if trial%2 == 1 {
				v = withSpecials(v, 30, rng)
			}
			return v
		}
		gr, coef := vec(nodes*d), vec(max(edges, 1)*(f+1))
		src, dst := make([]int, edges), make([]int, edges)
		for e := range dst {
			src[e], dst[e] = rng.IntN(nodes), rng.IntN(nodes)
		}
		g, err := NewGraph(nodes, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		var list []int
		for range rng.IntN(41) {
			if edges > 0 {
				list = append(list, rng.IntN(edges))
			}
		}
		dy := vec((f + 1) * d)
		want, got := append([]float64(nil), dy...), append([]float64(nil), dy...)
		for _, e := range list {
			spreadMessage(want, coef[e*(f+1):(e+1)*(f+1)], gr[dst[e]*d:(dst[e]+1)*d])
		}
		spread(got, coef, gr, d, list, g, f)
		for i := range want {
			if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
				t.Fatalf("trial %d (f=%d d=%d, %d edges): element %d is %#x, spreadMessage gives %#x", trial, f, d, len(list), i, math.Float64bits(got[i]), math.Float64bits(want[i]))
			}
		}
	}
}
