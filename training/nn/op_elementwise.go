package nn

// elementwiseOp is a one-operand operator applied to each element alone:
// Y_i = f(A_i), backward dA_i += grad(dY_i, A_i, Y_i). The activation and
// log/exp operators differ only in f and grad, so they share the forward
// loop and the backward pass here. Each is a package-level *elementwiseOp:
// a pointer to a variable fits the operator interface without allocating,
// which keeps a warmed-up tape allocation-free.
type elementwiseOp struct {
	f func(x float64) float64
	// grad is the contribution to dA of the output gradient g at an
	// element whose input is x and output y (whichever is cheaper).
	grad func(g, x, y float64) float64
}

// elementwise records op.f applied to every element of a.
func (t *Tape) elementwise(op *elementwiseOp, a *Node) *Node {
	n := t.node(op, a.Rows, a.Cols, a)
	if op == reluOp {
		// reluOp.f inlined: the MARL and DAS networks' activations
		// are most of the elements, and a call per element cost more
		// than the max.
		for i, v := range a.Data {
			n.Data[i] = max(v, 0)
		}
		return n
	}
	for i, v := range a.Data {
		n.Data[i] = op.f(v)
	}
	return n
}

func (op *elementwiseOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	if op == reluOp {
		// reluOp.grad inlined, the same sums (+0 added where x ≤ 0).
		g := n.Grad[:len(a.Data)]
		for i, x := range a.Data {
			if x > 0 {
				a.Grad[i] += g[i]
			} else {
				a.Grad[i] += 0
			}
		}
		return
	}
	for i, y := range n.Data {
		a.Grad[i] += op.grad(n.Grad[i], a.Data[i], y)
	}
}
