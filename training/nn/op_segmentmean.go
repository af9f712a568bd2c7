package nn

import (
	"fmt"

	"gonum.org/v1/gonum/floats"
)

// segmentMeansOp averages consecutive blocks of rows: with blocks of s
// rows, Y_b = (1/s)·Σ_{i<s} A_{b·s+i}. It is ColMeans for a batch of
// equally sized sets stacked as rows (DAS's cluster message s̃ per
// decision); backward spreads dY_b/s over the block's rows.
type segmentMeansOp struct{}

// SegmentMeans records the mean of each consecutive block of size rows of
// a, giving (a.Rows/size)×a.Cols. Spread a block's row back over its rows
// with GatherRows (indices 0,0,…,1,1,…).
func (t *Tape) SegmentMeans(a *Node, size int) *Node {
	if size <= 0 || a.Rows%size != 0 {
		panic(fmt.Sprintf("nn: SegmentMeans of %d rows in blocks of %d", a.Rows, size))
	}
	n := t.node(segmentMeansOp{}, a.Rows/size, a.Cols, a)
	n.iarg[0] = size
	clear(n.Data)
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		floats.Add(n.Data[(i/size)*c:(i/size+1)*c], a.Data[i*c:(i+1)*c])
	}
	floats.Scale(1/float64(size), n.Data)
	return n
}

func (segmentMeansOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	size, c := n.iarg[0], a.Cols
	inv := 1 / float64(size)
	for i := 0; i < a.Rows; i++ {
		floats.AddScaled(a.Grad[i*c:(i+1)*c], inv, n.Grad[(i/size)*c:(i/size+1)*c])
	}
}
