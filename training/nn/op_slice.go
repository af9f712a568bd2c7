package nn

import (
	"fmt"

	"gonum.org/v1/gonum/floats"
)

// sliceRowsOp copies rows [from, to) of A; backward adds the gradient back
// into those rows.
type sliceRowsOp struct{}

// SliceRows records rows [from, to) of a.
func (t *Tape) SliceRows(a *Node, from, to int) *Node {
	if from < 0 || to < from || to > a.Rows {
		panic(fmt.Sprintf("nn: SliceRows [%d,%d) of %d rows", from, to, a.Rows))
	}
	n := t.node(sliceRowsOp{}, to-from, a.Cols, a)
	n.iarg[0] = from
	copy(n.Data, a.Data[from*a.Cols:to*a.Cols])
	return n
}

func (sliceRowsOp) backward(_ *Tape, n *Node) {
	if a := n.in[0]; a.needGrad {
		off := n.iarg[0] * a.Cols
		floats.Add(a.Grad[off:off+len(n.Grad)], n.Grad)
	}
}

// sliceColsOp copies columns [from, to) of A; backward adds the gradient
// back into those columns.
type sliceColsOp struct{}

// SliceCols records columns [from, to) of a.
func (t *Tape) SliceCols(a *Node, from, to int) *Node {
	if from < 0 || to < from || to > a.Cols {
		panic(fmt.Sprintf("nn: SliceCols [%d,%d) of %d columns", from, to, a.Cols))
	}
	w := to - from
	n := t.node(sliceColsOp{}, a.Rows, w, a)
	n.iarg[0] = from
	for i := 0; i < a.Rows; i++ {
		copy(n.Data[i*w:(i+1)*w], a.Data[i*a.Cols+from:i*a.Cols+to])
	}
	return n
}

func (sliceColsOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	from, w := n.iarg[0], n.Cols
	for i := 0; i < a.Rows; i++ {
		floats.Add(a.Grad[i*a.Cols+from:i*a.Cols+from+w], n.Grad[i*w:(i+1)*w])
	}
}
