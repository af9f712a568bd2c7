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
		t.gemm(false, true, 1, dc, general(b.Rows, b.Cols, b.Cols, b.Data), 1, general(a.Rows, a.Cols, a.Cols, a.Grad))
	}
	if b.needGrad {
		t.gemm(true, false, 1, general(a.Rows, a.Cols, a.Cols, a.Data), dc, 1, general(b.Rows, b.Cols, b.Cols, b.Grad))
	}
}
