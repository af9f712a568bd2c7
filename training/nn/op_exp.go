package nn

import "math"

// expOp is e^A; backward dA += dB·B.
type expOp struct{}

// Exp records e^a, element-wise.
func (t *Tape) Exp(a *Node) *Node {
	n := t.node(expOp{}, a.Rows, a.Cols, a)
	for i, v := range a.Data {
		n.Data[i] = math.Exp(v)
	}
	return n
}

func (expOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	for i, y := range n.Data {
		a.Grad[i] += n.Grad[i] * y
	}
}
