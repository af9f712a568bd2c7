package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// layerNormOp normalises each row of X to zero mean and unit variance
// (biased variance, plus eps inside the square root so constant rows stay
// finite), then applies a per-column gain and bias: Y = X̂ ⊙ g + b.
// aux keeps X̂ and aux2 each row's 1/σ for the backward pass, which is the
// usual closed form
//
//	dX = (1/σ)·(dX̂ − mean(dX̂) − X̂·mean(dX̂ ⊙ X̂)),  dX̂ = dY ⊙ g,
//	dg = Σ_rows dY ⊙ X̂,  db = Σ_rows dY.
type layerNormOp struct{}

// LayerNorm records layer normalisation of each row of x with gain and
// bias (1×n rows) and variance floor eps (1e-5 is usual).
func (t *Tape) LayerNorm(x, gain, bias *Node, eps float64) *Node {
	c := x.Cols
	if gain.Rows != 1 || gain.Cols != c || bias.Rows != 1 || bias.Cols != c {
		panic(fmt.Sprintf("nn: LayerNorm of %dx%d with gain %dx%d and bias %dx%d", x.Rows, c, gain.Rows, gain.Cols, bias.Rows, bias.Cols))
	}
	if c == 0 {
		panic("nn: LayerNorm of a node with no columns")
	}
	n := t.node(layerNormOp{}, x.Rows, c, x, gain, bias)
	n.aux = resize(n.aux, x.Rows*c)
	n.aux2 = resize(n.aux2, x.Rows)
	for i := 0; i < x.Rows; i++ {
		xr, xh, y := x.Data[i*c:(i+1)*c], n.aux[i*c:(i+1)*c], n.Data[i*c:(i+1)*c]
		mean := floats.Sum(xr) / float64(c)
		var v float64
		for _, a := range xr {
			v += (a - mean) * (a - mean)
		}
		inv := 1 / math.Sqrt(v/float64(c)+eps)
		n.aux2[i] = inv
		for j, a := range xr {
			xh[j] = (a - mean) * inv
			y[j] = xh[j]*gain.Data[j] + bias.Data[j]
		}
	}
	return n
}

func (layerNormOp) backward(_ *Tape, n *Node) {
	x, gain, bias := n.in[0], n.in[1], n.in[2]
	c := n.Cols
	for i := 0; i < n.Rows; i++ {
		g, xh := n.Grad[i*c:(i+1)*c], n.aux[i*c:(i+1)*c]
		if gain.needGrad {
			for j, v := range g {
				gain.Grad[j] += v * xh[j]
			}
		}
		if bias.needGrad {
			floats.Add(bias.Grad, g)
		}
		if !x.needGrad {
			continue
		}
		var m1, m2 float64
		for j, v := range g {
			d := v * gain.Data[j]
			m1 += d
			m2 += d * xh[j]
		}
		m1 /= float64(c)
		m2 /= float64(c)
		inv, xg := n.aux2[i], x.Grad[i*c:(i+1)*c]
		for j, v := range g {
			xg[j] += inv * (v*gain.Data[j] - m1 - xh[j]*m2)
		}
	}
}
