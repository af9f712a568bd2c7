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

func (matMulOp) backward(t *Tape, n *Node) {
	a, b := n.in[0], n.in[1]
	dc := general(n.Rows, n.Cols, n.Cols, n.Grad)
	if a.needGrad {
		// Only the columns of dA whose gradient is read (gradCols):
		// every element is a chain of its own (gemm), so computing
		// fewer columns changes none.
		lo, hi := gradCols(a)
		t.gemm(false, true, 1, dc, general(hi-lo, b.Cols, b.Cols, b.Data[lo*b.Cols:]), 1, general(a.Rows, hi-lo, a.Cols, a.Grad[lo:]))
	}
	if b.needGrad {
		t.gemm(true, false, 1, general(a.Rows, a.Cols, a.Cols, a.Data), dc, 1, general(b.Rows, b.Cols, b.Cols, b.Grad))
	}
}

// gradCols returns the range [lo, hi) of a's columns whose gradient a
// backward pass reads: all of them, unless a is a concatenation of
// columns some of whose operands need no gradient (an observation beside
// an embedding, as the MARL group scorer's input and the first ECC
// layer's [x, h_N] are), whose columns its backward pass skips.
func gradCols(a *Node) (lo, hi int) {
	if _, ok := a.op.(concatColsOp); !ok {
		return 0, a.Cols
	}
	lo, hi = a.Cols, 0
	off := 0
	for _, x := range a.in {
		if x.needGrad {
			lo, hi = min(lo, off), max(hi, off+x.Cols)
		}
		off += x.Cols
	}
	if lo >= hi {
		return 0, a.Cols
	}
	return lo, hi
}

// gradRows returns the range [lo, hi) of a's rows whose gradient a
// backward pass reads: all of them, unless a is a concatenation of rows
// some of whose operands need no gradient (the MARL inter-scheduler
// stack's input: the other schedulers' z⁰ as constants around the acting
// agent's row), whose rows its backward pass skips.
func gradRows(a *Node) (lo, hi int) {
	if _, ok := a.op.(concatRowsOp); !ok {
		return 0, a.Rows
	}
	lo, hi = a.Rows, 0
	off := 0
	for _, x := range a.in {
		if x.needGrad {
			lo, hi = min(lo, off), max(hi, off+x.Rows)
		}
		off += x.Rows
	}
	if lo >= hi {
		return 0, a.Rows
	}
	return lo, hi
}
