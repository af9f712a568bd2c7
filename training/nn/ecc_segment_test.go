package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestECCSegment runs a segment of steps, each changing a few node rows
// or edge rows of the last (some none), and checks that every step's
// output holds the bits of ECC.Forward on a tape, and that the segment's
// one backward pass gives the parameter gradients of one backward pass
// per step, summed, to rounding, while computing fewer rows than a pass
// per step.
func TestECCSegment(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nodes, f, steps = 300, 3, 40
	g := randomGraph(t, nodes, rng)
	ps := NewParams()
	dims := []int{17, 16, 16, 8}
	layers := eccLayers(ps, dims, f, rng)
	xs, efs, gs := make([][]float64, steps), make([][]float64, steps), make([][]float64, steps)
	x := make([]float64, nodes*dims[0])
	for i := range x {
		if rng.IntN(4) == 0 {
			x[i] = rng.NormFloat64()
		}
	}
	ef := make([]float64, g.Edges()*f)
	for i := range ef {
		ef[i] = rng.Float64()
	}
	for st := range xs {
		switch {
		case st == 0, st%9 == 4: // nothing changes
		case st%5 == 2:
			e := rng.IntN(g.Edges())
			ef[e*f+rng.IntN(f)] = rng.Float64()
		default:
			for k := 0; k < 1+rng.IntN(3); k++ {
				u := rng.IntN(nodes)
				x[u*dims[0]+rng.IntN(dims[0])] = rng.NormFloat64()
			}
		}
		xs[st], efs[st] = append([]float64(nil), x...), append([]float64(nil), ef...)
		// The loss reads some rows only, as a scorer reads candidates.
		gs[st] = make([]float64, nodes*dims[len(dims)-1])
		for i := range gs[st][:len(gs[st])/2] {
			gs[st][i] = rng.NormFloat64()
		}
	}
	loss := func(tp *Tape, h *Node, st int) *Node {
		return tp.Sum(tp.Mul(h, tp.Const(h.Rows, h.Cols, gs[st])))
	}
	// Reference: a pass and a backward pass per step.
	var tp Tape
	outs := make([][]float64, steps)
	for st := range xs {
		tp.Reset()
		h := tp.Const(nodes, dims[0], xs[st])
		efn := tp.Const(g.Edges(), f, efs[st])
		for _, l := range layers {
			h = l.Forward(&tp, h, efn, g)
		}
		outs[st] = append([]float64(nil), h.Data...)
		tp.Backward(loss(&tp, h, st))
	}
	want := map[string][]float64{}
	for _, p := range ps.List() {
		want[p.Name] = append([]float64(nil), p.Grad...)
		clear(p.Grad)
	}
	s := NewECCSegment(layers, g)
	for round := 0; round < 2; round++ { // the second reuses the buffers
		for st := range xs {
			s.Add(xs[st], efs[st])
		}
		s.Forward()
		for st := range xs {
			tp.Reset()
			h := s.Output(st)
			if !sameBits(outs[st], h.Data) || len(h.Data) != len(outs[st]) {
				t.Fatalf("round %d step %d: the segment's output differs from ECC.Forward's", round, st)
			}
			tp.Backward(loss(&tp, h, st))
			s.Accumulate()
		}
		s.Backward()
		for _, p := range ps.List() {
			for i, v := range p.Grad {
				w := want[p.Name][i]
				if math.Abs(v-w) > 1e-9*(1+math.Abs(w)) {
					t.Fatalf("round %d: %s[%d] = %v, a pass per step gives %v", round, p.Name, i, v, w)
				}
			}
			clear(p.Grad)
		}
	}
	full := 2 * steps * nodes * len(layers)
	if s.Rows >= full/3 {
		t.Errorf("the segment computed %d rows, a pass per step %d", s.Rows, full)
	}
	t.Logf("rows: %d of %d (%.3f)", s.Rows, full, float64(s.Rows)/float64(full))
}
