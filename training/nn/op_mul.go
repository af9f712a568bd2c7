package nn

import "gonum.org/v1/gonum/floats"

// mulOp is the element-wise product C = A ⊙ B, B broadcast as in Add.
// Backward: dA += dC ⊙ B, dB += dC ⊙ A summed over the broadcast dimension.
type mulOp struct{}

// Mul records the element-wise product a ⊙ b, where b may also be a 1×n
// row, an m×1 column (scaling each row) or a 1×1 scalar.
func (t *Tape) Mul(a, b *Node) *Node {
	bc := broadcastOf("Mul", a, b)
	n := t.node(mulOp{}, a.Rows, a.Cols, a, b)
	n.iarg[0] = int(bc)
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		out, ar := n.Data[i*c:(i+1)*c], a.Data[i*c:(i+1)*c]
		vec, s := bc.row(b, i, c)
		if vec == nil {
			floats.ScaleTo(out, s, ar)
			continue
		}
		floats.MulTo(out, ar, vec)
	}
	return n
}

func (mulOp) backward(_ *Tape, n *Node) {
	a, b := n.in[0], n.in[1]
	bc, c := broadcast(n.iarg[0]), n.Cols
	for i := 0; i < n.Rows; i++ {
		g, ar := n.Grad[i*c:(i+1)*c], a.Data[i*c:(i+1)*c]
		vec, s := bc.row(b, i, c)
		if a.needGrad {
			ag := a.Grad[i*c : (i+1)*c]
			if vec == nil {
				floats.AddScaled(ag, s, g)
			} else {
				for j, v := range g {
					ag[j] += v * vec[j]
				}
			}
		}
		if b.needGrad {
			gvec, k := bc.gradRow(b, i, c)
			if gvec == nil {
				b.Grad[k] += floats.Dot(g, ar)
				continue
			}
			for j, v := range g {
				gvec[j] += v * ar[j]
			}
		}
	}
}
