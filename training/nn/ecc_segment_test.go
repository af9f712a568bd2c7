package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestECCSegment runs a segment of steps, each changing a few node rows
// or edge rows of the last (some none), and checks that every step's
// output, and its head's products, hold the bits of ECC.Forward and
// MatMul on a tape, and that the segment's one backward pass gives the
// parameter gradients of one backward pass per step, summed, to
// rounding, while computing fewer rows than a pass per step.
func TestECCSegment(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nodes, f, steps = 300, 3, 40
	g := randomGraph(t, nodes, rng)
	ps := NewParams()
	dims := []int{17, 16, 16, 8}
	layers := eccLayers(ps, dims, f, rng)
	const hidden = 12
	head := NewLinear(ps, "head", dims[len(dims)-1]+dims[0], hidden, He, rng)
	headRows := make([]int, 0, nodes/3)
	for u := 0; u < nodes; u += 3 {
		headRows = append(headRows, u)
	}
	xs, efs, gs, hs := make([][]float64, steps), make([][]float64, steps), make([][]float64, steps), make([][]float64, steps)
	x, ef := eccInputs(nodes, dims[0], g.Edges(), f, rng)
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
		hs[st] = make([]float64, len(headRows)*hidden)
		for i := range hs[st] {
			hs[st][i] = rng.NormFloat64()
		}
	}
	loss := func(tp *Tape, h, p *Node, st int) *Node {
		return tp.Add(tp.Sum(tp.Mul(h, tp.Const(h.Rows, h.Cols, gs[st]))), tp.Sum(tp.Mul(p, tp.Const(p.Rows, p.Cols, hs[st]))))
	}
	// Reference: a pass and a backward pass per step.
	var tp Tape
	outs, prods := make([][]float64, steps), make([][]float64, steps)
	for st := range xs {
		tp.Reset()
		x := tp.Const(nodes, dims[0], xs[st])
		efn := tp.Const(g.Edges(), f, efs[st])
		h := x
		for _, l := range layers {
			h = l.Forward(&tp, h, efn, g)
		}
		p := tp.MatMul(tp.GatherRows(tp.ConcatCols(h, x), headRows), head.W)
		outs[st], prods[st] = append([]float64(nil), h.Data...), append([]float64(nil), p.Data...)
		tp.Backward(loss(&tp, h, p, st))
	}
	want := map[string][]float64{}
	for _, p := range ps.List() {
		want[p.Name] = append([]float64(nil), p.Grad...)
		clear(p.Grad)
	}
	s := NewECCSegment(layers, g)
	s.SetHead(head, headRows)
	// The second round cuts the steps in two chunks, as a learner does
	// with a long segment: the chunks' gradients add up, and the buffers
	// of the first round are reused. The last two rounds repeat the
	// first two reading the head's products from HeadVersions (gathered
	// at the step's rows), and must give their gradients to the bit.
	got := map[[2]int][]float64{}
	for round := 0; round < 4; round++ {
		cut := steps
		if round%2 == 1 {
			cut = 25
		}
		versions := round >= 2
		for st := range xs {
			if st == 0 || st == cut {
				if st == cut {
					s.Backward()
				}
				for k := st; k < steps && (k < cut) == (st < cut); k++ {
					s.Add(xs[k], efs[k])
				}
				s.Forward()
			}
			tp.Reset()
			k := st
			if st >= cut {
				k = st - cut
			}
			h := s.Output(k)
			if !sameBits(outs[st], h.Data) || len(h.Data) != len(outs[st]) {
				t.Fatalf("round %d step %d: the segment's output differs from ECC.Forward's", round, st)
			}
			var p *Node
			if versions {
				hv, rows := s.HeadVersions()
				p = tp.GatherRows(hv, rows)
			} else {
				p = s.HeadOutput()
			}
			if !sameBits(prods[st], p.Data) || len(p.Data) != len(prods[st]) {
				t.Fatalf("round %d step %d: the head's products differ from MatMul's", round, st)
			}
			tp.Backward(loss(&tp, h, p, st))
			s.Accumulate()
		}
		s.Backward()
		for pi, p := range ps.List() {
			for i, v := range p.Grad {
				w := want[p.Name][i]
				if math.Abs(v-w) > 1e-9*(1+math.Abs(w)) {
					t.Fatalf("round %d: %s[%d] = %v, a pass per step gives %v", round, p.Name, i, v, w)
				}
			}
			key := [2]int{round % 2, pi}
			if !versions {
				got[key] = append([]float64(nil), p.Grad...)
			} else if !sameBits(p.Grad, got[key]) {
				t.Fatalf("round %d: the gradient of %s through HeadVersions differs from HeadOutput's", round, p.Name)
			}
			clear(p.Grad)
		}
	}
	full := 4 * steps * nodes * len(layers)
	if s.Rows >= full/3 {
		t.Errorf("the segment computed %d rows, a pass per step %d", s.Rows, full)
	}
	t.Logf("rows: %d of %d (%.3f)", s.Rows, full, float64(s.Rows)/float64(full))
	// A pass whose first Output is not its first step: the leaf rows of
	// the last round's last step must not survive into it.
	for k := range xs {
		s.Add(xs[k], efs[k])
	}
	s.Forward()
	for _, st := range []int{3, 7, 8, 30} {
		if h := s.Output(st); !sameBits(outs[st], h.Data) {
			t.Fatalf("skipping to step %d: the segment's output differs from ECC.Forward's", st)
		}
		if p := s.HeadOutput(); !sameBits(prods[st], p.Data) {
			t.Fatalf("skipping to step %d: the head's products differ from MatMul's", st)
		}
	}
	s.Backward()
	ps.ZeroGrad()
}

// TestECCShortStates gives ECCStack.Forward and ECCSegment.Add the
// states of the graph's first rows only, a varying number of them, and
// checks that both compute what the full states, zero after those rows,
// give: the same outputs and the same gradients, to the bit.
func TestECCShortStates(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const nodes, f, steps = 120, 3, 12
	g := randomGraph(t, nodes, rng)
	ps := NewParams()
	dims := []int{9, 8, 8}
	layers := eccLayers(ps, dims, f, rng)
	x, ef := eccInputs(nodes, dims[0], g.Edges(), f, rng)
	shorts, fulls, efs := make([][]float64, steps), make([][]float64, steps), make([][]float64, steps)
	for st := range shorts {
		rows := []int{nodes / 2, nodes, nodes / 3, nodes / 3}[st%4] // longer, then shorter
		u := rng.IntN(rows)
		x[u*dims[0]+rng.IntN(dims[0])] = rng.NormFloat64()
		if st%3 == 1 {
			ef[rng.IntN(len(ef))] = rng.Float64()
		}
		shorts[st] = append([]float64(nil), x[:rows*dims[0]]...)
		fulls[st] = make([]float64, len(x))
		copy(fulls[st], shorts[st])
		efs[st] = append([]float64(nil), ef...)
	}
	short, full := NewECCStack(layers, g), NewECCStack(layers, g)
	for st := range shorts {
		if !sameBits(short.Forward(shorts[st], efs[st]), full.Forward(fulls[st], efs[st])) {
			t.Fatalf("step %d: ECCStack.Forward of %d rows differs from that of the zero-padded states", st, len(shorts[st])/dims[0])
		}
	}
	grads := func(xs [][]float64) ([][]float64, []float64) {
		s := NewECCSegment(layers, g)
		for st := range xs {
			s.Add(xs[st], efs[st])
		}
		s.Forward()
		var tp Tape
		var outs [][]float64
		for st := range xs {
			tp.Reset()
			h := s.Output(st)
			outs = append(outs, append([]float64(nil), h.Data...))
			tp.Backward(tp.Sum(tp.Mul(h, h)))
			s.Accumulate()
		}
		s.Backward()
		var gr []float64
		for _, p := range ps.List() {
			gr = append(gr, p.Grad...)
			clear(p.Grad)
		}
		return outs, gr
	}
	so, sg := grads(shorts)
	fo, fg := grads(fulls)
	for st := range so {
		if !sameBits(so[st], fo[st]) {
			t.Fatalf("step %d: the segment's output of short states differs from that of the zero-padded ones", st)
		}
	}
	if !sameBits(sg, fg) {
		t.Fatal("the segment's gradients of short states differ from those of the zero-padded ones")
	}
}

// TestECCSegmentReads runs the same steps through a segment restricted
// to some rows of its output (Reads) and a whole one, with a loss and a
// head that read those rows alone, and checks that the rows' outputs,
// the head's products and the parameter gradients are the same bits,
// while the restricted segment computes fewer row versions. The graph
// is a tree, so a read row does not depend on every other.
func TestECCSegmentReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const nodes, f, steps = 300, 3, 30
	g := binaryTree(t, nodes)
	ps := NewParams()
	dims := []int{17, 16, 16, 8}
	layers := eccLayers(ps, dims, f, rng)
	const hidden = 12
	head := NewLinear(ps, "head", dims[len(dims)-1]+dims[0], hidden, He, rng)
	var rows []int
	for u := 150; u < nodes; u += 3 {
		rows = append(rows, u)
	}
	out := dims[len(dims)-1]
	xs, efs, gs := make([][]float64, steps), make([][]float64, steps), make([][]float64, steps)
	x, ef := eccInputs(nodes, dims[0], g.Edges(), f, rng)
	for st := range xs {
		if st > 0 {
			x[rng.IntN(nodes)*dims[0]+rng.IntN(dims[0])] = rng.NormFloat64()
			if st%3 == 0 {
				ef[rng.IntN(len(ef))] = rng.Float64()
			}
		}
		xs[st], efs[st] = append([]float64(nil), x...), append([]float64(nil), ef...)
		gs[st] = make([]float64, len(rows)*out)
		for i := range gs[st] {
			gs[st][i] = rng.NormFloat64()
		}
	}
	run := func(restrict bool) (outs [][]float64, grads map[string][]float64, versions int) {
		s := NewECCSegment(layers, g)
		s.SetHead(head, rows)
		if restrict {
			s.Reads(rows)
		}
		for st := range xs {
			s.Add(xs[st], efs[st])
		}
		s.Forward()
		var tp Tape
		for st := range xs {
			tp.Reset()
			h := tp.GatherRows(s.Output(st), rows)
			outs = append(outs, append([]float64(nil), h.Data...))
			hv, hr := s.HeadVersions()
			p := tp.GatherRows(hv, hr)
			outs = append(outs, append([]float64(nil), p.Data...))
			tp.Backward(tp.Add(tp.Sum(tp.Mul(h, tp.Const(h.Rows, h.Cols, gs[st]))), tp.Sum(p)))
			s.Accumulate()
		}
		s.Backward()
		grads = map[string][]float64{}
		for _, p := range ps.List() {
			grads[p.Name] = append([]float64(nil), p.Grad...)
			clear(p.Grad)
		}
		return outs, grads, s.Rows
	}
	wantOuts, want, whole := run(false)
	gotOuts, got, restricted := run(true)
	for i := range wantOuts {
		if !sameBits(gotOuts[i], wantOuts[i]) {
			t.Fatalf("step %d: the restricted segment's %s differ", i/2, []string{"read rows", "head products"}[i%2])
		}
	}
	for name, w := range want {
		if !sameBits(got[name], w) {
			t.Errorf("%s: the restricted segment's gradient differs", name)
		}
	}
	if restricted >= whole {
		t.Errorf("the restricted segment computed %d row versions, the whole one %d", restricted, whole)
	}
	t.Logf("row versions: %d restricted, %d whole", restricted, whole)
}
