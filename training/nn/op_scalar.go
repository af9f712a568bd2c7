package nn

import "gonum.org/v1/gonum/floats"

// scaleOp is B = c·A; backward dA += c·dB.
type scaleOp struct{}

// Scale records c·a.
func (t *Tape) Scale(a *Node, c float64) *Node {
	n := t.node(scaleOp{}, a.Rows, a.Cols, a)
	n.farg[0] = c
	floats.ScaleTo(n.Data, c, a.Data)
	return n
}

func (scaleOp) backward(_ *Tape, n *Node) {
	if a := n.in[0]; a.needGrad {
		floats.AddScaled(a.Grad, n.farg[0], n.Grad)
	}
}

// addScalarOp is B = A + c; backward dA += dB.
type addScalarOp struct{}

// AddScalar records a + c, element-wise.
func (t *Tape) AddScalar(a *Node, c float64) *Node {
	n := t.node(addScalarOp{}, a.Rows, a.Cols, a)
	for i, v := range a.Data {
		n.Data[i] = v + c
	}
	return n
}

func (addScalarOp) backward(_ *Tape, n *Node) {
	if a := n.in[0]; a.needGrad {
		floats.Add(a.Grad, n.Grad)
	}
}
