package nn

// transposeOp is B = Aᵀ; its backward transposes the gradient back.
type transposeOp struct{}

// Transpose records aᵀ.
func (t *Tape) Transpose(a *Node) *Node {
	n := t.node(transposeOp{}, a.Cols, a.Rows, a)
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < a.Cols; j++ {
			n.Data[j*a.Rows+i] = a.Data[i*a.Cols+j]
		}
	}
	return n
}

func (transposeOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < a.Cols; j++ {
			a.Grad[i*a.Cols+j] += n.Grad[j*a.Rows+i]
		}
	}
}
