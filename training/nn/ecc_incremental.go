package nn

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/floats"
)

// ECCStack is an inference-only pass of a stack of ECC layers over one
// graph that remembers its inputs and every layer's intermediate values,
// so that a pass on inputs that differ in a few node rows or edge rows
// recomputes only what those rows reach: a node's output changes when its
// own input or a message into it changes, so each layer widens the changed
// set by one hop. A scheduler placing one task after another changes a
// handful of nodes of a graph of hundreds between its decisions.
//
// The values are bit-identical to ECC.Forward's on a tape (ECC.ForwardRows'
// for a last layer restricted by Only; the tests compare them on random
// changes) while the parameters are finite: every row is computed by the
// same kernels in the same order (a product row by row, messages summed
// over a node's incoming edges in edge order), only fewer rows are, and a
// row whose input is all zero skips the update's terms that are +0.
//
// An ECCStack reads the layers' parameters: call Invalidate after they
// change. It is not safe for concurrent use.
type ECCStack struct {
	eccGraph

	valid  bool
	x, ef  []float64   // the last inputs, x with every node's row
	rx     int         // the rows of x the last Forward was given
	y, agg [][]float64 // per layer: H·Msᵀ (nodes × (f+1)d) and the aggregation (nodes × d)
	z, h   [][]float64 // per layer: [h, agg + b]·W and its ReLU, the output (nodes × out)
	mt     [][]float64 // per layer: Msᵀ (d × (f+1)d), as EdgeConv builds it
	// The last layer of a stack restricted by Only sums each row's
	// messages before the filter's product (EdgeConvRows): mc is its Mc,
	// a its rows' sums A (nodes × (f+1)d, Only's rows alone written) and
	// aOnly, aggOnly the same rows gathered for RecordLayers.
	mc, a, aOnly, aggOnly []float64
	ms                    []float64 // scratch: one layer's Ms

	dirty, next []bool
	aggr        []bool // rows whose aggregation changes (a source's or an edge's change)
	// reads[li] marks the rows of layer li's output that are computed
	// and srcs[li] the rows whose products H·Msᵀ are, nil for all
	// (Reads): the rows the caller reads of the last layer's output and
	// every row they depend on.
	reads, srcs [][]bool
	only        []bool // Only's rows of the last layer, nil for all
	onlyRows    []int  // the same rows, ascending
	zOnly       []float64
	edgeDst     []bool // destinations of the edges whose features changed
	rows        []int
	zrows       []int // the rows of the update whose input is all zero
	byDeg       []int // aggregateRows' scratch
	scattered   []int // productRows' scratch
	buf, out    []float64
	// coef holds each edge's message coefficients (messageCoefs: f+1
	// values), kept while its features and destination hold: the same
	// bits as computing them at every message, which cost as much as
	// the message's sums at the inter-scheduler stack's width.
	coef []float64
	// Rows is the number of node rows recomputed over all layers since
	// the stack was made (a full pass counts nodes × layers).
	Rows int
}

// NewECCStack returns the cache of layers over g; its first Forward is a
// full pass.
func NewECCStack(layers []*ECC, g *Graph) *ECCStack {
	s := &ECCStack{eccGraph: eccGraph{layers: layers}}
	s.Retarget(g)
	return s
}

// Invalidate forgets the cached pass (the parameters moved).
func (s *ECCStack) Invalidate() { s.valid = false }

// Only restricts the last layer to rows (nil: every row), for a caller
// that reads no other row of its output: Forward then computes no
// other, and the others hold stale values (the output and Layer);
// RecordLayers records the last layer at those rows only. The
// restricted layer sums each row's messages before the filter's product,
// as ECC.ForwardRows does (its bits, not ECC.Forward's). Retarget lifts
// it.
func (s *ECCStack) Only(rows []int) {
	s.valid = false
	if rows != nil && s.reads != nil {
		panic("nn: ECCStack.Only on a stack restricted by Reads")
	}
	if rows == nil {
		s.only, s.onlyRows = nil, nil
		return
	}
	s.only = make([]bool, s.g.Nodes)
	for _, u := range rows {
		if u < 0 || u >= s.g.Nodes {
			panic(fmt.Sprintf("nn: ECCStack.Only: row %d of %d nodes", u, s.g.Nodes))
		}
		s.only[u] = true
	}
	s.onlyRows = s.onlyRows[:0]
	for u, keep := range s.only {
		if keep {
			s.onlyRows = append(s.onlyRows, u)
		}
	}
}

// Reads restricts the stack to the rows of the last layer's output
// the caller reads (nil: every row): Forward then computes, at every
// layer, only the rows those depend on (a row's own and its sources'
// at the layer before), each with the bits of a whole pass, and the
// other rows of the output and of Layer hold stale values. A stack
// restricted by Reads cannot be recorded (Record, RecordLayers) nor
// restricted by Only. Retarget lifts it.
//
// The MARL actor reads its inner stacks at the candidate rows alone:
// the last layer's switch rows, which nothing reads, were about a
// quarter of the rows its incremental passes recomputed.
func (s *ECCStack) Reads(rows []int) {
	s.valid = false
	if rows == nil {
		s.reads, s.srcs = nil, nil
		return
	}
	if s.only != nil {
		panic("nn: ECCStack.Reads on a stack restricted by Only")
	}
	s.reads, s.srcs = readSets("ECCStack", s.g, s.in, len(s.layers), rows)
}

// readSets returns, for a stack of layers over g (in: each node's
// incoming edges) whose last output is read at rows, each layer's
// output rows those depend on (reads) and the rows whose products
// H·Msᵀ the layer reads (srcs: the sources of its reads rows).
func readSets(who string, g *Graph, in [][]int, layers int, rows []int) (reads, srcs [][]bool) {
	n := g.Nodes
	need := make([]bool, n)
	for _, u := range rows {
		if u < 0 || u >= n {
			panic(fmt.Sprintf("nn: %s.Reads: row %d of %d nodes", who, u, n))
		}
		need[u] = true
	}
	reads, srcs = make([][]bool, layers), make([][]bool, layers)
	for li := layers - 1; li >= 0; li-- {
		reads[li] = need
		src, prev := make([]bool, n), slices.Clone(need)
		for u, ok := range need {
			if !ok {
				continue
			}
			for _, e := range in[u] {
				src[g.Src[e]], prev[g.Src[e]] = true, true
			}
		}
		srcs[li], need = src, prev
	}
	return reads, srcs
}

// Retarget makes s the stack of the same layers over g, as
// NewECCStack(layers, g) would, keeping its buffers when g has as many
// nodes: one stack serves several graphs in turn (a learner's partitions,
// a segment at a time) in the memory of one. Its next Forward is a full
// pass.
func (s *ECCStack) Retarget(g *Graph) {
	s.valid, s.only, s.onlyRows = false, nil, nil
	s.reads, s.srcs = nil, nil
	if g == s.g {
		return
	}
	if s.link(g) {
		s.y = nil // Forward's full pass sizes the layers' buffers anew
		s.dirty, s.next = make([]bool, g.Nodes), make([]bool, g.Nodes)
	}
}

// eccGraph is what an incremental pass over a stack of ECC layers keeps
// of its graph (ECCStack, ECCStack32).
type eccGraph struct {
	layers []*ECC
	g      *Graph
	in     [][]int // per node, its incoming edges in edge order
	succ   [][]int // per node, the destinations of its outgoing edges
}

// link points the pass at g, rebuilding in and succ (in their old rows
// when g has as many nodes as the last graph), and reports whether the
// node count changed or there was none.
func (s *eccGraph) link(g *Graph) (resized bool) {
	resized = s.g == nil || g.Nodes != s.g.Nodes
	if resized {
		s.in, s.succ = make([][]int, g.Nodes), make([][]int, g.Nodes)
	}
	for u := range s.in {
		s.in[u], s.succ[u] = s.in[u][:0], s.succ[u][:0]
	}
	for e, u := range g.Dst {
		s.in[u] = append(s.in[u], e)
		s.succ[g.Src[e]] = append(s.succ[g.Src[e]], u)
	}
	s.g = g
	return resized
}

// Forward returns the last layer's output (nodes × out, row-major) for
// node states x and edge features ef (edges × f). x holds the states of
// the graph's first rows (rows × the first layer's width, rows ≤ nodes):
// the nodes after them have zero states (a graph whose featureless nodes
// come last need not store them). The result belongs to the stack and
// changes on its next Forward.
func (s *ECCStack) Forward(x, ef []float64) []float64 {
	n, m := s.g.Nodes, s.g.Edges()
	if len(s.layers) == 0 {
		return x
	}
	f := s.layers[0].FilterW.Rows
	d0 := s.layers[0].W.Rows / 2
	if len(x) > n*d0 || len(x)%d0 != 0 || len(ef) != m*f {
		panic(fmt.Sprintf("nn: ECCStack.Forward of %d states and %d edge features for %d nodes of width %d and %d edges of %d", len(x), len(ef), n, d0, m, f))
	}
	full := !s.valid
	if full {
		// A full pass writes every row: the buffers of an earlier one
		// (the parameters moved since) are reused as they are.
		if len(s.y) != len(s.layers) {
			s.y, s.agg, s.z, s.h, s.mt = nil, nil, nil, nil, nil
			for _, l := range s.layers {
				d, out := l.W.Rows/2, l.W.Cols
				yw := (f + 1) * d
				s.mt = append(s.mt, make([]float64, d*yw))
				s.y = append(s.y, make([]float64, n*yw))
				s.agg = append(s.agg, make([]float64, n*d))
				s.z = append(s.z, make([]float64, n*out))
				s.h = append(s.h, make([]float64, n*out))
			}
		}
		for li, l := range s.layers {
			d := l.W.Rows / 2
			yw := (f + 1) * d
			s.ms = resize(s.ms, yw*d)
			copy(s.ms, l.FilterW.Data)
			copy(s.ms[f*d*d:], l.FilterB.Data)
			transposeInto(s.mt[li], general(yw, d, d, s.ms))
			if li == len(s.layers)-1 && s.only != nil {
				s.mc = resize(s.mc, yw*d)
				filterStack(s.mc, l.FilterW.Data, l.FilterB.Data, d, f)
				s.a = resize(s.a, n*yw)
			}
		}
		s.x = resize(s.x, n*d0)
		clear(s.x)
		s.rx = 0
		s.ef = append(s.ef[:0], ef...)
	}
	// Changed input rows and edges. A row after x's is 0: changed if the
	// last pass gave it.
	rx := len(x) / d0
	// Rows go by blocks, as edges do below: most hold.
	const rowBlock = 16
	for lo := 0; lo < n; lo += rowBlock {
		hi := min(lo+rowBlock, n)
		if !full && hi <= rx && sameBits(s.x[lo*d0:hi*d0], x[lo*d0:hi*d0]) {
			clear(s.dirty[lo:hi])
			continue
		}
		for u := lo; u < hi; u++ {
			s.dirty[u] = full || u < rx && !sameBits(s.x[u*d0:(u+1)*d0], x[u*d0:(u+1)*d0]) || u >= rx && u < s.rx
		}
		if lo < rx { // only the blocks that changed are copied
			copy(s.x[lo*d0:], x[lo*d0:min(hi, rx)*d0])
		}
	}
	if rx < s.rx {
		clear(s.x[len(x) : s.rx*d0])
	}
	s.rx = rx
	edgeChanged := func(e int) bool { return full || !sameBits(s.ef[e*f:(e+1)*f], ef[e*f:(e+1)*f]) }
	// Destinations of changed edges: their messages change at every layer.
	if len(s.edgeDst) != n {
		s.edgeDst = make([]bool, n)
	}
	edgeDst := s.edgeDst
	clear(edgeDst)
	s.coef = resize(s.coef, m*(f+1))
	// Blocks of edges whose features all hold are passed over with one
	// comparison: between a pod's decisions most of them do.
	const block = 64
	for lo := 0; lo < m; lo += block {
		hi := min(lo+block, m)
		if !full && sameBits(s.ef[lo*f:hi*f], ef[lo*f:hi*f]) {
			continue
		}
		for e := lo; e < hi; e++ {
			if edgeChanged(e) {
				u := s.g.Dst[e]
				edgeDst[u] = true
				messageCoefs(s.coef[e*(f+1):(e+1)*(f+1)], s.g.invDeg[u], ef, e, f)
			}
		}
		copy(s.ef[lo*f:hi*f], ef[lo*f:hi*f])
	}
	hin := s.x
	for li, l := range s.layers {
		d, out := l.W.Rows/2, l.W.Cols
		yw := (f + 1) * d
		y, agg, h := s.y[li], s.agg[li], s.h[li]
		restricted := li == len(s.layers)-1 && s.only != nil
		// H·Msᵀ for the changed input rows (a restricted last layer
		// aggregates first and needs none).
		s.rows = s.rows[:0]
		for u, c := range s.dirty {
			if c && !restricted && (s.srcs == nil || s.srcs[li][u]) {
				s.rows = append(s.rows, u)
			}
		}
		s.productRows(hin, d, s.mt[li], yw, y)
		// Nodes whose aggregation changes (a changed source or edge;
		// every node in a full pass, whose buffers may hold another
		// graph's), and whose output does: those and the changed rows.
		if len(s.aggr) != n {
			s.aggr = make([]bool, n)
		}
		for u := range s.aggr {
			s.aggr[u] = full || edgeDst[u]
		}
		for u, c := range s.dirty {
			if c {
				for _, v := range s.succ[u] {
					s.aggr[v] = true
				}
			}
		}
		for u := range s.next {
			s.next[u] = s.dirty[u] || s.aggr[u]
		}
		if s.reads != nil {
			for u, keep := range s.reads[li] {
				s.next[u] = s.next[u] && keep
			}
		}
		if restricted {
			for u, keep := range s.only {
				s.next[u] = s.next[u] && keep
			}
			s.rows = s.rows[:0]
			for u, c := range s.next {
				if c && s.aggr[u] {
					s.rows = append(s.rows, u)
				}
			}
			s.restrictedRows(hin, d, f, agg)
		}
		if !restricted {
			s.rows = s.rows[:0]
			for u, c := range s.next {
				if c && s.aggr[u] {
					s.rows = append(s.rows, u)
				}
			}
			s.byDeg = aggregateRows(agg, d, s.coef, y, yw, s.rows, s.in, s.g, f, s.byDeg)
		}
		// relu([h, agg + b]·W) for those nodes, as ECC.Forward records it.
		// Rows whose h is all zero (the MARL inter-scheduler graph's
		// switches at the first layer) go last and multiply W's lower
		// half alone: their chains' first d terms, fma(±0, w, +0) = +0
		// for a finite w, leave +0, so the same bits.
		s.rows, s.zrows = s.rows[:0], s.zrows[:0]
		for u, c := range s.next {
			switch {
			case !c:
			case allZero(hin[u*d : (u+1)*d]):
				s.zrows = append(s.zrows, u)
			default:
				s.rows = append(s.rows, u)
			}
		}
		r1 := len(s.rows)
		s.rows = append(s.rows, s.zrows...)
		r := len(s.rows)
		s.buf = resize(s.buf, r*2*d)
		for i, u := range s.rows {
			cat := s.buf[i*2*d : (i+1)*2*d]
			copy(cat[:d], hin[u*d:(u+1)*d])
			floats.AddScaledTo(cat[d:], agg[u*d:(u+1)*d], 1, l.B.Data)
		}
		s.out = resize(s.out, r*out)
		gemm(false, false, 1, general(r1, 2*d, 2*d, s.buf), general(2*d, out, out, l.W.Data), 0, general(r1, out, out, s.out))
		if r > r1 {
			gemm(false, false, 1, general(r-r1, d, 2*d, s.buf[r1*2*d+d:]), general(d, out, out, l.W.Data[d*out:]), 0, general(r-r1, out, out, s.out[r1*out:]))
		}
		s.Rows += r
		// Rows whose output did not change (to the bit) stop spreading.
		for u := range s.dirty {
			s.dirty[u] = false
		}
		z := s.z[li]
		for i, u := range s.rows {
			row, hr := s.out[i*out:(i+1)*out], h[u*out:(u+1)*out]
			copy(z[u*out:(u+1)*out], row)
			for j, v := range row {
				row[j] = max(v, 0)
			}
			if full || !sameBits(row, hr) {
				copy(hr, row)
				s.dirty[u] = true
			}
		}
		hin = h
	}
	s.valid = true
	return hin
}

// Record runs Forward on x and ef's values and records the layers on t
// as ECC.Forward records them, operator for operator, taking the
// products and aggregations from the pass instead of computing them
// again: the nodes hold the same bits, so Backward gives the gradients
// of the uncached layers. x and ef must be nodes of t (x may need a
// gradient); the stack must not run another Forward before t's
// Backward. Returns the last layer's output node (Only's rows alone on
// a restricted stack; see RecordLayers).
func (s *ECCStack) Record(t *Tape, x, ef *Node) *Node {
	if len(s.layers) == 0 {
		return x
	}
	hs := s.RecordLayers(t, x, ef, nil)
	return hs[len(hs)-1]
}

// RecordLayers is Record returning every layer's output node, appended
// to dst. On a stack restricted by Only, the last layer's node holds
// Only's rows alone, ascending (the ReLU of [h, h_N + b]·W at those
// rows): its gradients are the bits of a whole layer's whose other rows
// have a gradient of 0 (the parameters' sums over rows keep their
// order), without those rows' products.
func (s *ECCStack) RecordLayers(t *Tape, x, ef *Node, dst []*Node) []*Node {
	if s.reads != nil {
		panic("nn: ECCStack.RecordLayers of a stack restricted by Reads")
	}
	s.Forward(x.Data, ef.Data)
	h := x
	f := ef.Cols
	for li, l := range s.layers {
		z := s.z[li]
		var ec *Node
		if li == len(s.layers)-1 && s.only != nil {
			d, out := l.W.Rows/2, l.W.Cols
			yw := (f + 1) * d
			r := len(s.onlyRows)
			s.zOnly = resize(s.zOnly, r*out)
			s.aOnly = resize(s.aOnly, r*yw)
			s.aggOnly = resize(s.aggOnly, r*d)
			for i, u := range s.onlyRows {
				copy(s.zOnly[i*out:(i+1)*out], z[u*out:(u+1)*out])
				copy(s.aOnly[i*yw:(i+1)*yw], s.a[u*yw:(u+1)*yw])
				copy(s.aggOnly[i*d:(i+1)*d], s.agg[li][u*d:(u+1)*d])
			}
			ec = t.edgeConvRowsFrom(h, ef, l.FilterW, l.FilterB, s.g, s.onlyRows, s.aOnly, s.aggOnly, s.mc, s.coef)
			h, z = t.GatherRows(h, s.onlyRows), s.zOnly
		} else {
			ec = t.edgeConvFrom(h, ef, l.FilterW, l.FilterB, s.g, s.y[li], s.agg[li], s.coef)
		}
		cat := t.ConcatCols(h, t.Add(ec, l.B))
		h = t.ReLU(t.matMulFrom(cat, l.W, z))
		dst = append(dst, h)
	}
	return dst
}

// restrictedRows sets rows s.rows of the restricted last layer's sums
// s.a and aggregation agg from its input hin (width d), as EdgeConvRows
// computes them.
func (s *ECCStack) restrictedRows(hin []float64, d, f int, agg []float64) {
	r := len(s.rows)
	if r == 0 {
		return
	}
	yw := (f + 1) * d
	s.buf = resize(s.buf, r*yw)
	s.out = resize(s.out, r*d)
	edgeConvRows(s.out, s.buf, s.mc, hin, s.coef, s.g, s.rows, d, f)
	for i, u := range s.rows {
		copy(s.a[u*yw:(u+1)*yw], s.buf[i*yw:(i+1)*yw])
		copy(agg[u*d:(u+1)*d], s.out[i*d:(i+1)*d])
	}
}

// Layer returns layer i's output of the last Forward (nodes × its out
// width), owned by the stack.
func (s *ECCStack) Layer(i int) []float64 { return s.h[i] }

// productRows sets rows s.rows of y (row width yw) to the same rows of
// hin (width d) times mt (d × yw), as one product over all rows would.
//
// Runs of consecutive rows (a full pass is one) are multiplied in place,
// from hin into y, and only the scattered rows go through copies: each
// element of a product is one chain of its own (gemm), whichever rows
// share the call.
func (s *ECCStack) productRows(hin []float64, d int, mt []float64, yw int, y []float64) {
	const run = 8 // the shortest run multiplied in place
	rows := s.rows
	scattered := rows[:0:0]
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j] == rows[j-1]+1 {
			j++
		}
		if j-i >= run {
			lo, n := rows[i], j-i
			gemm(false, false, 1, general(n, d, d, hin[lo*d:(lo+n)*d]), general(d, yw, yw, mt), 0, general(n, yw, yw, y[lo*yw:(lo+n)*yw]))
		} else {
			if len(scattered) == 0 {
				scattered = s.scattered[:0]
			}
			scattered = append(scattered, rows[i:j]...)
		}
		i = j
	}
	if cap(scattered) > cap(s.scattered) {
		s.scattered = scattered[:0]
	}
	r := len(scattered)
	if r == 0 {
		return
	}
	s.buf = resize(s.buf, r*d)
	for i, u := range scattered {
		copy(s.buf[i*d:(i+1)*d], hin[u*d:(u+1)*d])
	}
	s.out = resize(s.out, r*yw)
	gemm(false, false, 1, general(r, d, d, s.buf), general(d, yw, yw, mt), 0, general(r, yw, yw, s.out))
	for i, u := range scattered {
		copy(y[u*yw:(u+1)*yw], s.out[i*yw:(i+1)*yw])
	}
}

// sameBits reports whether a and b hold the same float64 bit patterns
// (len(b) ≥ len(a)). The incremental passes compare every row they are
// given: an edge's few features, a node's tens of values. Rows of 8
// values or more are compared as bytes by bytes.Equal's vector loop
// (7.5 against 18 ns for 16 values, 8.7 against 40 for 64), shorter
// ones element by element, which is faster there (2 against 7 ns for 4).
func sameBits(a, b []float64) bool {
	if len(a) >= 8 {
		b = b[:len(a)]
		return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 8*len(a)), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 8*len(b)))
	}
	for i, v := range a {
		if math.Float64bits(v) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// LinearRows is an inference-only Linear (x·W + b) over inputs that
// change in few rows between calls: it keeps the last input and output
// and recomputes the changed rows only, each exactly as Linear.Forward
// on a tape computes it (one product row, then the bias). Call
// Invalidate after the parameters change. Not safe for concurrent use.
type LinearRows struct {
	l        *Linear
	valid    bool
	x, p, y  []float64 // the last input, x·W and x·W + b
	rows     []int
	buf, out []float64
	// Rows counts the rows recomputed since the cache was made.
	Rows int
}

// NewLinearRows returns an empty cache of l.
func NewLinearRows(l *Linear) *LinearRows { return &LinearRows{l: l} }

// Invalidate forgets the cached rows (the parameters moved).
func (c *LinearRows) Invalidate() { c.valid = false }

// Forward returns x·W + b for x of any number of rows of W's input width;
// the result belongs to the cache until its next Forward.
func (c *LinearRows) Forward(x []float64) []float64 {
	in, out := c.l.W.Rows, c.l.W.Cols
	if len(x)%in != 0 {
		panic(fmt.Sprintf("nn: LinearRows.Forward of %d values for rows of %d", len(x), in))
	}
	n := len(x) / in
	full := !c.valid || len(c.x) != len(x)
	if full {
		c.x = resize(c.x, len(x))
		c.p = resize(c.p, n*out)
		c.y = resize(c.y, n*out)
	}
	c.rows = c.rows[:0]
	for i := 0; i < n; i++ {
		if full || !sameBits(c.x[i*in:(i+1)*in], x[i*in:(i+1)*in]) {
			c.rows = append(c.rows, i)
			copy(c.x[i*in:(i+1)*in], x[i*in:(i+1)*in]) // the others hold
		}
	}
	r := len(c.rows)
	if r > 0 {
		c.buf = resize(c.buf, r*in)
		for k, i := range c.rows {
			copy(c.buf[k*in:(k+1)*in], x[i*in:(i+1)*in])
		}
		c.out = resize(c.out, r*out)
		gemm(false, false, 1, general(r, in, in, c.buf), general(in, out, out, c.l.W.Data), 0, general(r, out, out, c.out))
		for k, i := range c.rows {
			copy(c.p[i*out:(i+1)*out], c.out[k*out:(k+1)*out])
			floats.AddScaledTo(c.y[i*out:(i+1)*out], c.out[k*out:(k+1)*out], 1, c.l.B.Data)
		}
		c.Rows += r
	}
	c.valid = true
	return c.y
}

// Record runs Forward on x's values and records the layer on t as
// Linear.Forward records it, the product taken from the cache: the same
// bits, so Backward gives the gradients of the uncached layer. x must be
// a node of t (it may need a gradient).
func (c *LinearRows) Record(t *Tape, x *Node) *Node {
	c.Forward(x.Data)
	return t.Add(t.matMulFrom(x, c.l.W, c.p), c.l.B)
}
