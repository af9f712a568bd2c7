package fitting

import (
	"context"
	"fmt"
	"math"
)

// Variable projection for the exponential models.
//
// "ours" is S = α1·e + β1·UP + β2·PJ + λ with e = exp(α2·UC + α3·CJ)
// ("ours-no-pcie" the same without the β terms): for fixed θ = (α2, α3)
// it is linear in c = (α1, β1, β2, λ), so the best c is c(θ) = Φ(θ)⁺S,
// Φ's columns being e and the model's linear inputs, and the least-squares
// problem reduces to minimising ‖P⊥(θ)·S‖² over θ alone, P⊥ the projection
// onto the complement of Φ's range (Golub & Pereyra 1973). Its minimisers
// are the full problem's (for c = c(θ)). Levenberg–Marquardt (Minimize,
// unchanged) runs on the two exponents with Kaufman's (1975) Jacobian
// J_k = P⊥·(∂Φ/∂θ_k)·c = α1·P⊥·(e∘x_k), x_1 = UC, x_2 = CJ: it drops a term
// of Golub and Pereyra's that lies in Φ's range, which is orthogonal to the
// residual, so the gradient Jᵀr, and with it every stationary point, is
// exact.
//
// One streaming QR (foldRows) of the m×(q+3) matrix [Φ | S | e∘UC | e∘CJ]
// gives all of it: with R's rows and columns numbered from 0 and q = the
// number of linear coefficients, R[:q,:q]·c = R[:q,q] gives c; the residual
// Φc − S is −R[q,q]·u for a unit vector u; and P⊥·[e∘UC, e∘CJ], expressed in
// the orthonormal basis that Q's columns q, q+1, q+2 span, is rows q…q+2 of
// R's last two columns. So the reduced problem Minimize sees has 3
// residuals and 2 parameters, and each of its iterations costs one pass
// over the observations (m exponentials and one fold) instead of the full
// problem's Jacobian, fold and residual pass over all six parameters; it
// also converges in fewer iterations, the linear coefficients being exact
// at every step. The residual vector and the Jacobian of one θ are given
// in the same basis, which is all that Minimize needs: it only uses them
// together (‖r‖, QR of [J | r]).
type varpro struct {
	m     Model
	obs   []Observation
	n, q  int // model parameters; linear coefficients, n − 2
	nc    int // folded columns: Φ (q of them), S, e∘UC, e∘CJ
	r     []float64
	buf   []float64
	lin   []float64 // Φ's columns after e (the linear inputs), then S: column-major, len(obs) each
	p     []float64
	pc    []float64 // newton's parameter vector (α1 = c₀)
	c     []float64 // c(θ), NaN when Φ(θ) is numerically singular
	e     []float64 // the exponentials of the last fold
	vt    []float64 // newton's R₁₁⁻ᵀ·e₀
	theta [2]float64
	valid bool
}

func newVarpro(m Model, obs []Observation) *varpro {
	n := len(m.Params)
	q := n - 2
	nc := q + 3
	v := &varpro{m: m, obs: obs, n: n, q: q, nc: nc,
		r: make([]float64, nc*nc), buf: foldBuffer(nc), lin: make([]float64, q*len(obs)),
		p: make([]float64, n), pc: make([]float64, n), c: make([]float64, q),
		e: make([]float64, len(obs)), vt: make([]float64, q)}
	// The columns that do not depend on θ, once: the model's gradient
	// with respect to its linear inputs' coefficients, and S.
	g, p := make([]float64, n), make([]float64, n)
	p[0] = 1
	for i := range obs {
		m.gradE(g, p, &obs[i], 1)
		for j := 3; j < n; j++ {
			v.lin[(j-3)*len(obs)+i] = g[j]
		}
		v.lin[(q-1)*len(obs)+i] = obs[i].S
	}
	return v
}

// at folds [Φ | S | e∘UC | e∘CJ] at θ unless it is the last θ folded.
func (v *varpro) at(theta []float64) {
	if v.valid && theta[0] == v.theta[0] && theta[1] == v.theta[1] {
		return
	}
	q, nc, m := v.q, v.nc, len(v.obs)
	a2, a3 := theta[0], theta[1]
	// No right-hand side: the fold's last column is e∘CJ.
	foldRows(v.r, nil, m, nc, v.buf, func(blk []float64, i0, b, rows int) {
		for j := 0; j < q; j++ { // the linear inputs, then S
			copy(blk[(j+1)*rows:(j+1)*rows+b], v.lin[j*m+i0:j*m+i0+b])
		}
		e, w1, w2 := blk[:b], blk[(q+1)*rows:(q+1)*rows+b], blk[(q+2)*rows:(q+2)*rows+b]
		for i := range e {
			// The model's own exponential (expTerm) and its gradient at
			// α1 = 1, e·UC and e·CJ.
			o := &v.obs[i0+i]
			ei := math.Exp(a2*o.UC + a3*o.CJ)
			v.e[i0+i], e[i] = ei, ei
			w1[i], w2[i] = ei*o.UC, ei*o.CJ
		}
	})
	// c(θ) by back-substitution in R[:q,:q], after LinearLeastSquares's
	// scaled-pivot rank test (a singular Φ has no unique c).
	r := v.r
	for j := 0; j < q; j++ {
		cn := 0.0
		for k := 0; k <= j; k++ {
			cn += r[k*nc+j] * r[k*nc+j]
		}
		if !(math.Abs(r[j*nc+j]) >= 1e-10*math.Sqrt(cn)) || cn == 0 {
			for i := range v.c {
				v.c[i] = math.NaN()
			}
			v.theta, v.valid = [2]float64{theta[0], theta[1]}, true
			return
		}
	}
	for i := q - 1; i >= 0; i-- {
		s := r[i*nc+q]
		for j := i + 1; j < q; j++ {
			s -= r[i*nc+j] * v.c[j]
		}
		v.c[i] = s / r[i*nc+i]
	}
	v.theta, v.valid = [2]float64{theta[0], theta[1]}, true
}

// newton returns, at the last θ folded, the gradient g = Jᵀr of
// ½‖r‖² (r = Φc − S, J Kaufman's Jacobian), Kaufman's JᵀJ as the column
// norms of J (for Moré's scaling and the gradient test) and the exact
// Hessian H of the reduced functional ½‖P⊥(θ)·S‖². H is the Schur
// complement, over the linear coefficients, of the full problem's Hessian
// (Gauss–Newton term plus Σ r_i·∇²r_i), which is the reduced functional's
// Hessian wherever c = c(θ) (envelope theorem). With b = Wᵀr and W =
// [e∘UC, e∘CJ], T_jk = Σ r_i·e_i·x_j·x_k, v = R₁₁⁻ᵀ·e₀, a = R₁₃ᵀ·v and
// κ = ‖v‖²:
//
//	H = JᵀJ + α1·T − α1·(a·bᵀ + b·aᵀ) − κ·b·bᵀ,   g = α1·b,
//
// where JᵀJ = α1²·Wᵀ·P⊥·W. Gauss–Newton (JᵀJ alone) converges only
// linearly on this problem, whose residuals are large (measurement noise)
// and whose exponents are strongly correlated with α1: about 20
// iterations from the grid start, against about 6 with H. Only T needs a
// pass over the observations, with the exponentials of the fold and no
// new ones.
func (v *varpro) newton() (g [2]float64, cn [2]float64, h [2][2]float64) {
	q, nc, r := v.q, v.nc, v.r
	a1 := v.c[0]
	rho := r[q*nc+q]
	// Rows q…q+2 of columns q+1, q+2: P⊥W in an orthonormal basis whose
	// first vector is −r/‖r‖ (r = −ρ·u).
	s0, s1 := r[q*nc+q+1], r[q*nc+q+2]
	t00, t01, t11 := r[(q+1)*nc+q+1], r[(q+1)*nc+q+2], r[(q+2)*nc+q+2]
	b := [2]float64{-rho * s0, -rho * s1}
	k00 := a1 * a1 * (s0*s0 + t00*t00)
	k01 := a1 * a1 * (s0*s1 + t00*t01)
	k11 := a1 * a1 * (s1*s1 + t01*t01 + t11*t11)
	// v = R₁₁⁻ᵀ·e₀ by forward substitution; a = R₁₃ᵀ·v.
	var av [2]float64
	kappa := 0.0
	for j := 0; j < q; j++ {
		s := 0.0
		if j == 0 {
			s = 1
		}
		for k := 0; k < j; k++ {
			s -= r[k*nc+j] * v.vt[k]
		}
		v.vt[j] = s / r[j*nc+j]
		kappa += v.vt[j] * v.vt[j]
		av[0] += r[j*nc+q+1] * v.vt[j]
		av[1] += r[j*nc+q+2] * v.vt[j]
	}
	// T from the fold's exponentials and the residuals at c(θ).
	p := v.pc
	p[0], p[1], p[2] = a1, v.theta[0], v.theta[1]
	copy(p[3:], v.c[1:])
	var T00, T01, T11 float64
	for i := range v.obs {
		o := &v.obs[i]
		ri := (v.m.evalE(p, o, v.e[i]) - o.S) * v.e[i]
		T00 += ri * o.UC * o.UC
		T01 += ri * o.UC * o.CJ
		T11 += ri * o.CJ * o.CJ
	}
	h[0][0] = k00 + a1*T00 - 2*a1*av[0]*b[0] - kappa*b[0]*b[0]
	h[0][1] = k01 + a1*T01 - a1*(av[0]*b[1]+b[0]*av[1]) - kappa*b[0]*b[1]
	h[1][1] = k11 + a1*T11 - 2*a1*av[1]*b[1] - kappa*b[1]*b[1]
	h[1][0] = h[0][1]
	return [2]float64{a1 * b[0], a1 * b[1]}, [2]float64{math.Sqrt(k00), math.Sqrt(k11)}, h
}

// solve minimises the reduced functional over θ from theta0 within the
// model's bounds on the exponents: Levenberg–Marquardt's safeguards
// (Moré's scaling, Nielsen's damping, projection onto the bounds,
// Minimize's stopping tests and tolerances) around Newton steps with the
// exact Hessian of newton, damped until H + μ·D² is positive definite.
// Iterations counts Hessian evaluations, as Minimize counts Jacobians.
func (v *varpro) solve(ctx context.Context, theta0, lower, upper []float64, maxIter int) ([2]float64, Status, int, error) {
	const ftol, xtol, gtol = 1e-15, 1e-12, 1e-12
	if maxIter <= 0 {
		maxIter = 100 * (2 + 1)
	}
	x := [2]float64{theta0[0], theta0[1]}
	for j := range x {
		if x[j] < lower[j] || x[j] > upper[j] {
			return x, NotStarted, 0, fmt.Errorf("%w: x[%d] = %g outside [%g, %g]", ErrBadStart, j, x[j], lower[j], upper[j])
		}
	}
	ssr := v.ssrAt(x)
	if !isFinite(ssr) {
		return x, NotStarted, 0, fmt.Errorf("%w: residuals not finite at %v", ErrBadStart, x)
	}
	var diag [2]float64
	mu, nu := 0.0, 2.0
	status, iters := NotStarted, 0
	for status == NotStarted {
		if err := ctx.Err(); err != nil {
			return x, status, iters, err
		}
		if iters >= maxIter {
			status = IterationLimit
			break
		}
		iters++
		v.at(x[:])
		g, cn, h := v.newton()
		if !isFinite(g[0]) || !isFinite(g[1]) || !isFinite(h[0][0]) || !isFinite(h[0][1]) || !isFinite(h[1][1]) {
			status = NonFinite
			break
		}
		gmax, rnorm := 0.0, math.Sqrt(ssr)
		for j := range diag {
			diag[j] = math.Max(diag[j], cn[j])
			if diag[j] == 0 {
				diag[j] = 1
			}
			if cn[j] > 0 && rnorm > 0 {
				gmax = math.Max(gmax, math.Abs(g[j])/(cn[j]*rnorm))
			}
		}
		if ssr == 0 {
			status = ZeroResidual
			break
		}
		if gmax <= gtol {
			status = GradientConvergence
			break
		}
		if iters == 1 {
			mu = 1e-3
		}
		for {
			if err := ctx.Err(); err != nil {
				return x, status, iters, err
			}
			// (H + μD²)·δ = −g by a 2×2 Cholesky; not positive
			// definite: damp more.
			a00 := h[0][0] + mu*diag[0]*diag[0]
			a11 := h[1][1] + mu*diag[1]*diag[1]
			l00 := math.Sqrt(a00)
			l10 := h[1][0] / l00
			d := a11 - l10*l10
			var step [2]float64
			if a00 > 0 && d > 0 {
				l11 := math.Sqrt(d)
				y0 := -g[0] / l00
				y1 := (-g[1] - l10*y0) / l11
				step[1] = y1 / l11
				step[0] = (y0 - l10*step[1]) / l00
			}
			var xNew [2]float64
			for j := range x {
				xNew[j] = math.Min(math.Max(x[j]+step[j], lower[j]), upper[j])
				step[j] = xNew[j] - x[j]
			}
			// Predicted reduction of ‖r‖² by the quadratic model.
			pred := -2*(g[0]*step[0]+g[1]*step[1]) -
				(h[0][0]*step[0]*step[0] + 2*h[0][1]*step[0]*step[1] + h[1][1]*step[1]*step[1])
			dxNorm := math.Hypot(diag[0]*step[0], diag[1]*step[1])
			xNorm := math.Hypot(diag[0]*x[0], diag[1]*x[1])
			ssrNew := math.Inf(1)
			if a00 > 0 && d > 0 {
				if ssrNew = v.ssrAt(xNew); !isFinite(ssrNew) {
					ssrNew = math.Inf(1)
				}
			}
			rho := -1.0
			if pred > 0 {
				rho = (ssr - ssrNew) / pred
			}
			if rho > 0 {
				actRel, predRel := (ssr-ssrNew)/ssr, pred/ssr
				x, ssr = xNew, ssrNew
				mu *= math.Max(1.0/3, 1-math.Pow(2*rho-1, 3))
				nu = 2
				switch {
				case ssr == 0:
					status = ZeroResidual
				case math.Abs(actRel) <= ftol && predRel <= ftol && rho <= 2:
					status = FunctionConvergence
				case dxNorm <= xtol*(xNorm+xtol):
					status = StepConvergence
				}
				break
			}
			if a00 > 0 && d > 0 {
				// Minimize's tests on a rejected step: nothing left to gain
				// above round-off.
				if pred >= 0 && pred/ssr <= ftol {
					status = FunctionConvergence
					break
				}
				if dxNorm <= xtol*(xNorm+xtol) {
					status = StepConvergence
					break
				}
			}
			mu *= nu
			nu *= 2
			if mu > 1e300 || math.IsInf(nu, 1) {
				status = Stalled
				break
			}
		}
	}
	return x, status, iters, nil
}

// ssrAt is ‖P⊥(θ)·S‖², the squared residual at θ and c(θ).
func (v *varpro) ssrAt(theta [2]float64) float64 {
	v.at(theta[:])
	rho := v.r[v.q*v.nc+v.q]
	return rho * rho
}

// fitVarpro fits an exponential model by variable projection from the
// exponents of start. ok is false when variable projection does not apply
// to the answer: the reduced problem did not converge, Φ is singular at
// its end, or α1 < 0 there (its bound binds, which the reduced problem
// cannot express); the caller then runs Levenberg–Marquardt on all the
// parameters, as before variable projection. The Fit's SSR, standard
// errors and in-sample error are computed from the full model at the
// answer, exactly as that path computes them.
func fitVarpro(ctx context.Context, m Model, obs []Observation, start []float64, maxIter int) (f *Fit, ok bool, err error) {
	v := newVarpro(m, obs)
	theta, status, iters, err := v.solve(ctx, start[1:3], m.Lower[1:3], m.Upper[1:3], maxIter)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, err
		}
		return nil, false, nil
	}
	if !status.Converged() {
		return nil, false, nil
	}
	v.at(theta[:])
	if !(v.c[0] >= m.Lower[0]) || !allFinite(v.c) {
		return nil, false, nil
	}
	n := v.n
	p := make([]float64, n)
	p[0], p[1], p[2] = v.c[0], theta[0], theta[1]
	copy(p[3:], v.c[1:])

	// The residuals at the answer, from the exponentials of its fold
	// (v.at(theta) above): expTerm's, as the model's own evaluation.
	ssr, rel := 0.0, 0.0
	for i := range obs {
		d := m.evalE(p, &obs[i], v.e[i]) - obs[i].S
		ssr += d * d
		rel += math.Abs(d) / (1 + obs[i].S)
	}
	if !isFinite(ssr) {
		return nil, false, nil
	}
	se := v.stdErr(ssr, len(obs)-n)
	return &Fit{Model: m.Name, Params: p, StdErr: se, Start: start, Method: MethodVarpro,
		Status: status, Iterations: iters, N: len(obs), SSR: ssr,
		RMSE: math.Sqrt(ssr / float64(len(obs))), MeanRelErr: rel / float64(len(obs))}, true, nil
}

// stdErr returns the standard errors √diag(s²·(JᵀJ)⁻¹), s² = ssr/dof,
// of the full model's parameters at the last θ folded and c(θ), in the
// model's parameter order (NaN where unavailable, as covarianceFromR
// says). J = [Φ, α1·e∘UC, α1·e∘CJ] up to the order of its columns, and
// the fold holds [Φ | S | e∘UC | e∘CJ] = Q·R: deleting R's column for S
// leaves a matrix with the same Gram matrix as [Φ | W], which a small QR
// (nc × n, no pass over the observations) brings back to triangular;
// scaling its last two columns by α1 gives the R of J.
func (v *varpro) stdErr(ssr float64, dof int) []float64 {
	n, q, nc := v.n, v.q, v.nc
	se := make([]float64, n)
	for j := range se {
		se[j] = math.NaN()
	}
	if dof <= 0 {
		return se
	}
	m := make([]float64, nc*n)
	for i := 0; i < nc; i++ {
		for j := 0; j < n; j++ {
			src := j
			if j >= q {
				src = j + 1
			}
			m[i*n+j] = v.r[i*nc+src]
		}
	}
	rj, qtr := make([]float64, n*n), make([]float64, n)
	foldQR(rj, qtr, m, make([]float64, nc), nc, n, foldBuffer(n))
	for i := 0; i < n; i++ {
		rj[i*n+q] *= v.c[0]
		rj[i*n+q+1] *= v.c[0]
	}
	if !allFinite(rj) {
		return se
	}
	_, fse := covarianceFromR(rj, n, ssr/float64(dof))
	// Fold order [α1, linear inputs…, α2, α3] to the model's [α1, α2, α3, linear inputs…].
	se[0], se[1], se[2] = fse[0], fse[q], fse[q+1]
	copy(se[3:], fse[1:q])
	return se
}
