package nn

import "fmt"

// addDiagOp is B = A + s·I for square A and 1×1 s (the GP's noise σ²);
// backward dA += dB, ds += trace(dB).
type addDiagOp struct{}

// AddDiag records a + s·I, with s a 1×1 node.
func (t *Tape) AddDiag(a, s *Node) *Node {
	if a.Rows != a.Cols || s.Rows != 1 || s.Cols != 1 {
		panic(fmt.Sprintf("nn: AddDiag of %dx%d and %dx%d", a.Rows, a.Cols, s.Rows, s.Cols))
	}
	n := t.node(addDiagOp{}, a.Rows, a.Cols, a, s)
	copy(n.Data, a.Data)
	for i := 0; i < a.Rows; i++ {
		n.Data[i*a.Cols+i] += s.Data[0]
	}
	return n
}

func (addDiagOp) backward(_ *Tape, n *Node) {
	a, s := n.in[0], n.in[1]
	if a.needGrad {
		for i, g := range n.Grad {
			a.Grad[i] += g
		}
	}
	if s.needGrad {
		for i := 0; i < n.Rows; i++ {
			s.Grad[0] += n.Grad[i*n.Cols+i]
		}
	}
}
