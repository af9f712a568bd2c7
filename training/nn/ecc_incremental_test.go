package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestECCStackBits changes a few node and edge rows at a time and checks
// that the incremental pass returns, to the bit, what ECC.Forward on a
// tape computes from scratch, and that it recomputes fewer rows than a
// full pass. The graph is large enough for gonum to run the full pass's
// products in parallel, and the inputs are mostly zeros (as observation
// counts are), which gonum's kernels skip.
func TestECCStackBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const nodes, f = 300, 3
	g := randomGraph(t, nodes, rng)
	ps := NewParams()
	dims := []int{17, 16, 16, 8}
	layers := eccLayers(ps, dims, f, rng)
	// ECC's output width must equal the next layer's input width; the
	// stack's layers are (17→16), (16→16), (16→8).
	x, ef := eccInputs(nodes, dims[0], g.Edges(), f, rng)
	reference := func() []float64 {
		var tp Tape
		h, _ := tapeForward(&tp, layers, g, x, dims[0], ef, f)
		return append([]float64(nil), h.Data...)
	}
	s := NewECCStack(layers, g)
	full := nodes * len(layers)
	for it := 0; it < 40; it++ {
		before := s.Rows
		switch {
		case it == 20: // parameters move
			moveParams(ps, rng)
			s.Invalidate()
		case it%7 == 3: // nothing changes
		default:
			rewriteRows(x, nodes, dims[0], rng)
			if it%2 == 0 {
				e := rng.IntN(g.Edges())
				ef[e*f+1] = rng.Float64()
			}
		}
		got := s.Forward(x, ef)
		want := reference()
		if !sameBits(got, want) {
			t.Fatalf("iteration %d: incremental pass differs from the full one", it)
		}
		if n := s.Rows - before; it > 0 && it != 20 && n >= full {
			t.Errorf("iteration %d recomputed %d rows, a full pass is %d", it, n, full)
		} else if it%7 == 3 && n != 0 {
			t.Errorf("iteration %d: nothing changed but %d rows were recomputed", it, n)
		}
	}
	t.Logf("%d rows recomputed over 40 passes of %d", s.Rows, full)
}

// TestECCStackOnly restricts a stack's last layer to some rows and
// checks, over passes that change a few input rows or edges, that those
// rows hold the bits of ECC.Forward on a tape, and that the stack
// computes fewer rows than an unrestricted one.
func TestECCStackOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const nodes, f = 300, 3
	g := randomGraph(t, nodes, rng)
	ps := NewParams()
	dims := []int{17, 16, 8}
	layers := eccLayers(ps, dims, f, rng)
	x, ef := eccInputs(nodes, dims[0], g.Edges(), f, rng)
	var rows []int
	for u := 0; u < nodes; u += 5 {
		rows = append(rows, u)
	}
	only, all := NewECCStack(layers, g), NewECCStack(layers, g)
	only.Only(rows)
	out := dims[len(dims)-1]
	for it := 0; it < 20; it++ {
		if it > 0 {
			nudgeInputs(x, ef, nodes, dims[0], it%3 == 0, rng)
		}
		got := only.Forward(x, ef)
		all.Forward(x, ef)
		var tp Tape
		h, efn := tapeForward(&tp, layers[:len(layers)-1], g, x, dims[0], ef, f)
		last := layers[len(layers)-1]
		want := last.ForwardRows(&tp, h, efn, g, rows)
		whole := last.Forward(&tp, h, efn, g)
		for i, u := range rows {
			if !sameBits(got[u*out:(u+1)*out], want.Data[i*out:(i+1)*out]) {
				t.Fatalf("pass %d: row %d differs from ECC.ForwardRows'", it, u)
			}
			// Summed in another order than ECC.Forward's: equal up
			// to rounding (values of order 1, sums of tens of terms).
			for j := 0; j < out; j++ {
				if a, b := want.Data[i*out+j], whole.Data[u*out+j]; math.Abs(a-b) > 1e-12*(1+math.Abs(b)) {
					t.Fatalf("pass %d: row %d column %d: %v by ForwardRows, %v by Forward", it, u, j, a, b)
				}
			}
		}
	}
	if only.Rows >= all.Rows {
		t.Errorf("the restricted stack computed %d rows, the whole one %d", only.Rows, all.Rows)
	}
	t.Logf("rows: %d restricted, %d whole", only.Rows, all.Rows)
}

// TestECCStackReads restricts a stack to the rows its caller reads and
// checks, over passes that change a few input rows or edges and one that
// moves the parameters, that those rows hold the bits of ECC.Forward on
// a tape, and that the stack computes fewer rows than a whole one. The
// graph's in-degrees are small, as the MARL inner graphs' are, so a
// read row's dependencies are not the whole graph.
func TestECCStackReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const nodes, f = 300, 3
	g := binaryTree(t, nodes)
	ps := NewParams()
	dims := []int{17, 16, 16, 8}
	layers := eccLayers(ps, dims, f, rng)
	x, ef := eccInputs(nodes, dims[0], g.Edges(), f, rng)
	var rows []int
	for u := 150; u < nodes; u += 3 { // leaves
		rows = append(rows, u)
	}
	reads, all := NewECCStack(layers, g), NewECCStack(layers, g)
	reads.Reads(rows)
	out := dims[len(dims)-1]
	for it := 0; it < 20; it++ {
		switch {
		case it == 10:
			moveParams(ps, rng)
			reads.Invalidate()
			all.Invalidate()
		case it > 0:
			nudgeInputs(x, ef, nodes, dims[0], it%3 == 0, rng)
		}
		got := reads.Forward(x, ef)
		all.Forward(x, ef)
		var tp Tape
		h, _ := tapeForward(&tp, layers, g, x, dims[0], ef, f)
		for _, u := range rows {
			if !sameBits(got[u*out:(u+1)*out], h.Data[u*out:(u+1)*out]) {
				t.Fatalf("pass %d: row %d differs from ECC.Forward's", it, u)
			}
		}
	}
	if reads.Rows >= all.Rows {
		t.Errorf("the restricted stack computed %d rows, the whole one %d", reads.Rows, all.Rows)
	}
	t.Logf("rows: %d restricted, %d whole", reads.Rows, all.Rows)
}

// TestLinearRowsBits changes rows of a sparse input and compares the
// cached Linear with the tape's, bit for bit.
func TestLinearRowsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ps := NewParams()
	l := NewLinear(ps, "l", 33, 128, He, rng)
	for i := range l.B.Data {
		l.B.Data[i] = rng.NormFloat64()
	}
	const rows = 200
	x := make([]float64, rows*33)
	for i := range x {
		if rng.IntN(3) == 0 {
			x[i] = rng.NormFloat64()
		}
	}
	c := NewLinearRows(l)
	for it := 0; it < 20; it++ {
		before := c.Rows
		if it > 0 {
			u := rng.IntN(rows)
			x[u*33+rng.IntN(33)] = rng.NormFloat64()
		}
		got := c.Forward(x)
		var tp Tape
		want := l.Forward(&tp, tp.Const(rows, 33, x)).Data
		if !sameBits(got, want) {
			t.Fatalf("iteration %d: cached rows differ from the tape's", it)
		}
		if it > 0 && c.Rows-before != 1 {
			t.Errorf("iteration %d recomputed %d rows, want 1", it, c.Rows-before)
		}
	}
}

// TestECCStackRecord checks that layers recorded from an incremental pass
// (ECCStack.Record) give the same output and the same parameter gradients,
// to the bit, as ECC.Forward on a tape, over a sequence of small changes
// and with the input coming from a layer that needs a gradient. Restricted
// to some rows (Only, given out of order), the recorded last layer holds
// those rows of the tape's, and the gradients of a loss on them are the
// tape's (given in ascending order).
func TestECCStackRecord(t *testing.T) {
	t.Run("all", func(t *testing.T) { testECCStackRecord(t, nil) })
	t.Run("only", func(t *testing.T) {
		var rows []int
		for u := 270; u >= 0; u -= 9 {
			rows = append(rows, u)
		}
		testECCStackRecord(t, rows)
	})
}

func testECCStackRecord(t *testing.T, only []int) {
	rng := rand.New(rand.NewPCG(7, 8))
	const nodes, f, in = 280, 3, 5
	g := randomGraph(t, nodes, rng)
	ps := NewParams()
	proj := NewLinear(ps, "proj", in, 17, He, rng)
	dims := []int{17, 16, 16, 8}
	layers := eccLayers(ps, dims, f, rng)
	x := make([]float64, nodes*in)
	for i := range x {
		if rng.IntN(3) == 0 {
			x[i] = rng.NormFloat64()
		}
	}
	ef := make([]float64, g.Edges()*f)
	for i := range ef {
		ef[i] = rng.Float64()
	}
	outRows := nodes
	if only != nil {
		outRows = len(only)
	}
	wOut := make([]float64, outRows*dims[len(dims)-1])
	for i := range wOut {
		wOut[i] = rng.NormFloat64()
	}
	grads := func() [][]float64 {
		var out [][]float64
		for _, p := range ps.List() {
			out = append(out, append([]float64(nil), p.Grad...))
		}
		return out
	}
	// pass runs steps item by item with DeferGrad, as the
	// MARL learner does, through the stack if s is not nil.
	pass := func(tp *Tape, s *ECCStack) ([]float64, [][]float64) {
		ps.ZeroGrad()
		tp.Reset()
		h0 := proj.Forward(tp, tp.Const(nodes, in, x))
		efn := tp.Const(g.Edges(), f, ef)
		var h *Node
		if s != nil {
			h = s.Record(tp, h0, efn)
		} else {
			h = h0
			for i, l := range layers {
				if i == len(layers)-1 && only != nil {
					h = l.ForwardRows(tp, h, efn, g, slices.Sorted(slices.Values(only)))
				} else {
					h = l.Forward(tp, h, efn, g)
				}
			}
		}
		tp.DeferGrad(true)
		tp.Backward(tp.Sum(tp.Mul(h, tp.Const(outRows, dims[len(dims)-1], wOut))))
		tp.FlushGrad()
		tp.DeferGrad(false)
		return append([]float64(nil), h.Data...), grads()
	}
	s := NewECCStack(layers, g)
	if only != nil {
		s.Only(only)
	}
	var ref, rec Tape
	for it := 0; it < 12; it++ {
		if it > 0 {
			nudgeInputs(x, ef, nodes, in, it%3 == 0, rng)
		}
		if it == 6 { // parameters move
			moveParams(ps, rng)
			s.Invalidate()
		}
		wantH, wantG := pass(&ref, nil)
		gotH, gotG := pass(&rec, s)
		sameRecorded(t, it, ps, gotH, wantH, gotG, wantG)
	}
}

// TestLinearRowsRecord checks that a LinearRows recorded on a tape gives
// Linear.Forward's value and, through Backward, its gradients (of W, b
// and of an input that needs one), bit for bit, as rows change.
func TestLinearRowsRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows, in, mid, out = 200, 7, 33, 128
	ps := NewParams()
	proj := NewLinear(ps, "proj", in, mid, He, rng)
	l := NewLinear(ps, "l", mid, out, He, rng)
	for i := range l.B.Data {
		l.B.Data[i] = rng.NormFloat64()
	}
	x := make([]float64, rows*in)
	for i := range x {
		if rng.IntN(3) == 0 {
			x[i] = rng.NormFloat64()
		}
	}
	w := make([]float64, rows*out)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	pass := func(tp *Tape, c *LinearRows) ([]float64, [][]float64) {
		ps.ZeroGrad()
		tp.Reset()
		h := tp.ReLU(proj.Forward(tp, tp.Const(rows, in, x)))
		var y *Node
		if c != nil {
			y = c.Record(tp, h)
		} else {
			y = l.Forward(tp, h)
		}
		tp.Backward(tp.Sum(tp.Mul(y, tp.Const(rows, out, w))))
		var g [][]float64
		for _, p := range ps.List() {
			g = append(g, append([]float64(nil), p.Grad...))
		}
		return append([]float64(nil), y.Data...), g
	}
	c := NewLinearRows(l)
	var ref, rec Tape
	for it := 0; it < 10; it++ {
		if it > 0 {
			x[rng.IntN(len(x))] = rng.NormFloat64()
		}
		wantY, wantG := pass(&ref, nil)
		gotY, gotG := pass(&rec, c)
		sameRecorded(t, it, ps, gotY, wantY, gotG, wantG)
	}
}

// randomGraph is a graph of n nodes where each node but node 0 (which
// receives nothing) links both ways with 3 random others.
func randomGraph(t testing.TB, n int, rng *rand.Rand) *Graph {
	t.Helper()
	var src, dst []int
	for u := 1; u < n; u++ {
		for k := 0; k < 3; k++ {
			w := rng.IntN(n)
			src, dst = append(src, w, u), append(dst, u, w)
		}
	}
	g, err := NewGraph(n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// eccInputs draws node states (mostly zeros, as observation counts are)
// and edge features for a stack over a graph.
func eccInputs(nodes, width, edges, f int, rng *rand.Rand) (x, ef []float64) {
	x = make([]float64, nodes*width)
	for i := range x {
		if rng.IntN(4) == 0 {
			x[i] = rng.NormFloat64()
		}
	}
	ef = make([]float64, edges*f)
	for i := range ef {
		ef[i] = rng.Float64()
	}
	return x, ef
}

// tapeForward records layers over node states x (g.Nodes × width) and
// edge features ef (edges × f) on tp, from scratch: the reference an
// ECCStack must match to the bit. It returns the last layer's output and
// the edge features' node.
func tapeForward(tp *Tape, layers []*ECC, g *Graph, x []float64, width int, ef []float64, f int) (h, efn *Node) {
	h = tp.Const(g.Nodes, width, x)
	efn = tp.Const(g.Edges(), f, ef)
	for _, l := range layers {
		h = l.Forward(tp, h, efn, g)
	}
	return h, efn
}

// moveParams moves every parameter by a hundredth of a standard normal
// draw, as a training step would.
func moveParams(ps *Params, rng *rand.Rand) {
	for _, p := range ps.List() {
		for i := range p.Data {
			p.Data[i] += 0.01 * rng.NormFloat64()
		}
	}
}

// sameRecorded fails t unless a recorded pass's output got and its
// parameters' gradients gotG (in ps's order) have the bits of the
// reference's want and wantG.
func sameRecorded(t *testing.T, it int, ps *Params, got, want []float64, gotG, wantG [][]float64) {
	t.Helper()
	if !sameBits(got, want) {
		t.Fatalf("iteration %d: recorded output differs", it)
	}
	for i, p := range ps.List() {
		if !sameBits(gotG[i], wantG[i]) {
			t.Fatalf("iteration %d: gradient of %s differs", it, p.Name)
		}
	}
}

// nudgeInputs sets one entry of x (nodes × width) to a normal draw and,
// with edge set, one edge feature to a uniform one: the smallest change
// between two passes.
func nudgeInputs(x, ef []float64, nodes, width int, edge bool, rng *rand.Rand) {
	x[rng.IntN(nodes)*width+rng.IntN(width)] = rng.NormFloat64()
	if edge {
		ef[rng.IntN(len(ef))] = rng.Float64()
	}
}

// rewriteRows rewrites one to three random node rows of x (width wide),
// each entry +0 or, one time in three, a normal draw: what a placement
// changes between two passes.
func rewriteRows(x []float64, nodes, width int, rng *rand.Rand) {
	for k := 0; k < 1+rng.IntN(3); k++ {
		u := rng.IntN(nodes)
		for j := 0; j < width; j++ {
			x[u*width+j] = 0
			if rng.IntN(3) == 0 {
				x[u*width+j] = rng.NormFloat64()
			}
		}
	}
}

// eccLayers is a stack of ECC layers from dims[i] to dims[i+1] features
// with f edge features each, named l0, l1, ….
func eccLayers(ps *Params, dims []int, f int, rng *rand.Rand) []*ECC {
	var layers []*ECC
	for i := 0; i+1 < len(dims); i++ {
		layers = append(layers, NewECC(ps, "l"+string(rune('0'+i)), dims[i], f, dims[i+1], rng))
	}
	return layers
}

// sameBits compares bit patterns: −0 is not +0, a NaN equals only the
// same NaN, and only the first len(a) values of b count.
func TestSameBits(t *testing.T) {
	nan1, nan2 := math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0x7ff8000000000002)
	for _, c := range []struct {
		a, b []float64
		want bool
	}{
		{nil, nil, true},
		{[]float64{}, []float64{1}, true},
		{[]float64{1, 2}, []float64{1, 2, 3}, true},
		{[]float64{1, 2}, []float64{1, 2.0000000000000004}, false},
		{[]float64{0}, []float64{math.Copysign(0, -1)}, false},
		{[]float64{nan1}, []float64{nan1}, true},
		{[]float64{nan1}, []float64{nan2}, false},
		{[]float64{5, 6, 7, 8, 9, 10, 11, 12, 13}, []float64{5, 6, 7, 8, 9, 10, 11, 12, 14}, false},
	} {
		if got := sameBits(c.a, c.b); got != c.want {
			t.Errorf("sameBits(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestECCStackRetarget: one stack moved among graphs of different sizes
// and back (nn.ECCStack.Retarget) returns, to the bit, what ECC.Forward
// computes on each, and its incremental passes after a move stay exact.
func TestECCStackRetarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const f = 3
	dims := []int{5, 8, 8}
	layers := eccLayers(NewParams(), dims, f, rng)
	type input struct {
		g     *Graph
		x, ef []float64
	}
	var ins []input
	for _, n := range []int{40, 40, 25, 60} {
		g := randomGraph(t, n, rng)
		in := input{g: g, x: make([]float64, n*dims[0]), ef: make([]float64, g.Edges()*f)}
		for i := range in.x {
			in.x[i] = rng.NormFloat64()
		}
		for i := range in.ef {
			in.ef[i] = rng.Float64()
		}
		ins = append(ins, in)
	}
	s := NewECCStack(layers, ins[0].g)
	for it, k := range []int{0, 1, 2, 3, 0, 2, 2, 1} {
		in := ins[k]
		if it > 0 && k == 2 && ins[k].g == s.g {
			in.x[rng.IntN(len(in.x))] = rng.NormFloat64() // an incremental pass
		} else {
			s.Retarget(in.g)
		}
		var tp Tape
		h, _ := tapeForward(&tp, layers, in.g, in.x, dims[0], in.ef, f)
		if got := s.Forward(in.x, in.ef); !sameBits(got, h.Data) {
			t.Fatalf("step %d (graph %d): the retargeted stack differs from ECC.Forward", it, k)
		}
	}
}

// TestEdgeConvGradRows checks that an edge convolution whose states are
// rows of constants around a few rows that need a gradient (the MARL
// inter-scheduler stack's input) gives those rows, and its parameters,
// the bits it gives them when every row needs a gradient, though it
// computes the states' gradient at those rows only, and dY only at them
// and at the rows whose states are not all zero.
func TestEdgeConvGradRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const nodes, f, in, d = 120, 3, 5, 8
	g := randomGraph(t, nodes, rng)
	ps := NewParams()
	proj := NewLinear(ps, "proj", in, d, He, rng)
	w, c := ps.New("w", f, d*d), ps.New("c", 1, d*d)
	for _, p := range []*Node{w, c} {
		for i := range p.Data {
			p.Data[i] = 0.3 * rng.NormFloat64()
		}
	}
	// The other rows' states: constants, or a parameter of their own;
	// the last half all zero (the switches' states), whose rows of dY
	// the constant pass skips.
	states := NewParams().New("states", nodes, d)
	for i := range states.Data[:nodes/2*d] {
		states.Data[i] = rng.NormFloat64()
	}
	x := make([]float64, 3*in)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	_, ef := eccInputs(nodes, d, g.Edges(), f, rng)
	wOut := make([]float64, nodes*d)
	for i := range wOut {
		wOut[i] = rng.NormFloat64()
	}
	const lo, hi = 40, 43 // the rows of the projection
	pass := func(all bool) ([][]float64, []float64) {
		ps.ZeroGrad()
		clear(states.Grad)
		var tp Tape
		above, below := tp.Const(lo, d, states.Data[:lo*d]), tp.Const(nodes-hi, d, states.Data[hi*d:])
		if all {
			above, below = tp.SliceRows(states, 0, lo), tp.SliceRows(states, hi, nodes)
		}
		h := tp.ConcatRows(above, proj.Forward(&tp, tp.Const(hi-lo, in, x)), below)
		y := tp.EdgeConv(h, tp.Const(g.Edges(), f, ef), w, c, g)
		tp.Backward(tp.Sum(tp.Mul(y, tp.Const(nodes, d, wOut))))
		var out [][]float64
		for _, p := range ps.List() {
			out = append(out, append([]float64(nil), p.Grad...))
		}
		return out, append([]float64(nil), h.Grad...)
	}
	want, wantH := pass(true)
	got, gotH := pass(false)
	for i, p := range ps.List() {
		if !sameBits(got[i], want[i]) {
			t.Errorf("gradient of %s differs", p.Name)
		}
	}
	if !sameBits(gotH[lo*d:hi*d], wantH[lo*d:hi*d]) {
		t.Error("the states' gradient at the rows that need it differs")
	}
	if allZero(wantH[:lo*d]) || !allZero(gotH[:lo*d]) {
		t.Error("the constant rows' gradient was computed (or the reference's was not)")
	}
}

// binaryTree is a graph of nodes as a binary tree, every node below its
// parent ((u−1)/2) with an edge each way: a read row depends on its
// subtree and its ancestors' neighbourhoods, not on every other row.
func binaryTree(t *testing.T, nodes int) *Graph {
	t.Helper()
	var src, dst []int
	for u := 1; u < nodes; u++ {
		src, dst = append(src, u, (u-1)/2), append(dst, (u-1)/2, u)
	}
	g, err := NewGraph(nodes, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
