package nn

import (
	"math/rand/v2"
	"testing"
)

// TestItemByItemBits back-propagates B items of one shape once as a
// batch (stacked rows, block-diagonal graph) and once item by item with
// DeferGrad, and requires bit-identical parameter gradients. The network
// has an ECC layer (whose filter gradient is summed over rows before it
// meets the parameter's) and a product with 128 outputs, and the
// parameters' gradients start non-zero, as they do for the second agent
// of an update. Without DeferGrad the gradients differ.
func TestItemByItemBits(t *testing.T) {
	for _, knobs := range []struct{ deferGrad, want bool }{{true, true}, {false, false}} {
		rng := rand.New(rand.NewPCG(5, 6))
		const nodes, f, B, d = 12, 3, 40, 8
		var src, dst []int
		for u := 1; u < nodes; u++ {
			w := rng.IntN(u)
			src, dst = append(src, w, u), append(dst, u, w)
		}
		g, _ := NewGraph(nodes, src, dst)
		var bs, bd []int
		for b := 0; b < B; b++ {
			for i := range src {
				bs, bd = append(bs, src[i]+b*nodes), append(bd, dst[i]+b*nodes)
			}
		}
		bg, _ := NewGraph(B*nodes, bs, bd)
		ps := NewParams()
		ecc := NewECC(ps, "ecc", d, f, d, rng)
		hid := NewLinear(ps, "hid", d, 128, He, rng)
		out := NewLinear(ps, "out", 128, 1, Glorot, rng)
		x := make([]float64, B*nodes*d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		ef := make([]float64, B*len(src)*f)
		for i := range ef {
			ef[i] = rng.Float64()
		}
		forward := func(tp *Tape, rows int, x, ef []float64, g *Graph) *Node {
			h := ecc.Forward(tp, tp.Const(rows, d, x), tp.Const(g.Edges(), f, ef), g)
			return tp.Sum(out.Forward(tp, tp.ReLU(hid.Forward(tp, h))))
		}
		seed := func() {
			r := rand.New(rand.NewPCG(7, 8))
			for _, p := range ps.List() {
				for i := range p.Grad {
					p.Grad[i] = r.NormFloat64()
				}
			}
		}
		grads := func() [][]float64 {
			var gs [][]float64
			for _, p := range ps.List() {
				gs = append(gs, append([]float64(nil), p.Grad...))
			}
			return gs
		}
		seed()
		var tp Tape
		tp.Backward(forward(&tp, B*nodes, x, ef, bg))
		batched := grads()
		seed()
		var it Tape
		it.DeferGrad(knobs.deferGrad)
		for b := 0; b < B; b++ {
			it.Reset()
			it.Backward(forward(&it, nodes, x[b*nodes*d:(b+1)*nodes*d], ef[b*len(src)*f:(b+1)*len(src)*f], g))
		}
		it.FlushGrad()
		same := true
		for i, gr := range grads() {
			same = same && sameBits(gr, batched[i])
		}
		if same != knobs.want {
			t.Errorf("defer %v: item by item equal to batched = %v, want %v", knobs.deferGrad, same, knobs.want)
		}
	}
}

// TestDeferredProductsBits back-propagates items of one and of three rows
// one at a time through three products (deferRows: the first two's rows
// wait, the last's, one column wide, never), with and without DeferGrad, and
// requires bit-identical parameter gradients: deferred, a parameter's
// product gradients of few rows wait to meet its gradient in one product
// (more than maxDeferredRows rows in all, so the bound's early flush
// runs too), and the passes read its transpose from a copy. The
// gradients start non-zero, as for the second agent of an update.
func TestDeferredProductsBits(t *testing.T) {
	for _, rows := range []int{1, 3} {
		rng := rand.New(rand.NewPCG(11, uint64(rows)))
		const items, in = 300, 16
		ps := NewParams()
		l0 := NewLinear(ps, "l0", in, 24, He, rng)
		l1 := NewLinear(ps, "l1", 24, 128, He, rng)
		l2 := NewLinear(ps, "l2", 128, 1, Glorot, rng)
		x := make([]float64, items*rows*in)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		run := func(deferGrad bool) [][]float64 {
			r := rand.New(rand.NewPCG(7, 8))
			for _, p := range ps.List() {
				for i := range p.Grad {
					p.Grad[i] = r.NormFloat64()
				}
			}
			var tp Tape
			tp.DeferGrad(deferGrad)
			for it := 0; it < items; it++ {
				tp.Reset()
				h := tp.ReLU(l0.Forward(&tp, tp.Const(rows, in, x[it*rows*in:(it+1)*rows*in])))
				tp.Backward(tp.Sum(l2.Forward(&tp, tp.ReLU(l1.Forward(&tp, h)))))
			}
			tp.FlushGrad()
			var gs [][]float64
			for _, p := range ps.List() {
				gs = append(gs, append([]float64(nil), p.Grad...))
			}
			return gs
		}
		want, got := run(false), run(true)
		for i, p := range ps.List() {
			if !sameBits(got[i], want[i]) {
				t.Errorf("%d rows an item: %s's gradient deferred differs from one product per pass", rows, p.Name)
			}
		}
	}
}

// TestDeferredTransposeFollowsValues keeps one deferring tape over
// several flushes, with the parameters' values moved before some of them
// and left alone before others (as the MARL learner's segments of one
// interval and of the next), and requires each window's gradients to be
// those of a pass without DeferGrad, bit for bit: a transpose kept over
// a flush is remade once the values it was made from change.
func TestDeferredTransposeFollowsValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	const items, in = 8, 16
	ps := NewParams()
	l0 := NewLinear(ps, "l0", in, 24, He, rng)
	l1 := NewLinear(ps, "l1", 24, 128, He, rng)
	l2 := NewLinear(ps, "l2", 128, 1, Glorot, rng)
	x := make([]float64, items*in)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	window := func(tp *Tape) [][]float64 {
		for _, p := range ps.List() {
			clear(p.Grad)
		}
		for it := 0; it < items; it++ {
			tp.Reset()
			h := tp.ReLU(l0.Forward(tp, tp.Const(1, in, x[it*in:(it+1)*in])))
			tp.Backward(tp.Sum(l2.Forward(tp, tp.ReLU(l1.Forward(tp, h)))))
		}
		tp.FlushGrad()
		var gs [][]float64
		for _, p := range ps.List() {
			gs = append(gs, append([]float64(nil), p.Grad...))
		}
		return gs
	}
	var kept Tape
	kept.DeferGrad(true)
	for w, move := range []bool{false, false, true, false, true, true, false} {
		if move {
			for _, p := range ps.List() {
				p.Data[rng.IntN(len(p.Data))] += 0.25
			}
		}
		got := window(&kept)
		var plain Tape
		want := window(&plain)
		for i, p := range ps.List() {
			if !sameBits(got[i], want[i]) {
				t.Errorf("window %d (values moved: %v): %s's gradient differs from a pass without DeferGrad", w, move, p.Name)
			}
		}
	}
}
