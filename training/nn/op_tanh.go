package nn

import "math"

// tanhOp is tanh(A); backward uses the output: dA += dB·(1 − B²).
var tanhOp = &elementwiseOp{
	f:    math.Tanh,
	grad: func(g, _, y float64) float64 { return g * (1 - y*y) },
}

// Tanh records tanh(a), element-wise.
func (t *Tape) Tanh(a *Node) *Node { return t.elementwise(tanhOp, a) }
