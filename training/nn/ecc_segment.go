package nn

import (
	"fmt"
	"slices"
	"sort"

	"gonum.org/v1/gonum/floats"
)

// ECCSegment runs a stack of ECC layers over one graph for a sequence of
// steps whose inputs differ in few rows from one step to the next (a
// scheduler's decisions between two updates), and back-propagates the
// sum of the steps' losses through the stack in one pass.
//
// A step's pass and its backward pass are linear in the upstream
// gradient once the forward values are fixed, and most rows hold the
// same values, hence the same local Jacobian, at many consecutive steps.
// So the segment keeps, per layer and per node, one version of the row
// for every run of steps over which the row's inputs (its own input row,
// its sources' and its incoming edges' features) do not change; a step's
// upstream gradient is added to the versions the step reads, and the
// backward pass runs once per version, not once per step: the cost is
// that of the rows that change plus one full pass, where a pass per step
// costs the full graph every step. Every version's forward values are
// computed by the kernels of ECC.Forward, row by row, in the same order,
// so each step's output holds the bits of ECC.Forward on that step's
// inputs (TestECCSegment). The gradients are the sums of the per-step
// gradients, added in another order: equal up to rounding, not to the bit.
//
// Use: Add each step's inputs, Forward, then for every step in order
// Output, a backward pass on the caller's tape through the returned node,
// Accumulate; finally Backward adds the layers' parameter gradients to
// their Grad and forgets the steps. A version is never merged with an
// earlier one of equal bits: its Jacobian may differ (a ReLU input that
// changed sign in a row whose output stayed 0).
//
// An ECCSegment is not safe for concurrent use.
type ECCSegment struct {
	layers []*ECC
	g      *Graph
	in     [][]int // per node, its incoming edges in edge order
	f      int

	xs, efs [][]float64 // the steps' inputs (the caller's slices)
	zero    []float64   // the input row of a node after a step's given rows
	// tabs[0] holds the input rows' versions, tabs[li+1] layer li's
	// output rows'; edge holds the edges' (no values: a version's
	// features are efs[start]).
	tabs []segVersions
	edge segVersions
	lay  []segLayer
	// y holds one layer's products Y = h·Msᵀ per input version in the
	// forward pass, their gradient in the backward pass: no layer's
	// backward pass reads Y (edge features take no gradient), so one
	// buffer serves every layer.
	y []float64

	// reads[li] marks the rows of layer li's output that have versions
	// and srcs[li] the rows whose input versions' products Y are
	// computed, nil for all (Reads); readRows are the rows given.
	reads, srcs [][]bool
	readRows    []int

	cur []int // per node, its version in the last table at step at
	at  int
	// fresh: Output has not run since Forward; moved: the nodes whose
	// version the last Output changed (it rewrote their leaf rows).
	fresh bool
	moved []bool
	leaf  Node
	// head, if set (SetHead), is a product [out_u, x_u]·W for the rows
	// headRows of the last layer's output: one product row per version
	// of those rows (a row's input changes make it a new output version),
	// hc the rows [out_u, x_u] and hval their products, hgrad the
	// products' gradients; hoff[i] is head row i's first.
	head            *Linear
	headRows        []int
	hoff            []int
	hc, hval, hgrad []float64
	hleaf           Node
	hout            bool // HeadOutput's hleaf was handed out since the last Output
	// clean: the leaf's gradient is all 0 (Accumulate cleared what it
	// added), so the next Output need not clear it.
	clean bool
	hvers Node // HeadVersions' node: Data hval, Grad hgrad
	hrows []int
	chg   []int
	agg   []float64
	coef  []float64
	// coefs holds one output version's messages' coefficients, edge
	// after edge, and seq is 0, 1, 2, …: aggregateFrom's scratch.
	coefs []float64
	seq   []int
	// Rows is the number of row versions computed over all layers since
	// the segment was made (ECCStack.Rows counts the same for its passes).
	Rows int
}

// segVersions is a table of row versions: row u's are first[u] to
// first[u+1]−1, in order of their first step (start), the first at step
// 0; each has w values and their gradient.
type segVersions struct {
	w     int
	first []int
	start []int
	val   []float64
	grad  []float64
}

// at returns the index of row u's version at step s.
func (v *segVersions) at(u, s int) int {
	// The last of row u's versions starting at or before s: the first
	// is at step 0.
	lo, hi := v.first[u], v.first[u+1]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if v.start[mid] <= s {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// segLayer holds what one layer's backward pass reads: per output
// version [h, agg + b] (then its gradient, in place) and the input
// versions it read (its own row's, then its incoming edges' sources' in
// edge order, with the edges' versions).
type segLayer struct {
	cat         []float64
	self        []int
	srcs, evs   []int // per output version, from off[r] on
	off         []int
	ms, mt, dms []float64
}

// NewECCSegment returns an empty segment of layers over g.
func NewECCSegment(layers []*ECC, g *Graph) *ECCSegment {
	s := &ECCSegment{layers: layers, tabs: make([]segVersions, len(layers)+1), lay: make([]segLayer, len(layers))}
	if len(layers) > 0 {
		s.f = layers[0].FilterW.Rows
	}
	s.Retarget(g)
	return s
}

// Retarget makes s a segment of the same layers over g and forgets its
// steps.
func (s *ECCSegment) Retarget(g *Graph) {
	s.xs, s.efs = s.xs[:0], s.efs[:0]
	if g == s.g {
		return
	}
	s.reads, s.srcs, s.readRows = nil, nil, nil
	if s.g == nil || len(s.in) != g.Nodes {
		s.in = make([][]int, g.Nodes)
	}
	for u := range s.in {
		s.in[u] = s.in[u][:0]
	}
	for e, u := range g.Dst {
		s.in[u] = append(s.in[u], e)
	}
	s.g = g
}

// SetHead makes the segment compute, for each of the output rows rows
// (in that order), the product [out_u, x_u]·W of l's weights (no bias:
// add l.B on the tape) with the row's output and input at each step,
// as LinearRows computes a changed row; HeadOutput gives a step's
// products, and the segment's Backward takes their gradient through W
// and the stack. Set it after Retarget, before the steps' Forward; nil
// removes it.
func (s *ECCSegment) SetHead(l *Linear, rows []int) {
	s.head, s.headRows = l, rows
	if l == nil {
		return
	}
	n := s.g.Nodes
	for _, u := range rows {
		if u < 0 || u >= n {
			panic(fmt.Sprintf("nn: ECCSegment.SetHead: row %d of %d nodes", u, n))
		}
	}
}

// Reads restricts the segment to the rows of the last layer's output
// the caller reads (nil: every row), as ECCStack.Reads does: a layer's
// rows that no read row depends on get no versions, so Output holds
// stale values there, and their gradient must stay 0. The read rows'
// values are those of a whole segment, and so are the gradients: a row
// left out would have added only zeros (a gradient of 0 times finite
// values), which change no sum. Set it after Retarget, which lifts it
// when the graph changes; setting the same rows again costs nothing.
func (s *ECCSegment) Reads(rows []int) {
	if rows == nil {
		s.reads, s.srcs, s.readRows = nil, nil, nil
		return
	}
	if s.reads != nil && slices.Equal(rows, s.readRows) {
		return
	}
	s.reads, s.srcs = readSets("ECCSegment", s.g, s.in, len(s.layers), rows)
	s.readRows = append(s.readRows[:0], rows...)
}

// Len returns the number of steps added since the last Backward.
func (s *ECCSegment) Len() int { return len(s.xs) }

// Add appends a step of node states x (rows × the first layer's width,
// the first rows of the graph's nodes; the nodes after them have zero
// states, as ECCStack.Forward's) and edge features ef (edges × f). The
// slices are kept, not copied, and must not change before Backward.
func (s *ECCSegment) Add(x, ef []float64) {
	n, m := s.g.Nodes, s.g.Edges()
	if len(s.layers) > 0 {
		if d0 := s.layers[0].W.Rows / 2; len(x) > n*d0 || len(x)%d0 != 0 || len(ef) != m*s.f {
			panic(fmt.Sprintf("nn: ECCSegment.Add of %d states and %d edge features for %d nodes of width %d and %d edges of %d", len(x), len(ef), n, d0, m, s.f))
		}
	}
	s.xs, s.efs = append(s.xs, x), append(s.efs, ef)
}

// versionsOf fills t with the versions of rows rows of width w, row u at
// step st being rowAt(st, u): a new version wherever the bits change.
func versionsOf(t *segVersions, rows, w, steps int, rowAt func(st, u int) []float64, keep bool) {
	t.w = w
	t.first = resizeInts(t.first, rows+1)
	t.start, t.val = t.start[:0], t.val[:0]
	for u := 0; u < rows; u++ {
		t.first[u] = len(t.start)
		for st := 0; st < steps; st++ {
			r := rowAt(st, u)
			if st > 0 && sameBits(r, rowAt(st-1, u)) {
				continue
			}
			t.start = append(t.start, st)
			if keep {
				t.val = append(t.val, r...)
			}
		}
	}
	t.first[rows] = len(t.start)
}

func resizeBools(s []bool, n int) []bool {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]bool, n)
}

func resizeInts(s []int, n int) []int {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int, n)
}

// Forward computes every step's layers, one version of each row per run
// of steps over which its inputs stay the same.
func (s *ECCSegment) Forward() {
	n, f, steps := s.g.Nodes, s.f, len(s.xs)
	if steps == 0 || len(s.layers) == 0 {
		return
	}
	d0 := s.layers[0].W.Rows / 2
	s.zero = resize(s.zero, d0)
	clear(s.zero)
	versionsOf(&s.tabs[0], n, d0, steps, func(st, u int) []float64 {
		if x := s.xs[st]; (u+1)*d0 <= len(x) {
			return x[u*d0 : (u+1)*d0]
		}
		return s.zero // a node after the step's given rows
	}, true)
	versionsOf(&s.edge, s.g.Edges(), f, steps, func(st, e int) []float64 { return s.efs[st][e*f : (e+1)*f] }, false)
	for li, l := range s.layers {
		in, out, ly := &s.tabs[li], &s.tabs[li+1], &s.lay[li]
		d, ow := l.W.Rows/2, l.W.Cols
		yw := (f + 1) * d
		ly.ms = resize(ly.ms, yw*d)
		copy(ly.ms, l.FilterW.Data)
		copy(ly.ms[f*d*d:], l.FilterB.Data)
		ly.mt = resize(ly.mt, d*yw)
		transposeInto(ly.mt, general(yw, d, d, ly.ms))
		nv := len(in.start)
		s.y = resize(s.y, nv*yw)
		s.products(li, in, d, ly.mt, yw)
		// A row's output changes where its own input, a source's or an
		// incoming edge's features do.
		out.w = ow
		out.first = resizeInts(out.first, n+1)
		out.start = out.start[:0]
		ly.self, ly.srcs, ly.evs, ly.off = ly.self[:0], ly.srcs[:0], ly.evs[:0], ly.off[:0]
		for v := 0; v < n; v++ {
			out.first[v] = len(out.start)
			if s.reads != nil && !s.reads[li][v] {
				continue // no versions: read by nothing
			}
			chg := append(s.chg[:0], in.start[in.first[v]:in.first[v+1]]...)
			for _, e := range s.in[v] {
				src := s.g.Src[e]
				chg = append(chg, in.start[in.first[src]+1:in.first[src+1]]...)
				chg = append(chg, s.edge.start[s.edge.first[e]+1:s.edge.first[e+1]]...)
			}
			sort.Ints(chg)
			for i, st := range chg {
				if i > 0 && st == chg[i-1] {
					continue
				}
				out.start = append(out.start, st)
				ly.self = append(ly.self, in.at(v, st))
				ly.off = append(ly.off, len(ly.srcs))
				for _, e := range s.in[v] {
					ly.srcs = append(ly.srcs, in.at(s.g.Src[e], st))
					ly.evs = append(ly.evs, s.edge.at(e, st))
				}
			}
			s.chg = chg
		}
		out.first[n] = len(out.start)
		ly.off = append(ly.off, len(ly.srcs))
		r := len(out.start)
		// [h, agg + b] for every output version, as ECCStack.Forward
		// computes a changed row.
		ly.cat = resize(ly.cat, r*2*d)
		s.agg = resize(s.agg, d)
		for v := 0; v < n; v++ {
			for k := out.first[v]; k < out.first[v+1]; k++ {
				cat := ly.cat[k*2*d : (k+1)*2*d]
				copy(cat[:d], in.val[ly.self[k]*d:(ly.self[k]+1)*d])
				clear(s.agg)
				deg := len(s.in[v])
				s.coefs = resize(s.coefs, deg*(f+1))
				for i, e := range s.in[v] {
					ev := s.edge.start[ly.evs[ly.off[k]+i]]
					messageCoefs(s.coefs[i*(f+1):(i+1)*(f+1)], s.g.invDeg[v], s.efs[ev], e, f)
				}
				s.seq = aggregateFrom(s.agg, s.coefs, s.y[:nv*yw], yw, ly.srcs[ly.off[k]:ly.off[k]+deg], f, s.seq)
				floats.AddScaledTo(cat[d:], s.agg, 1, l.B.Data)
			}
		}
		out.val = resize(out.val, r*ow)
		gemm(false, false, 1, general(r, 2*d, 2*d, ly.cat), general(2*d, ow, ow, l.W.Data), 0, general(r, ow, ow, out.val))
		for i, x := range out.val {
			out.val[i] = max(x, 0)
		}
		s.Rows += r
	}
	if s.head != nil {
		s.headForward()
	}
	for i := 1; i < len(s.tabs); i++ { // the inputs take no gradient
		s.tabs[i].grad = resize(s.tabs[i].grad, len(s.tabs[i].val))
		clear(s.tabs[i].grad)
	}
	s.fresh = true
	s.cur = resizeInts(s.cur, n)
	last := &s.tabs[len(s.layers)]
	copy(s.cur, last.first[:n])
	s.at = -1
}

// products sets the rows of s.y, Y = h·Msᵀ, of layer li's input
// versions: those of the rows whose products the layer reads (Reads),
// or all. Each element is one chain of gemm's whichever rows share a
// call, so runs of versions give a whole product's bits.
func (s *ECCSegment) products(li int, in *segVersions, d int, mt []float64, yw int) {
	if s.srcs == nil {
		nv := len(in.start)
		gemm(false, false, 1, general(nv, d, d, in.val), general(d, yw, yw, mt), 0, general(nv, yw, yw, s.y))
		return
	}
	src := s.srcs[li]
	for u := 0; u < len(src); {
		if !src[u] {
			u++
			continue
		}
		v := u
		for v < len(src) && src[v] {
			v++
		}
		lo, hi := in.first[u], in.first[v]
		if hi > lo {
			gemm(false, false, 1, general(hi-lo, d, d, in.val[lo*d:hi*d]), general(d, yw, yw, mt), 0, general(hi-lo, yw, yw, s.y[lo*yw:hi*yw]))
		}
		u = v
	}
}

// headForward computes the head's products, one per version of each
// head row.
func (s *ECCSegment) headForward() {
	last, in0 := &s.tabs[len(s.layers)], &s.tabs[0]
	ow, d0 := last.w, in0.w
	w := ow + d0
	if s.head.W.Rows != w {
		panic(fmt.Sprintf("nn: ECCSegment head of %d inputs for outputs of %d and inputs of %d", s.head.W.Rows, ow, d0))
	}
	hw := s.head.W.Cols
	s.hoff = resizeInts(s.hoff, len(s.headRows)+1)
	nv := 0
	for i, u := range s.headRows {
		s.hoff[i] = nv
		nv += last.first[u+1] - last.first[u]
	}
	s.hoff[len(s.headRows)] = nv
	s.hc = resize(s.hc, nv*w)
	for i, u := range s.headRows {
		for k := last.first[u]; k < last.first[u+1]; k++ {
			row := s.hc[(s.hoff[i]+k-last.first[u])*w:]
			copy(row[:ow], last.val[k*ow:(k+1)*ow])
			x := in0.at(u, last.start[k])
			copy(row[ow:w], in0.val[x*d0:(x+1)*d0])
		}
	}
	s.hval = resize(s.hval, nv*hw)
	gemm(false, false, 1, general(nv, w, w, s.hc), general(w, hw, hw, s.head.W.Data), 0, general(nv, hw, hw, s.hval))
	s.hgrad = resize(s.hgrad, nv*hw)
	clear(s.hgrad)
}

// Output returns step st's output (nodes × the last layer's width) as a
// node outside any tape that gathers a gradient, as a parameter does:
// record operators on it, run Backward, then Accumulate before the next
// Output. Steps go in order, each once.
func (s *ECCSegment) Output(st int) *Node {
	if st <= s.at || st >= len(s.xs) {
		panic(fmt.Sprintf("nn: ECCSegment.Output of step %d after %d, of %d", st, s.at, len(s.xs)))
	}
	s.at = st
	last := &s.tabs[len(s.layers)]
	w, n := last.w, s.g.Nodes
	// The first Output after Forward writes every row; a later one only
	// the rows whose version changed (the leaves are the segment's, and
	// nothing else writes them).
	first := s.fresh
	s.fresh = false
	s.leaf.Rows, s.leaf.Cols, s.leaf.needGrad = n, w, true
	s.leaf.Data = resize(s.leaf.Data, n*w)
	// Accumulate leaves the gradient all 0 (it clears the rows it
	// adds); without it since the last Output it is cleared here.
	if len(s.leaf.Grad) != n*w || !s.clean {
		s.leaf.Grad = resize(s.leaf.Grad, n*w)
		clear(s.leaf.Grad)
	}
	s.clean = false
	s.moved = resizeBools(s.moved, n)
	for u := 0; u < n; u++ {
		k := s.cur[u]
		if k == last.first[u+1] { // no versions (Reads)
			s.moved[u] = false
			continue
		}
		for k+1 < last.first[u+1] && last.start[k+1] <= st {
			k++
		}
		s.moved[u] = first || k != s.cur[u]
		s.cur[u] = k
		if s.moved[u] {
			copy(s.leaf.Data[u*w:(u+1)*w], last.val[k*w:(k+1)*w])
		}
	}
	s.hout = false
	return &s.leaf
}

// HeadOutput returns the head's products (one row per head row) at the
// step of the last Output, as a node that gathers a gradient as Output's
// does.
func (s *ECCSegment) HeadOutput() *Node {
	if s.head == nil || s.at < 0 {
		panic("nn: ECCSegment.HeadOutput without a head or before Output")
	}
	last := &s.tabs[len(s.layers)]
	hw, m := s.head.W.Cols, len(s.headRows)
	s.hleaf.Rows, s.hleaf.Cols, s.hleaf.needGrad = m, hw, true
	s.hleaf.Data = resize(s.hleaf.Data, m*hw)
	s.hleaf.Grad = resize(s.hleaf.Grad, m*hw)
	clear(s.hleaf.Grad)
	for i, u := range s.headRows {
		k := s.hoff[i] + s.cur[u] - last.first[u]
		copy(s.hleaf.Data[i*hw:(i+1)*hw], s.hval[k*hw:(k+1)*hw])
	}
	s.hout = true
	return &s.hleaf
}

// HeadVersions returns every version's head product as one node (a row
// per version) whose gradient rows are the versions' own, and the row
// of each head row at the step of the last Output: an operator that
// reads a head row i at row rows[i] (ReLUScoreRows) adds its gradient
// straight to the version, without HeadOutput's copies of the rows and
// of their gradients, with the same sums (a version's gradient is added
// in the order of the steps either way). The rows belong to the segment
// and change at the next Output.
func (s *ECCSegment) HeadVersions() (*Node, []int) {
	if s.head == nil || s.at < 0 {
		panic("nn: ECCSegment.HeadVersions without a head or before Output")
	}
	last := &s.tabs[len(s.layers)]
	hw := s.head.W.Cols
	nv := s.hoff[len(s.headRows)]
	s.hvers.Rows, s.hvers.Cols, s.hvers.needGrad = nv, hw, true
	s.hvers.Data, s.hvers.Grad = s.hval[:nv*hw], s.hgrad[:nv*hw]
	s.hrows = s.hrows[:0]
	for i, u := range s.headRows {
		s.hrows = append(s.hrows, s.hoff[i]+s.cur[u]-last.first[u])
	}
	return &s.hvers, s.hrows
}

// Accumulate adds the gradient the last Output's node gathered to the
// versions its step read.
func (s *ECCSegment) Accumulate() {
	last := &s.tabs[len(s.layers)]
	w := last.w
	// A row whose gradient is 0 adds +0s (a node the loss does not
	// reach; a candidate the mask leaves out): skipped. A row added is
	// cleared, so that the next Output need not clear them all; a
	// skipped row may keep a −0, which changes no sum the versions
	// receive (they start at +0, and x + −0 is x + +0 for any x ≠ −0).
	for u, k := range s.cur {
		if g := s.leaf.Grad[u*w : (u+1)*w]; !allZero(g) {
			if k == last.first[u+1] {
				panic(fmt.Sprintf("nn: ECCSegment: a gradient at row %d, which Reads leaves out", u))
			}
			addTo(last.grad[k*w:(k+1)*w], g)
			clear(g)
		}
	}
	s.clean = true
	if s.head != nil && s.hout {
		hw := s.head.W.Cols
		for i, u := range s.headRows {
			if g := s.hleaf.Grad[i*hw : (i+1)*hw]; !allZero(g) {
				k := s.hoff[i] + s.cur[u] - last.first[u]
				addTo(s.hgrad[k*hw:(k+1)*hw], g)
			}
		}
	}
}

// Backward back-propagates the gradients the steps accumulated through
// the layers, once per version, adds the layers' parameter gradients to
// their Grad, and forgets the steps.
func (s *ECCSegment) Backward() {
	n, f := s.g.Nodes, s.f
	if len(s.xs) == 0 || len(s.layers) == 0 {
		s.xs, s.efs = s.xs[:0], s.efs[:0]
		return
	}
	if s.head != nil {
		// Through the head: W's gradient, and the output rows' (the
		// inputs take none).
		last := &s.tabs[len(s.layers)]
		ow, hw, w := last.w, s.head.W.Cols, s.head.W.Rows
		nv := s.hoff[len(s.headRows)]
		gemm(true, false, 1, general(nv, w, w, s.hc), general(nv, hw, hw, s.hgrad), 1, general(w, hw, hw, s.head.W.Grad))
		dc := s.hc // read: its gradient takes its place
		gemm(false, true, 1, general(nv, hw, hw, s.hgrad), general(w, hw, hw, s.head.W.Data), 0, general(nv, w, w, dc))
		for i, u := range s.headRows {
			for k := last.first[u]; k < last.first[u+1]; k++ {
				addTo(last.grad[k*ow:(k+1)*ow], dc[(s.hoff[i]+k-last.first[u])*w:][:ow])
			}
		}
	}
	for li := len(s.layers) - 1; li >= 0; li-- {
		l, in, out, ly := s.layers[li], &s.tabs[li], &s.tabs[li+1], &s.lay[li]
		d, ow := l.W.Rows/2, l.W.Cols
		yw := (f + 1) * d
		r, nv := len(out.start), len(in.start)
		dz := out.grad
		for i, x := range out.val {
			if !(x > 0) { // relu(z) > 0 exactly where z > 0
				dz[i] = 0
			}
		}
		gemm(true, false, 1, general(r, 2*d, 2*d, ly.cat), general(r, ow, ow, dz), 1, general(2*d, ow, ow, l.W.Grad))
		// [h, agg + b] is read: its gradient takes its place.
		dcat := ly.cat
		gemm(false, true, 1, general(r, ow, ow, dz), general(2*d, ow, ow, l.W.Data), 0, general(r, 2*d, 2*d, dcat))
		dy := resize(s.y, nv*yw)
		s.y = dy
		clear(dy)
		for v := 0; v < n; v++ {
			for k := out.first[v]; k < out.first[v+1]; k++ {
				dc := dcat[k*2*d : (k+1)*2*d]
				dagg := dc[d:]
				addTo(l.B.Grad, dagg)
				if li > 0 {
					addTo(in.grad[ly.self[k]*d:(ly.self[k]+1)*d], dc[:d])
				}
				for i, e := range s.in[v] {
					src, ev := ly.srcs[ly.off[k]+i], s.edge.start[ly.evs[ly.off[k]+i]]
					s.coef = messageCoefs(s.coef, s.g.invDeg[v], s.efs[ev], e, f)
					spreadMessage(dy[src*yw:(src+1)*yw], s.coef, dagg)
				}
			}
		}
		ly.dms = resize(ly.dms, yw*d)
		gemm(true, false, 1, general(nv, yw, yw, dy), general(nv, d, d, in.val), 0, general(yw, d, d, ly.dms))
		floats.Add(l.FilterW.Grad, ly.dms[:f*d*d])
		floats.Add(l.FilterB.Grad, ly.dms[f*d*d:])
		if li > 0 {
			gemm(false, false, 1, general(nv, yw, yw, dy), general(yw, d, d, ly.ms), 1, general(nv, d, d, in.grad))
		}
	}
	s.xs, s.efs = s.xs[:0], s.efs[:0]
}

// allZero reports whether every value of g is 0 (+0 or −0).
func allZero(g []float64) bool {
	for _, v := range g {
		if v != 0 {
			return false
		}
	}
	return true
}
