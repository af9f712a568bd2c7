package nn

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// softmaxOp is the softmax of each row, computed after subtracting the
// row maximum so that no exponential overflows. Backward, with P the
// output: dA_i = P_i ⊙ (dP_i − ⟨dP_i, P_i⟩).
type softmaxOp struct{}

// Softmax records the softmax of each row of a.
func (t *Tape) Softmax(a *Node) *Node {
	n := t.node(softmaxOp{}, a.Rows, a.Cols, a)
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		softmaxRow(n.Data[i*c:(i+1)*c], a.Data[i*c:(i+1)*c])
	}
	return n
}

// softmaxRow writes softmax(x) into dst.
func softmaxRow(dst, x []float64) {
	if len(x) == 0 {
		return
	}
	m := floats.Max(x)
	var s float64
	for j, v := range x {
		e := math.Exp(v - m)
		dst[j] = e
		s += e
	}
	floats.Scale(1/s, dst)
}

func (softmaxOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	c := n.Cols
	for i := 0; i < n.Rows; i++ {
		p, g, ag := n.Data[i*c:(i+1)*c], n.Grad[i*c:(i+1)*c], a.Grad[i*c:(i+1)*c]
		d := floats.Dot(g, p)
		for j, pj := range p {
			ag[j] += pj * (g[j] - d)
		}
	}
}
