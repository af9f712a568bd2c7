package nn

import (
	"fmt"

	"gonum.org/v1/gonum/floats"
)

// concatColsOp places its operands side by side, [A | B | ...]; backward
// hands each operand its block of columns of the gradient.
type concatColsOp struct{}

// ConcatCols records the operands joined left to right; they must have the
// same number of rows.
func (t *Tape) ConcatCols(xs ...*Node) *Node {
	if len(xs) == 0 {
		panic("nn: ConcatCols of nothing")
	}
	rows, cols := xs[0].Rows, 0
	for _, x := range xs {
		if x.Rows != rows {
			panic(fmt.Sprintf("nn: ConcatCols of %d and %d rows", rows, x.Rows))
		}
		cols += x.Cols
	}
	n := t.node(concatColsOp{}, rows, cols, xs...)
	off := 0
	for _, x := range xs {
		for i := 0; i < rows; i++ {
			copy(n.Data[i*cols+off:i*cols+off+x.Cols], x.Data[i*x.Cols:(i+1)*x.Cols])
		}
		off += x.Cols
	}
	return n
}

func (concatColsOp) backward(_ *Tape, n *Node) {
	off := 0
	for _, x := range n.in {
		if x.needGrad {
			for i := 0; i < n.Rows; i++ {
				addTo(x.Grad[i*x.Cols:(i+1)*x.Cols], n.Grad[i*n.Cols+off:i*n.Cols+off+x.Cols])
			}
		}
		off += x.Cols
	}
}

// concatRowsOp stacks its operands, [A; B; ...]; backward hands each
// operand its block of rows of the gradient.
type concatRowsOp struct{}

// ConcatRows records the operands stacked top to bottom; they must have the
// same number of columns.
func (t *Tape) ConcatRows(xs ...*Node) *Node {
	if len(xs) == 0 {
		panic("nn: ConcatRows of nothing")
	}
	rows, cols := 0, xs[0].Cols
	for _, x := range xs {
		if x.Cols != cols {
			panic(fmt.Sprintf("nn: ConcatRows of %d and %d columns", cols, x.Cols))
		}
		rows += x.Rows
	}
	n := t.node(concatRowsOp{}, rows, cols, xs...)
	off := 0
	for _, x := range xs {
		off += copy(n.Data[off:], x.Data)
	}
	return n
}

func (concatRowsOp) backward(_ *Tape, n *Node) {
	off := 0
	for _, x := range n.in {
		if x.needGrad {
			floats.Add(x.Grad, n.Grad[off:off+len(x.Data)])
		}
		off += len(x.Data)
	}
}
