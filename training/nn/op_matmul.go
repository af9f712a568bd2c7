package nn

import "fmt"

// matMulOp is C = A·B. Backward: dA += dC·Bᵀ, dB += Aᵀ·dC, both straight
// into the operands' gradients with beta = 1 so no temporary is needed.
type matMulOp struct{}

// MatMul records the matrix product a·b.
func (t *Tape) MatMul(a, b *Node) *Node {
	if a.Cols != b.Rows {
		panic(fmt.Sprintf("nn: MatMul of %dx%d and %dx%d", a.Rows, a.Cols, b.Rows, b.Cols))
	}
	n := t.node(matMulOp{}, a.Rows, b.Cols, a, b)
	t.gemm(false, false, 1, general(a.Rows, a.Cols, a.Cols, a.Data), general(b.Rows, b.Cols, b.Cols, b.Data), 0, general(n.Rows, n.Cols, n.Cols, n.Data))
	return n
}

// matMulFrom records a·b whose value, computed elsewhere with the same
// kernel (ECCStack), is data.
func (t *Tape) matMulFrom(a, b *Node, data []float64) *Node {
	if a.Cols != b.Rows || len(data) != a.Rows*b.Cols {
		panic(fmt.Sprintf("nn: MatMul of %dx%d and %dx%d given %d values", a.Rows, a.Cols, b.Rows, b.Cols, len(data)))
	}
	n := t.node(matMulOp{}, a.Rows, b.Cols, a, b)
	copy(n.Data, data)
	return n
}

// deferRows reports whether, while deferring (DeferGrad), the product
// gradient dB = Aᵀ·dC of a product with r rows of A (aw wide) and of
// dC (cw wide) waits to meet dB with the next passes' in one product:
// where copying its rows costs less than reading and writing dB (aw × cw)
// at every pass, as for a lone row's (one multiply-add an element of dB).
// Either way the bits are the same.
func deferRows(r, aw, cw int) bool { return deferProducts && 2*r*(aw+cw) <= aw*cw }

// deferProducts turns deferRows off (BenchmarkDeferredProducts' baseline).
var deferProducts = true

func (matMulOp) backward(t *Tape, n *Node) {
	a, b := n.in[0], n.in[1]
	dc := general(n.Rows, n.Cols, n.Cols, n.Grad)
	if a.needGrad {
		// Only the columns of dA whose gradient is read (gradCols),
		// and where a concatenates columns one of which is read at a
		// few rows (gradRows: the MARL inter-scheduler stack's first
		// layer, [z, h_N], reads z's at the acting scheduler's row),
		// each operand's block at its rows: every element is a chain of
		// its own (gemm), so computing fewer changes none.
		lo, hi := gradCols(a)
		if !fewerRows(a) {
			t.productGradA(a, b, n, 0, a.Rows, lo, hi)
		} else {
			off := 0
			for _, x := range a.in {
				if x.needGrad {
					r0, r1 := gradRows(x)
					t.productGradA(a, b, n, r0, r1, off, off+x.Cols)
				}
				off += x.Cols
			}
		}
	}
	switch {
	case b.needGrad && t.defer_ && b.param && deferRows(a.Rows, a.Cols, n.Cols):
		t.deferProduct(b, a.Data, n.Grad, a.Rows, a.Cols, n.Cols)
	case b.needGrad:
		t.gemm(true, false, 1, general(a.Rows, a.Cols, a.Cols, a.Data), dc, 1, general(b.Rows, b.Cols, b.Cols, b.Grad))
	}
}

// productGradA adds to dA's rows [r0, r1) and columns [c0, c1) their
// terms of dC·Bᵀ for the product n = A·B.
func (t *Tape) productGradA(a, b, n *Node, r0, r1, c0, c1 int) {
	dc := general(r1-r0, n.Cols, n.Cols, n.Grad[r0*n.Cols:])
	da := general(r1-r0, c1-c0, a.Cols, a.Grad[r0*a.Cols+c0:])
	if t.defer_ && b.param && deferProducts {
		// Bᵀ's columns c0..c1−1, copied once while deferring: gemm
		// would copy it at every pass (the same bits).
		t.gemm(false, false, 1, dc, general(b.Cols, c1-c0, b.Rows, t.transposed(b)[c0:]), 1, da)
	} else {
		t.gemm(false, true, 1, dc, general(c1-c0, b.Cols, b.Cols, b.Data[c0*b.Cols:]), 1, da)
	}
}

// fewerRows reports whether a concatenates columns one of which, needing
// a gradient, has it read at fewer rows than a's (gradRows).
func fewerRows(a *Node) bool {
	if _, ok := a.op.(concatColsOp); !ok {
		return false
	}
	for _, x := range a.in {
		if r0, r1 := gradRows(x); x.needGrad && r1-r0 < a.Rows {
			return true
		}
	}
	return false
}

// gradCols returns the range [lo, hi) of a's columns whose gradient a
// backward pass reads: all of them, unless a is a concatenation of
// columns some of whose operands need no gradient (an observation beside
// an embedding, as the MARL group scorer's input and the first ECC
// layer's [x, h_N] are), whose columns its backward pass skips.
func gradCols(a *Node) (lo, hi int) {
	_, ok := a.op.(concatColsOp)
	return gradSpan(a, ok, func(x *Node) int { return x.Cols })
}

// gradRows is gradCols for rows: all of them, unless a is a
// concatenation of rows some of whose operands need no gradient (the
// MARL inter-scheduler stack's input: the other schedulers' z⁰ as
// constants around the acting agent's row).
func gradRows(a *Node) (lo, hi int) {
	_, ok := a.op.(concatRowsOp)
	return gradSpan(a, ok, func(x *Node) int { return x.Rows })
}

// gradSpan returns the span of the operands that need a gradient along
// the dimension size measures, if concat says a concatenates its
// operands along it; else (or if none needs one) the whole of a.
func gradSpan(a *Node, concat bool, size func(*Node) int) (lo, hi int) {
	if !concat {
		return 0, size(a)
	}
	lo, hi = size(a), 0
	off := 0
	for _, x := range a.in {
		if x.needGrad {
			lo, hi = min(lo, off), max(hi, off+size(x))
		}
		off += size(x)
	}
	if lo >= hi {
		return 0, size(a)
	}
	return lo, hi
}
