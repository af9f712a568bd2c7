package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestECCStack32 changes a few node and edge rows at a time and checks
// that the single-precision incremental pass returns, to the bit, what a
// fresh ECCStack32's full pass of the same inputs returns, on the Go
// path and the kernels alike (the same bits), and that it stays within
// a relative 1e-4 of the float64 ECCStack (float32 keeps 24 bits: four
// layers of sums of tens of terms lose a few of them, far from 1e-4; a
// wrong index or coefficient is off by the values' own size). Widths 16
// and 32 take the aggregation kernel, the first layer's 17 the message
// kernel. The Go path (fma32 in software) runs under the race detector
// only where the machine has no kernels (it takes 4 s there).
func TestECCStack32(t *testing.T) {
	var outs [][]float32
	defer func(v bool) { haveFMA = v }(haveFMA)
	paths := []bool{false}
	if haveFMA {
		paths = []bool{true}
		if !raceEnabled {
			paths = append(paths, false)
		}
	}
	for _, on := range paths {
		haveFMA = on
		t.Run(fmt.Sprintf("fma=%v", on), func(t *testing.T) { outs = append(outs, testECCStack32(t)) })
	}
	for i := 1; i < len(outs); i++ {
		if !sameBits32(outs[0], outs[i]) {
			t.Fatalf("the kernels' passes differ from the Go path's")
		}
	}
}

func testECCStack32(t *testing.T) []float32 {
	rng := rand.New(rand.NewPCG(1, 32))
	const nodes, f = 96, 3
	g := randomGraph(t, nodes, rng)
	ps := NewParams()
	dims := []int{17, 16, 32, 16}
	layers := eccLayers(ps, dims, f, rng)
	x, ef := eccInputs(nodes, dims[0], g.Edges(), f, rng)
	s, s64 := NewECCStack32(layers, g), NewECCStack(layers, g)
	full := nodes * len(layers)
	var all []float32
	for it := 0; it < 20; it++ {
		before := s.Rows
		switch {
		case it == 12: // parameters move
			moveParams(ps, rng)
			s.Invalidate()
			s64.Invalidate()
		case it%7 == 3: // nothing changes
		default:
			rewriteRows(x, nodes, dims[0], rng)
			if it%2 == 0 {
				ef[rng.IntN(g.Edges())*f+1] = rng.Float64()
			}
		}
		// Some passes give the first half of the rows only (the others
		// zero), as the MARL observation gives its candidate rows.
		xin := x
		if it%6 == 1 {
			xin = x[:nodes/2*dims[0]]
		}
		wide := s.Forward(xin, ef)
		got := append([]float32(nil), s.Forward32(xin, ef)...) // nothing changed: the same
		for i, v := range got {
			if float64(v) != wide[i] {
				t.Fatalf("iteration %d: Forward's element %d is %v, Forward32's %v", it, i, wide[i], v)
			}
		}
		want := NewECCStack32(layers, g).Forward32(xin, ef)
		if !sameBits32(got, want) {
			t.Fatalf("iteration %d: incremental pass differs from the full one", it)
		}
		ref := s64.Forward(xin, ef)
		scale := 0.0
		for _, v := range ref {
			scale = max(scale, math.Abs(v))
		}
		for i, v := range ref {
			if math.Abs(float64(got[i])-v) > 1e-4*scale {
				t.Fatalf("iteration %d: element %d is %v, float64 gives %v (scale %v)", it, i, got[i], v, scale)
			}
		}
		// A pass after a half one (it%6 == 2) may change every row.
		if n := s.Rows - before; it > 0 && it != 12 && it%6 != 2 && n >= full {
			t.Errorf("iteration %d recomputed %d rows, a full pass is %d", it, n, full)
		} else if it%7 == 3 && n != 0 {
			t.Errorf("iteration %d: nothing changed but %d rows were recomputed", it, n)
		}
		all = append(all, got...)
	}
	return all
}

// BenchmarkECCStack32 is the MARL actor's inner pass at k = 20: four ECC
// layers (17 → 16 → 16 → 16 → 16: six jobs) over a 411-node graph, each step
// changing two node rows and one edge, in float64 (ECCStack) and float32
// (ECCStack32). ns/op is one step.
func BenchmarkECCStack32(b *testing.B) {
	const nodes, f = 411, 3
	rng := rand.New(rand.NewPCG(5, 32))
	g := randomGraph(b, nodes, rng)
	dims := []int{17, 16, 16, 16, 16}
	layers := eccLayers(NewParams(), dims, f, rng)
	x, ef := eccInputs(nodes, dims[0], g.Edges(), f, rng)
	step := func() {
		for range 2 {
			u := rng.IntN(nodes)
			x[u*dims[0]+rng.IntN(dims[0])] = rng.NormFloat64()
		}
		ef[rng.IntN(g.Edges())*f] = rng.Float64()
	}
	b.Run("float64", func(b *testing.B) {
		s := NewECCStack(layers, g)
		for b.Loop() {
			step()
			s.Forward(x, ef)
		}
	})
	b.Run("float32", func(b *testing.B) {
		s := NewECCStack32(layers, g)
		for b.Loop() {
			step()
			s.Forward32(x, ef)
		}
	})
}

// TestSpread32 compares spread32's kernel with its Go loop bit for bit
// (d = 16 and 32, and a width the kernel leaves to Go) and with float64's
// spread to float32's bound: one rounding per term of at most 2⁻²⁴ of
// the terms' magnitudes.
func TestSpread32(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2 and FMA here: the kernel untested")
	}
	defer func(v bool) { haveFMA = v }(haveFMA)
	rng := rand.New(rand.NewPCG(4, 32))
	const nodes, f = 60, 3
	g := randomGraph(t, nodes, rng)
	src := make([][]int, nodes) // each source's outgoing edges
	for e, s := range g.Src {
		src[s] = append(src[s], e)
	}
	for _, d := range []int{16, 32, 12} {
		coef := rand32(g.Edges()*(f+1), rng)
		gr := rand32(nodes*d, rng)
		for s := 0; s < nodes; s++ {
			dy0 := rand32((f+1)*d, rng)
			var got [2][]float32
			for i, on := range []bool{true, false} {
				haveFMA = on
				got[i] = append([]float32(nil), dy0...)
				spread32(got[i], coef, gr, d, src[s], g, f)
			}
			if !sameBits32(got[0], got[1]) {
				t.Fatalf("d %d, source %d: the kernel and the Go loop differ", d, s)
			}
			wide := func(x []float32) []float64 {
				y := make([]float64, len(x))
				for i, v := range x {
					y[i] = float64(v)
				}
				return y
			}
			want, mag := wide(dy0), wide(dy0)
			cw, gw := wide(coef), wide(gr)
			for i := range mag {
				mag[i] = math.Abs(mag[i])
			}
			spread(want, cw, gw, d, src[s], g, f)
			for i := range cw {
				cw[i] = math.Abs(cw[i])
			}
			for i := range gw {
				gw[i] = math.Abs(gw[i])
			}
			spread(mag, cw, gw, d, src[s], g, f)
			bound := float64(len(src[s])+1) * math.Exp2(-24) * 1.01
			for i, v := range got[0] {
				if diff := math.Abs(float64(v) - want[i]); diff > bound*mag[i]+float64(len(src[s])+1)*math.Exp2(-149) {
					t.Fatalf("d %d, source %d: element %d is %v, float64 gives %v", d, s, i, v, want[i])
				}
			}
		}
	}
}
