package nn

import "math"

// logOp is ln A; backward dA += dB / A. Non-positive inputs give −Inf or
// NaN as math.Log does: clamp upstream when the input can reach zero.
var logOp = &elementwiseOp{
	f:    math.Log,
	grad: func(g, x, _ float64) float64 { return g / x },
}

// Log records the natural logarithm of a, element-wise.
func (t *Tape) Log(a *Node) *Node { return t.elementwise(logOp, a) }
