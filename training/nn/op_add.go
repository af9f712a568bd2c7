package nn

import "gonum.org/v1/gonum/floats"

// addOp is C = A + s·B with s = +1 (Add) or −1 (Sub), B broadcast as in
// broadcastOf. Backward: dA += dC; dB += s·dC, summed over the broadcast
// dimension.
type addOp struct{}

// Add records a + b, where b may also be a 1×n row (added to every row of
// a), an m×1 column or a 1×1 scalar.
func (t *Tape) Add(a, b *Node) *Node { return t.addSigned("Add", a, b, 1) }

// Sub records a − b with b broadcast as in Add.
func (t *Tape) Sub(a, b *Node) *Node { return t.addSigned("Sub", a, b, -1) }

func (t *Tape) addSigned(name string, a, b *Node, sign float64) *Node {
	bc := broadcastOf(name, a, b)
	n := t.node(addOp{}, a.Rows, a.Cols, a, b)
	n.iarg[0] = int(bc)
	n.farg[0] = sign
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		out, ar := n.Data[i*c:(i+1)*c], a.Data[i*c:(i+1)*c]
		vec, s := bc.row(b, i, c)
		if vec == nil {
			for j, v := range ar {
				out[j] = v + sign*s
			}
			continue
		}
		out, vec = out[:len(ar)], vec[:len(ar)]
		for j, v := range ar {
			out[j] = v + sign*vec[j]
		}
	}
	return n
}

func (addOp) backward(_ *Tape, n *Node) {
	a, b := n.in[0], n.in[1]
	if a.needGrad {
		floats.Add(a.Grad, n.Grad)
	}
	if !b.needGrad {
		return
	}
	bc, sign, c := broadcast(n.iarg[0]), n.farg[0], n.Cols
	for i := 0; i < n.Rows; i++ {
		g := n.Grad[i*c : (i+1)*c]
		vec, k := bc.gradRow(b, i, c)
		if vec == nil {
			b.Grad[k] += sign * floats.Sum(g)
			continue
		}
		vec = vec[:len(g)]
		for j, v := range g {
			vec[j] += sign * v
		}
	}
}
