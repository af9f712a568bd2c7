package nn

import "fmt"

// pickOp takes one entry per row, Y_i = A[i, cols[i]] (Q(s, a) of the
// action taken); backward puts each row's gradient back at that entry.
type pickOp struct{}

// Pick records a[i, cols[i]] for every row i, as an m×1 column. The tape
// keeps cols until the next Reset.
func (t *Tape) Pick(a *Node, cols []int) *Node {
	if len(cols) != a.Rows {
		panic(fmt.Sprintf("nn: Pick of %d columns from %d rows", len(cols), a.Rows))
	}
	n := t.node(pickOp{}, a.Rows, 1, a)
	n.ints = cols
	for i, j := range cols {
		if j < 0 || j >= a.Cols {
			panic(fmt.Sprintf("nn: Pick column %d of %d in row %d", j, a.Cols, i))
		}
		n.Data[i] = a.Data[i*a.Cols+j]
	}
	return n
}

func (pickOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	for i, j := range n.ints {
		a.Grad[i*a.Cols+j] += n.Grad[i]
	}
}
