package nn

// reluOp is max(A, 0); the derivative at exactly 0 is taken as 0.
type reluOp struct{}

// ReLU records max(a, 0), element-wise.
func (t *Tape) ReLU(a *Node) *Node {
	n := t.node(reluOp{}, a.Rows, a.Cols, a)
	for i, v := range a.Data {
		n.Data[i] = max(v, 0)
	}
	return n
}

func (reluOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	for i, v := range a.Data {
		if v > 0 {
			a.Grad[i] += n.Grad[i]
		}
	}
}
