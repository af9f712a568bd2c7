package nn

import "math"

// expOp is e^A; backward dA += dB·B.
var expOp = &elementwiseOp{
	f:    math.Exp,
	grad: func(g, _, y float64) float64 { return g * y },
}

// Exp records e^a, element-wise.
func (t *Tape) Exp(a *Node) *Node { return t.elementwise(expOp, a) }
