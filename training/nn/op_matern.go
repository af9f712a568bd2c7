package nn

import (
	"fmt"
	"math"
)

// maternOp is the Matérn-5/2 kernel matrix between the rows of X (n×p) and
// Z (m×p) with length-scale ρ (1×1):
//
//	K_ij = (1 + s + s²/3)·e^−s,  s = √5·‖x_i − z_j‖/ρ.
//
// With dK/ds = −(s/3)(1+s)e^−s the chain rule through r = ‖x_i − z_j‖
// gives ∂K_ij/∂x_i = −(5/(3ρ²))(1+s)e^−s·(x_i − z_j), which stays finite
// (zero) at r = 0, where ∂r/∂x itself is undefined; and
// ∂K_ij/∂ρ = (s²/(3ρ))(1+s)e^−s. aux keeps s per entry.
type maternOp struct{}

var sqrt5 = math.Sqrt(5)

// Matern52 records the n×m Matérn-5/2 kernel matrix between the rows of x
// and z with length-scale rho (a positive 1×1 node).
func (t *Tape) Matern52(x, z, rho *Node) *Node {
	if x.Cols != z.Cols || rho.Rows != 1 || rho.Cols != 1 {
		panic(fmt.Sprintf("nn: Matern52 of %dx%d and %dx%d with length-scale %dx%d", x.Rows, x.Cols, z.Rows, z.Cols, rho.Rows, rho.Cols))
	}
	n := t.node(maternOp{}, x.Rows, z.Rows, x, z, rho)
	n.aux = resize(n.aux, len(n.Data))
	p, r := x.Cols, rho.Data[0]
	for i := 0; i < x.Rows; i++ {
		xi := x.Data[i*p : (i+1)*p]
		for j := 0; j < z.Rows; j++ {
			var d2 float64
			for k, v := range z.Data[j*p : (j+1)*p] {
				diff := xi[k] - v
				d2 += diff * diff
			}
			s := sqrt5 * math.Sqrt(d2) / r
			n.aux[i*z.Rows+j] = s
			n.Data[i*z.Rows+j] = (1 + s + s*s/3) * math.Exp(-s)
		}
	}
	return n
}

func (maternOp) backward(_ *Tape, n *Node) {
	x, z, rho := n.in[0], n.in[1], n.in[2]
	p, r, m := x.Cols, rho.Data[0], z.Rows
	for i := 0; i < x.Rows; i++ {
		for j := 0; j < m; j++ {
			g, s := n.Grad[i*m+j], n.aux[i*m+j]
			if g == 0 {
				continue
			}
			decay := (1 + s) * math.Exp(-s)
			if rho.needGrad {
				rho.Grad[0] += g * s * s / (3 * r) * decay
			}
			if !x.needGrad && !z.needGrad {
				continue
			}
			c := -g * 5 / (3 * r * r) * decay
			for k := 0; k < p; k++ {
				diff := c * (x.Data[i*p+k] - z.Data[j*p+k])
				if x.needGrad {
					x.Grad[i*p+k] += diff
				}
				if z.needGrad {
					z.Grad[j*p+k] -= diff
				}
			}
		}
	}
}
