package nn

import "math"

// tanhOp is tanh(A); backward uses the output: dA += dB·(1 − B²).
type tanhOp struct{}

// Tanh records tanh(a), element-wise.
func (t *Tape) Tanh(a *Node) *Node {
	n := t.node(tanhOp{}, a.Rows, a.Cols, a)
	for i, v := range a.Data {
		n.Data[i] = math.Tanh(v)
	}
	return n
}

func (tanhOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	for i, y := range n.Data {
		a.Grad[i] += n.Grad[i] * (1 - y*y)
	}
}
