package nn

// minimumOp is the element-wise minimum of A and B (same shape), as in
// PPO's min(r·Â, clip(r)·Â). The gradient goes to the operand that is
// smaller; on a tie, to A, a valid subgradient.
type minimumOp struct{}

// Minimum records min(a, b), element-wise.
func (t *Tape) Minimum(a, b *Node) *Node {
	sameShape("Minimum", a, b)
	n := t.node(minimumOp{}, a.Rows, a.Cols, a, b)
	for i, v := range a.Data {
		n.Data[i] = min(v, b.Data[i])
	}
	return n
}

func (minimumOp) backward(_ *Tape, n *Node) {
	a, b := n.in[0], n.in[1]
	for i, g := range n.Grad {
		if a.Data[i] <= b.Data[i] {
			if a.needGrad {
				a.Grad[i] += g
			}
		} else if b.needGrad {
			b.Grad[i] += g
		}
	}
}
