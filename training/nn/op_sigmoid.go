package nn

import "math"

// sigmoidOp is σ(A) = 1/(1+e^−A); backward uses the output: dA += dB·B(1−B).
type sigmoidOp struct{}

// Sigmoid records the logistic function of a, element-wise.
func (t *Tape) Sigmoid(a *Node) *Node {
	n := t.node(sigmoidOp{}, a.Rows, a.Cols, a)
	for i, v := range a.Data {
		n.Data[i] = sigmoid(v)
	}
	return n
}

// sigmoid evaluates the branch whose exponential cannot overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func (sigmoidOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	for i, y := range n.Data {
		a.Grad[i] += n.Grad[i] * y * (1 - y)
	}
}
