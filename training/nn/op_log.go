package nn

import "math"

// logOp is ln A; backward dA += dB / A. Non-positive inputs give −Inf or
// NaN as math.Log does: clamp upstream when the input can reach zero.
type logOp struct{}

// Log records the natural logarithm of a, element-wise.
func (t *Tape) Log(a *Node) *Node {
	n := t.node(logOp{}, a.Rows, a.Cols, a)
	for i, v := range a.Data {
		n.Data[i] = math.Log(v)
	}
	return n
}

func (logOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	for i, v := range a.Data {
		a.Grad[i] += n.Grad[i] / v
	}
}
