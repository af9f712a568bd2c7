package nn

import (
	"fmt"
	"math"
)

// cholSolveOp is α = K⁻¹Y for a symmetric positive definite K (n×n) and
// Y (n×r), by Cholesky factorisation K = LLᵀ (kept in aux) and two
// triangular solves per column. The GP posterior uses it for
// (K+σ²I)⁻¹(Y − m) and (K+σ²I)⁻¹k*; n is τ, a handful, so a plain
// O(n³) loop beats calling LAPACK.
//
// Only the symmetric part S = (K+Kᵀ)/2 is used, so the function is
// well-defined for any K, and the gradient is with respect to that
// definition. From dα = −S⁻¹ dS α:
//
//	Ḡ = S⁻¹ ᾱ   (one more pair of triangular solves),
//	dY = Ḡ,     dK = −(Ḡ αᵀ + α Ḡᵀ)/2,
//
// the symmetrised form of the textbook dL/dK = −K⁻ᵀ ᾱ αᵀ.
type cholSolveOp struct{}

// NotPositiveDefiniteError is the error Tape.Err reports when CholSolve
// meets a matrix whose Cholesky factorisation breaks down: pivot Pivot
// came out as Value ≤ 0 (or NaN). A kernel matrix plus σ²I is positive
// definite in exact arithmetic; in floating point it needs σ² well above
// 1e-12 of the kernel's scale, so floor the learned noise.
type NotPositiveDefiniteError struct {
	Pivot int
	Value float64
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("nn: CholSolve: matrix not positive definite (pivot %d is %g)", e.Pivot, e.Value)
}

// CholSolve records K⁻¹Y for symmetric positive definite K. If K is not
// numerically positive definite the result is NaN and Tape.Err reports a
// *NotPositiveDefiniteError: the matrix comes from data and learned
// parameters, so this is a value to handle (skip the sample, raise the
// noise floor), not a crash.
func (t *Tape) CholSolve(k, y *Node) *Node {
	if k.Rows != k.Cols || y.Rows != k.Rows {
		panic(fmt.Sprintf("nn: CholSolve of %dx%d and %dx%d", k.Rows, k.Cols, y.Rows, y.Cols))
	}
	n := t.node(cholSolveOp{}, y.Rows, y.Cols, k, y)
	sz := k.Rows
	n.aux = resize(n.aux, sz*sz)
	l := n.aux
	for i := 0; i < sz; i++ {
		for j := 0; j <= i; j++ {
			s := 0.5 * (k.Data[i*sz+j] + k.Data[j*sz+i])
			for p := 0; p < j; p++ {
				s -= l[i*sz+p] * l[j*sz+p]
			}
			if i == j {
				if !(s > 0) {
					t.fail(&NotPositiveDefiniteError{Pivot: i, Value: s})
					for c := range n.Data {
						n.Data[c] = math.NaN()
					}
					return n
				}
				l[i*sz+i] = math.Sqrt(s)
			} else {
				l[i*sz+j] = s / l[j*sz+j]
			}
		}
	}
	copy(n.Data, y.Data)
	cholSolveInPlace(l, sz, n.Data, y.Cols)
	return n
}

// cholSolveInPlace overwrites the n×r matrix b with (LLᵀ)⁻¹b.
func cholSolveInPlace(l []float64, n int, b []float64, r int) {
	for c := 0; c < r; c++ {
		for i := 0; i < n; i++ {
			s := b[i*r+c]
			for p := 0; p < i; p++ {
				s -= l[i*n+p] * b[p*r+c]
			}
			b[i*r+c] = s / l[i*n+i]
		}
		for i := n - 1; i >= 0; i-- {
			s := b[i*r+c]
			for p := i + 1; p < n; p++ {
				s -= l[p*n+i] * b[p*r+c]
			}
			b[i*r+c] = s / l[i*n+i]
		}
	}
}

func (cholSolveOp) backward(_ *Tape, n *Node) {
	k, y := n.in[0], n.in[1]
	sz, r := n.Rows, n.Cols
	n.aux2 = resize(n.aux2, len(n.Grad))
	g := n.aux2
	copy(g, n.Grad)
	cholSolveInPlace(n.aux, sz, g, r)
	if y.needGrad {
		for i, v := range g {
			y.Grad[i] += v
		}
	}
	if !k.needGrad {
		return
	}
	alpha := n.Data
	for i := 0; i < sz; i++ {
		for j := 0; j < sz; j++ {
			var s float64
			for c := 0; c < r; c++ {
				s += g[i*r+c]*alpha[j*r+c] + alpha[i*r+c]*g[j*r+c]
			}
			k.Grad[i*sz+j] -= 0.5 * s
		}
	}
}
