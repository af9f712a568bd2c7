package nn

import "fmt"

// clampOp limits A to [lo, hi] element-wise (PPO's clipped ratio). The
// gradient passes where lo < A < hi and is 0 where a bound is active, which
// is what makes the clipped objective ignore samples already clipped.
type clampOp struct{}

// Clamp records min(max(a, lo), hi), element-wise.
func (t *Tape) Clamp(a *Node, lo, hi float64) *Node {
	if !(lo <= hi) {
		panic(fmt.Sprintf("nn: Clamp to [%g, %g]", lo, hi))
	}
	n := t.node(clampOp{}, a.Rows, a.Cols, a)
	n.farg = [2]float64{lo, hi}
	for i, v := range a.Data {
		n.Data[i] = min(max(v, lo), hi)
	}
	return n
}

func (clampOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	lo, hi := n.farg[0], n.farg[1]
	for i, v := range a.Data {
		if lo < v && v < hi {
			a.Grad[i] += n.Grad[i]
		}
	}
}
