package nn

// elementwiseOp is a one-operand operator applied to each element alone:
// Y_i = f(A_i), backward dA_i += grad(dY_i, A_i, Y_i). The activation and
// log/exp operators differ only in f and grad, so they share the forward
// loop and the backward pass here. Each is a package-level *elementwiseOp:
// a pointer to a variable fits the operator interface without allocating,
// which keeps a warmed-up tape allocation-free.
type elementwiseOp struct {
	f func(x float64) float64
	// grad is the contribution to dA of the output gradient g at an
	// element whose input is x and output y (whichever is cheaper).
	grad func(g, x, y float64) float64
}

// elementwise records op.f applied to every element of a.
func (t *Tape) elementwise(op *elementwiseOp, a *Node) *Node {
	n := t.node(op, a.Rows, a.Cols, a)
	for i, v := range a.Data {
		n.Data[i] = op.f(v)
	}
	return n
}

func (op *elementwiseOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	for i, y := range n.Data {
		a.Grad[i] += op.grad(n.Grad[i], a.Data[i], y)
	}
}
