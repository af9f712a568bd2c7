package nn

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// Node is a float64 matrix in a computation: a parameter, a constant, or the
// result of an operator recorded on a Tape. Data and Grad are row-major,
// Rows×Cols long. Grad holds ∂loss/∂node after Tape.Backward for nodes
// that depend on a parameter; for any other node it is nil or stale.
//
// Nodes made by a Tape belong to it: Tape.Reset recycles them, with their
// buffers, for the next step, so a caller must copy out any value it wants
// to keep across a Reset.
type Node struct {
	Rows, Cols int
	Data       []float64
	Grad       []float64

	// needGrad says whether the node depends on a parameter; only such
	// nodes get a gradient buffer and a backward pass.
	needGrad bool
	op       operator
	in       []*Node
	tapeIdx  int

	// Operator state. It lives in the node rather than in the operator
	// value so that recording an operator allocates nothing once the tape
	// has warmed up: operator values are empty structs, and these fields
	// (and their buffers) are reused after Reset.
	iarg  [2]int
	farg  [2]float64
	ints  []int  // caller-owned: gather indices, actions
	ints2 []int  // caller-owned: a second list (ReLUScoreRows' candidate rows)
	mask  []bool // caller-owned: key and action masks
	graph *Graph
	coef  []float64 // caller-owned: an edge convolution's message coefficients (ECCStack)
	aux   []float64 // operator-owned scratch kept across Reset
	iaux  []int
	aux2  []float64
	// own is the node's storage while Data is a caller's slice (View).
	own  []float64
	view bool
	// gradPass is the Tape.Backward call that last cleared Grad.
	gradPass uint64
	// param: the node is a parameter's (Params.New).
	param bool
}

// At returns the element at row i, column j.
func (n *Node) At(i, j int) float64 { return n.Data[i*n.Cols+j] }

// Scalar returns the value of a 1×1 node.
func (n *Node) Scalar() float64 {
	if n.Rows != 1 || n.Cols != 1 {
		panic(fmt.Sprintf("nn: Scalar of a %dx%d node", n.Rows, n.Cols))
	}
	return n.Data[0]
}

// operator is the backward half of a recorded operation: it adds the
// contribution of n.Grad to the gradients of n's operands that need one.
// The forward half is the Tape method that records it.
type operator interface {
	backward(t *Tape, n *Node)
}

// Tape records operators in the order they run so that Backward can replay
// them in reverse. A Tape is not safe for concurrent use; give each
// goroutine its own.
//
// Steady-state training reuses one Tape: Reset, build the same graph,
// Backward, step the optimiser. After the first step the Tape hands back
// the same nodes and buffers, so a step allocates (almost) nothing.
type Tape struct {
	nodes []*Node
	n     int
	flops int64
	err   error

	// defer_ and staged serve item-by-item passes that sum parameter
	// gradients as one batched pass would (DeferGrad).
	defer_ bool
	staged []stagedGrad
	// pass counts Backward calls: a node's gradient was cleared by this
	// one when its gradPass equals it.
	pass uint64
	// live is EdgeConv's backward scratch: the nodes whose gradient
	// is not 0.
	live []bool
	// elist and coefs are EdgeConv's backward scratch too: a source's
	// edges into live nodes, and the edges' message coefficients when
	// the op does not hold the ECCStack's.
	elist []int
	coefs []float64
	// keep, dyk and hk: the rows of dY and H that EdgeConv's filter
	// gradient reads, and those rows gathered.
	keep    []int
	dyk, hk []float64
	// scores is ReLUScoreRows' scratch: the scored candidates' values
	// or gradients.
	scores []float64
	// products holds each parameter's deferred matrix-product gradients
	// and its transpose (DeferGrad), in the order the parameters were
	// first met; product finds a parameter's.
	products []*paramProducts
	product  map[*Node]*paramProducts
}

// stagedGrad is a parameter gradient that an operator sums over rows into
// a buffer before adding it to the parameters (EdgeConv's filter): with
// DeferGrad the buffer outlives the pass, keyed by the operator's position
// on the tape, and FlushGrad adds it.
type stagedGrad struct {
	pos    int
	active bool
	params [2]*Node
	buf    []float64
}

// DeferGrad, when on, keeps the row-summed parameter gradients of
// operators that stage them (EdgeConv's filter weights and bias) across
// Backward calls instead of adding them to the parameters at the end of
// each; FlushGrad adds them. Items back-propagated one at a time then
// accumulate those gradients in the order one batched pass would: the
// staged sum is over every item's rows before it meets the parameter's
// gradient. It requires the same sequence of operators in every pass (the
// stage of an operator is its position on the tape).
//
// While deferring, a matrix product's gradient with respect to a
// parameter operand B (dB += Aᵀ·dC) is deferred as well: its rows of A
// and dC are kept, and one product over all of them, in the order they
// came, meets the parameter's gradient at FlushGrad (or when the rows
// kept reach a bound), the same chains of fused multiply-adds, hence the
// same bits, as one product per pass (gemm: each element one chain over
// the rows in order, from the gradient's value). The passes also read
// the parameter's transpose (dA += dC·Bᵀ) from one copy made at its
// first use, kept over flushes while the values stay the same. So,
// between DeferGrad(true) and FlushGrad, the parameters' values must
// not change and nothing but the tape may touch their gradients.
func (t *Tape) DeferGrad(on bool) { t.defer_ = on }

// paramProducts is a parameter's deferred product gradients: the rows of
// A (aw wide) and of dC (cw wide) of every product it was the right
// operand of since the last flush, and its transpose t of the values
// from (valid: checked against the parameter since the last FlushGrad).
type paramProducts struct {
	p       *Node
	a, dc   []float64
	rows    int
	aw, cw  int
	t, from []float64
	valid   bool
}

// maxDeferredRows bounds the rows a parameter's deferred products keep
// (about 1 MB for a 96 × 128 weight) before they meet its gradient.
const maxDeferredRows = 512

// paramProduct returns p's deferred products, registering p at its first
// use: the tape keeps its buffers for the next passes.
func (t *Tape) paramProduct(p *Node) *paramProducts {
	if pp := t.product[p]; pp != nil {
		return pp
	}
	if t.product == nil {
		t.product = map[*Node]*paramProducts{}
	}
	pp := &paramProducts{p: p}
	t.products = append(t.products, pp)
	t.product[p] = pp
	return pp
}

// transposed returns the parameter p's transpose (p.Cols × p.Rows). At
// its first use since the last FlushGrad it is made again only if p's
// values are not those it was made from, bit for bit: a learner whose
// parameters hold still over several flushes (the MARL trainer's
// segments of one interval) transposes them once, and comparing costs
// less than transposing.
func (t *Tape) transposed(p *Node) []float64 {
	pp := t.paramProduct(p)
	if !pp.valid {
		if len(pp.from) != len(p.Data) || !sameBits(pp.from, p.Data) {
			pp.t = resize(pp.t, len(p.Data))
			transposeInto(pp.t, general(p.Rows, p.Cols, p.Cols, p.Data))
			pp.from = append(pp.from[:0], p.Data...)
		}
		pp.valid = true
	}
	return pp.t
}

// deferProduct keeps the rows of a (r × aw) and dc (r × cw) of a product
// whose gradient with respect to the parameter p (aw × cw) is aᵀ·dc.
func (t *Tape) deferProduct(p *Node, a, dc []float64, r, aw, cw int) {
	pp := t.paramProduct(p)
	if pp.rows > 0 && (pp.aw != aw || pp.cw != cw) {
		panic(fmt.Sprintf("nn: deferred products of %dx%d and of %dx%d for one parameter", pp.aw, pp.cw, aw, cw))
	}
	pp.aw, pp.cw = aw, cw
	pp.a, pp.dc = append(pp.a, a[:r*aw]...), append(pp.dc, dc[:r*cw]...)
	if pp.rows += r; pp.rows >= maxDeferredRows {
		t.flushProduct(pp)
	}
}

// flushProduct adds pp's kept rows' product to its parameter's gradient.
func (t *Tape) flushProduct(pp *paramProducts) {
	if pp.rows > 0 {
		t.gemm(true, false, 1, general(pp.rows, pp.aw, pp.aw, pp.a), general(pp.rows, pp.cw, pp.cw, pp.dc), 1, general(pp.p.Rows, pp.p.Cols, pp.p.Cols, pp.p.Grad))
	}
	pp.a, pp.dc, pp.rows = pp.a[:0], pp.dc[:0], 0
}

// FlushGrad adds the staged gradients to their parameters, latest
// operator first (the order of one batched Backward), and clears them;
// the deferred products' too. The parameters' transposes are checked
// against their values at their next use.
func (t *Tape) FlushGrad() {
	for _, pp := range t.products {
		t.flushProduct(pp)
		pp.valid = false
	}
	for i := len(t.staged) - 1; i >= 0; i-- {
		st := &t.staged[i]
		if !st.active {
			continue
		}
		off := 0
		for _, p := range st.params {
			if p == nil {
				continue
			}
			if p.needGrad {
				floats.Add(p.Grad, st.buf[off:off+len(p.Data)])
			}
			off += len(p.Data)
		}
		st.active = false
	}
}

// stage returns the staging buffer (n values, zero on first use since the
// last flush) of the operator at tape position pos, whose parameters are
// params (their gradients laid end to end in the buffer).
func (t *Tape) stage(pos, n int, params [2]*Node) []float64 {
	i := 0
	for i < len(t.staged) && t.staged[i].pos < pos {
		i++
	}
	if i == len(t.staged) || t.staged[i].pos != pos {
		t.staged = slices.Insert(t.staged, i, stagedGrad{pos: pos})
	}
	st := &t.staged[i]
	if !st.active {
		st.active, st.params = true, params
		st.buf = resize(st.buf, n)
		clear(st.buf)
	}
	return st.buf
}

// Reset forgets the recorded operators but keeps their nodes and buffers
// for reuse. Nodes returned before the Reset must no longer be used.
func (t *Tape) Reset() {
	t.n = 0
	t.flops = 0
	t.err = nil
}

// Err returns the first numerical failure since the last Reset (only
// CholSolve can fail: *NotPositiveDefiniteError), or nil. Operators keep
// recording after a failure, with NaN results, so a forward pass can be
// written without checks and Err consulted once before Backward.
func (t *Tape) Err() error { return t.err }

func (t *Tape) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// Len returns the number of nodes recorded since the last Reset.
func (t *Tape) Len() int { return t.n }

// Flops returns the floating-point operations spent in matrix products
// (2·m·n·k per product, forward and backward) since the last Reset. It is
// what the benchmarks report as achieved GFLOP/s; element-wise work is not
// counted.
func (t *Tape) Flops() int64 { return t.flops }

// node returns a recycled node of the given shape recording op on inputs.
// Its Data has the right length but stale contents: the forward code must
// write every element.
func (t *Tape) node(op operator, rows, cols int, in ...*Node) *Node {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("nn: negative shape %dx%d", rows, cols))
	}
	var n *Node
	if t.n < len(t.nodes) {
		n = t.nodes[t.n]
	} else {
		n = new(Node)
		t.nodes = append(t.nodes, n)
	}
	n.tapeIdx = t.n
	t.n++
	n.Rows, n.Cols = rows, cols
	if n.view {
		// The node was a View: its Data is the caller's, never to be
		// written.
		n.Data, n.own, n.view = n.own, nil, false
	}
	n.Data = resize(n.Data, rows*cols)
	n.op = op
	n.in = append(n.in[:0], in...)
	n.needGrad = false
	for _, x := range in {
		if x.needGrad {
			n.needGrad = true
		}
	}
	n.ints, n.ints2, n.mask, n.graph, n.coef = nil, nil, nil, nil, nil
	n.iarg = [2]int{}
	n.farg = [2]float64{}
	return n
}

// Const records a constant (no gradient) rows×cols node holding a copy of
// data; nil data gives zeros. Use it for observations, targets and masks
// that enter the network.
func (t *Tape) Const(rows, cols int, data []float64) *Node {
	n := t.node(nil, rows, cols)
	if data == nil {
		clear(n.Data)
		return n
	}
	if len(data) != rows*cols {
		panic(fmt.Sprintf("nn: Const %dx%d with %d values", rows, cols, len(data)))
	}
	copy(n.Data, data)
	return n
}

// View records a constant rows×cols node whose Data is data itself, not
// a copy: what Const does without the copy, for inputs that already sit
// in a slice nothing will write before the tape's next Reset (after its
// Backward). The tape never writes into data.
func (t *Tape) View(rows, cols int, data []float64) *Node {
	if len(data) != rows*cols {
		panic(fmt.Sprintf("nn: View %dx%d of %d values", rows, cols, len(data)))
	}
	n := t.node(nil, rows, cols)
	n.own, n.Data, n.view = n.Data, data, true
	return n
}

// Backward computes the gradient of the 1×1 node loss with respect to
// every node recorded before it and accumulates it into the Grad of the
// parameters it depends on. Parameter gradients add up over calls until an
// optimiser step (or Params.ZeroGrad) clears them; gradients of tape nodes
// are recomputed from zero on each call.
//
// Backward after a failed forward pass (Err not nil) panics: the gradient
// would be NaN and poison the parameters.
func (t *Tape) Backward(loss *Node) {
	if t.err != nil {
		panic(fmt.Sprintf("nn: Backward after a failed forward pass: %v", t.err))
	}
	if loss.Rows != 1 || loss.Cols != 1 {
		panic(fmt.Sprintf("nn: Backward from a %dx%d node, want 1x1", loss.Rows, loss.Cols))
	}
	if !loss.needGrad {
		return
	}
	if loss.op == nil || loss.tapeIdx >= t.n || t.nodes[loss.tapeIdx] != loss {
		panic("nn: Backward from a node not on this tape")
	}
	// A node's gradient is cleared just before the first operator that
	// adds into it runs (its last consumer on the tape, the sweep going
	// backwards), not all at the start: no operator before that one in
	// the sweep touches it, so the sums are the same, and the buffer is
	// still in cache when the additions come.
	t.pass++
	loss.Grad = resize(loss.Grad, 1)
	loss.Grad[0] = 1
	loss.gradPass = t.pass
	for i := loss.tapeIdx; i >= 0; i-- {
		n := t.nodes[i]
		if !n.needGrad || n.op == nil {
			continue
		}
		t.zeroGrad(n) // a node nothing read: its gradient is 0
		for _, x := range n.in {
			if x.needGrad && x.op != nil {
				t.zeroGrad(x)
			}
		}
		n.op.backward(t, n)
	}
}

// zeroGrad clears n's gradient unless this Backward already has.
func (t *Tape) zeroGrad(n *Node) {
	if n.gradPass == t.pass {
		return
	}
	n.Grad = resize(n.Grad, len(n.Data))
	clear(n.Grad)
	n.gradPass = t.pass
}

// addTo adds src to dst element by element (len(dst) ≥ len(src)), as
// floats.Add does: inline, where the rows the operators pass are often
// too short (16 values) for a call into gonum's assembly to pay.
func addTo(dst, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += v
	}
}

// resize returns s with length n, reusing its storage when it is large
// enough. The contents are unspecified. A buffer that grows again gets a
// quarter more than asked: the segments' buffers grow by a few rows at a
// time over an episode, and each exact reallocation was a fresh,
// page-faulting copy.
func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	if cap(s) == 0 {
		return make([]float64, n)
	}
	return make([]float64, n, n+n/4)
}

// blasGeneral is a strided row-major matrix view for BLAS.
type blasGeneral = blas64.General

// general views a row-major slice as a BLAS matrix.
func general(rows, cols, stride int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: stride, Data: data}
}

// gemm computes c = alpha·op(a)·op(b) + beta·c (the package's gemm) and
// counts its flops on the tape.
func (t *Tape) gemm(ta, tb bool, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	t.flops += gemm(ta, tb, alpha, a, b, beta, c)
}

func sameShape(op string, a, b *Node) {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		panic(fmt.Sprintf("nn: %s of %dx%d and %dx%d", op, a.Rows, a.Cols, b.Rows, b.Cols))
	}
}
