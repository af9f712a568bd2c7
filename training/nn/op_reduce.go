package nn

import "gonum.org/v1/gonum/floats"

// Reductions sum in a fixed order (row by row, left to right), so the
// result does not depend on GOMAXPROCS or scheduling.

// sumOp is the 1×1 sum of all elements times farg (1 for Sum, 1/len for
// Mean); backward spreads farg·dY to every element.
type sumOp struct{}

// Sum records the sum of all elements of a, as a 1×1 node.
func (t *Tape) Sum(a *Node) *Node { return t.sumAll(a, 1) }

// Mean records the mean of all elements of a, as a 1×1 node.
func (t *Tape) Mean(a *Node) *Node {
	if len(a.Data) == 0 {
		panic("nn: Mean of an empty node")
	}
	return t.sumAll(a, 1/float64(len(a.Data)))
}

func (t *Tape) sumAll(a *Node, scale float64) *Node {
	n := t.node(sumOp{}, 1, 1, a)
	n.farg[0] = scale
	n.Data[0] = scale * floats.Sum(a.Data)
	return n
}

func (sumOp) backward(_ *Tape, n *Node) {
	if a := n.in[0]; a.needGrad {
		floats.AddConst(n.farg[0]*n.Grad[0], a.Grad)
	}
}

// rowSumOp is the m×1 column of row sums times farg; backward spreads each
// row's gradient over the row.
type rowSumOp struct{}

// RowSums records the sum of each row of a, as an m×1 column.
func (t *Tape) RowSums(a *Node) *Node { return t.rowSum(a, 1) }

// RowMeans records the mean of each row of a, as an m×1 column.
func (t *Tape) RowMeans(a *Node) *Node {
	if a.Cols == 0 {
		panic("nn: RowMeans of a node with no columns")
	}
	return t.rowSum(a, 1/float64(a.Cols))
}

func (t *Tape) rowSum(a *Node, scale float64) *Node {
	n := t.node(rowSumOp{}, a.Rows, 1, a)
	n.farg[0] = scale
	c := a.Cols
	for i := range n.Data {
		n.Data[i] = scale * floats.Sum(a.Data[i*c:(i+1)*c])
	}
	return n
}

func (rowSumOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	c := a.Cols
	for i, g := range n.Grad {
		floats.AddConst(n.farg[0]*g, a.Grad[i*c:(i+1)*c])
	}
}

// colSumOp is the 1×n row of column sums times farg; backward adds the
// gradient row to every row.
type colSumOp struct{}

// ColSums records the sum of each column of a, as a 1×n row.
func (t *Tape) ColSums(a *Node) *Node { return t.colSum(a, 1) }

// ColMeans records the mean of each column of a, as a 1×n row.
func (t *Tape) ColMeans(a *Node) *Node {
	if a.Rows == 0 {
		panic("nn: ColMeans of a node with no rows")
	}
	return t.colSum(a, 1/float64(a.Rows))
}

func (t *Tape) colSum(a *Node, scale float64) *Node {
	n := t.node(colSumOp{}, 1, a.Cols, a)
	n.farg[0] = scale
	clear(n.Data)
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		floats.Add(n.Data, a.Data[i*c:(i+1)*c])
	}
	floats.Scale(scale, n.Data)
	return n
}

func (colSumOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		floats.AddScaled(a.Grad[i*c:(i+1)*c], n.farg[0], n.Grad)
	}
}
