package nn

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// logSoftmaxOp is A_ij − logΣ_k exp A_ik per row, with the row maximum
// taken out of the log-sum-exp so it neither overflows nor loses the
// largest term. Backward: dA_i = dY_i − softmax(A_i)·Σ_j dY_ij.
type logSoftmaxOp struct{}

// LogSoftmax records the log-softmax of each row of a.
func (t *Tape) LogSoftmax(a *Node) *Node {
	n := t.node(logSoftmaxOp{}, a.Rows, a.Cols, a)
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		x, y := a.Data[i*c:(i+1)*c], n.Data[i*c:(i+1)*c]
		if c == 0 {
			continue
		}
		m := floats.Max(x)
		var s float64
		for _, v := range x {
			s += math.Exp(v - m)
		}
		lse := m + math.Log(s)
		for j, v := range x {
			y[j] = v - lse
		}
	}
	return n
}

func (logSoftmaxOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	c := n.Cols
	for i := 0; i < n.Rows; i++ {
		y, g, ag := n.Data[i*c:(i+1)*c], n.Grad[i*c:(i+1)*c], a.Grad[i*c:(i+1)*c]
		s := floats.Sum(g)
		for j, v := range y {
			ag[j] += g[j] - math.Exp(v)*s
		}
	}
}
