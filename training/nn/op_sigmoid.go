package nn

import "math"

// sigmoidOp is σ(A) = 1/(1+e^−A); backward uses the output: dA += dB·B(1−B).
var sigmoidOp = &elementwiseOp{
	f:    sigmoid,
	grad: func(g, _, y float64) float64 { return g * y * (1 - y) },
}

// Sigmoid records the logistic function of a, element-wise.
func (t *Tape) Sigmoid(a *Node) *Node { return t.elementwise(sigmoidOp, a) }

// sigmoid evaluates the branch whose exponential cannot overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
