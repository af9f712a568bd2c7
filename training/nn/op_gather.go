package nn

import "fmt"

// gatherRowsOp is row i of the output = row idx[i] of A. An index may
// repeat; backward scatter-adds, so a row used twice gets both gradients.
type gatherRowsOp struct{}

// GatherRows records the rows of a named by idx, in that order. The tape
// keeps idx (not a copy) until the next Reset: do not change it before
// Backward.
func (t *Tape) GatherRows(a *Node, idx []int) *Node {
	n := t.node(gatherRowsOp{}, len(idx), a.Cols, a)
	n.ints = idx
	c := a.Cols
	for i, r := range idx {
		if r < 0 || r >= a.Rows {
			panic(fmt.Sprintf("nn: GatherRows index %d of %d rows", r, a.Rows))
		}
		copy(n.Data[i*c:(i+1)*c], a.Data[r*c:(r+1)*c])
	}
	return n
}

func (gatherRowsOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	c := a.Cols
	for i, r := range n.ints {
		addTo(a.Grad[r*c:(r+1)*c], n.Grad[i*c:(i+1)*c])
	}
}
