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
// are the full problem's (with c = c(θ)), and it has two unknowns instead
// of six, the linear coefficients being exact at every step.
//
// At each θ one streaming QR (foldRows) of the m×(q+1) matrix [Φ | S]
// (q = the number of linear coefficients) gives c(θ) (R[:q,:q]·c =
// R[:q,q]) and the squared residual R[q,q]² accurately. The step is
// Newton's on the reduced functional, with its exact gradient and Hessian
// (see newton), safeguarded as Levenberg–Marquardt is (see solve):
// Gauss–Newton, with Kaufman's (1975) Jacobian as in most variable
// projection codes, converges only linearly here, the residuals being
// large (measurement noise) and the exponents strongly correlated with
// α1: about 20 iterations from the grid start against 6 to 9.
type varpro struct {
	m     Model
	obs   []Observation
	n, q  int // model parameters; linear coefficients, n − 2
	r     []float64
	buf   []float64
	lin   []float64 // Φ's columns after e (the linear inputs), then S: column-major, len(obs) each
	pc    []float64 // newton's parameter vector (α1 = c₀)
	c     []float64 // c(θ), NaN when Φ(θ) is numerically singular
	e     []float64 // the exponentials of the last fold
	u     []float64 // newton's R₁₁⁻ᵀ·[e₀ | ΦᵀW], q×3
	theta [2]float64
	valid bool

	cols, bufp *[]float64 // pooled: lin and e; buf
}

// release returns v's pooled buffers; v is unusable after.
func (v *varpro) release() {
	putScratch(v.cols)
	putScratch(v.bufp)
	v.lin, v.e, v.buf, v.cols, v.bufp = nil, nil, nil, nil, nil
}

func newVarpro(m Model, obs []Observation) *varpro {
	n := len(m.Params)
	q := n - 2
	// The per-observation columns and the fold's block come from the
	// pool (release gives them back).
	cols, buf := getScratch((q+1)*len(obs)), getFoldBuffer(n)
	v := &varpro{m: m, obs: obs, n: n, q: q, cols: cols, bufp: buf,
		r: make([]float64, (q+1)*(q+1)), buf: *buf, lin: (*cols)[:q*len(obs)], e: (*cols)[q*len(obs):],
		pc: make([]float64, n), c: make([]float64, q), u: make([]float64, 3*q)}
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

// at folds [Φ | S] at θ unless it is the last θ folded, and solves c(θ).
func (v *varpro) at(theta []float64) {
	if v.valid && theta[0] == v.theta[0] && theta[1] == v.theta[1] {
		return
	}
	q, m := v.q, len(v.obs)
	nc := q + 1
	a2, a3 := theta[0], theta[1]
	// No right-hand side: S is the fold's last column, so that R[q,q] is
	// the residual's norm, not a difference of squares.
	foldRows(v.r, nil, m, nc, v.buf, func(blk []float64, i0, b, rows int) {
		for j := 0; j < q; j++ { // the linear inputs, then S
			copy(blk[(j+1)*rows:(j+1)*rows+b], v.lin[j*m+i0:j*m+i0+b])
		}
		e := blk[:b]
		for i := range e {
			o := &v.obs[i0+i]
			e[i] = math.Exp(a2*o.UC + a3*o.CJ) // expTerm's
			v.e[i0+i] = e[i]
		}
	})
	v.theta, v.valid = [2]float64{theta[0], theta[1]}, true
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
}

// newton returns, at the last θ folded, the gradient g of ½‖r‖²
// (r = Φc − S at c = c(θ)), the column norms of Kaufman's Jacobian
// J = α1·P⊥·W, W = [e∘UC, e∘CJ] (for Moré's scaling and the gradient
// test), and the exact Hessian H of the reduced functional ½‖P⊥(θ)·S‖².
// H is the Schur complement, over the linear coefficients, of the full
// problem's Hessian (Gauss–Newton term plus Σ r_i·∇²r_i), which is the
// reduced functional's Hessian wherever c = c(θ) (envelope theorem). With
// b = Wᵀr, T_jk = Σ r_i·e_i·x_j·x_k (x = UC, CJ), U = R₁₁⁻ᵀ·ΦᵀW,
// v = R₁₁⁻ᵀ·e₀, a = Uᵀv and κ = ‖v‖²:
//
//	JᵀJ = α1²·(WᵀW − UᵀU),   g = α1·b,
//	H = JᵀJ + α1·T − α1·(a·bᵀ + b·aᵀ) − κ·b·bᵀ.
//
// One pass over the observations with the fold's exponentials (no new
// ones) gives the sums. JᵀJ comes from a difference of Gram matrices, which
// costs it digits when W is nearly in Φ's range; only the step and the
// scaling use it, not the functional or its gradient, whose accuracy
// decides where the iteration stops.
func (v *varpro) newton() (g [2]float64, cn [2]float64, h [2][2]float64) {
	q, nc, r, m := v.q, v.q+1, v.r, len(v.obs)
	a1 := v.c[0]
	p := v.pc
	p[0], p[1], p[2] = a1, v.theta[0], v.theta[1]
	copy(p[3:], v.c[1:])
	// Column 0 of u: ΦᵀW's first row (Φ's column e); columns 1, 2 of
	// the rows j ≥ 1: the linear inputs'.
	u := v.u
	clear(u)
	var b [2]float64
	var ww00, ww01, ww11, t00, t01, t11 float64
	for i := range v.obs {
		o := &v.obs[i]
		ei := v.e[i]
		w1, w2 := ei*o.UC, ei*o.CJ
		ri := v.m.evalE(p, o, ei) - o.S
		b[0] += w1 * ri
		b[1] += w2 * ri
		ww00 += w1 * w1
		ww01 += w1 * w2
		ww11 += w2 * w2
		t := ri * ei
		t00 += t * o.UC * o.UC
		t01 += t * o.UC * o.CJ
		t11 += t * o.CJ * o.CJ
		u[1] += ei * w1
		u[2] += ei * w2
		for j := 1; j < q; j++ {
			x := v.lin[(j-1)*m+i]
			u[3*j+1] += x * w1
			u[3*j+2] += x * w2
		}
	}
	// R₁₁ᵀ·[v | U] = [e₀ | ΦᵀW] by forward substitution.
	u[0] = 1
	for j := 0; j < q; j++ {
		for c := 0; c < 3; c++ {
			s := u[3*j+c]
			for k := 0; k < j; k++ {
				s -= r[k*nc+j] * u[3*k+c]
			}
			u[3*j+c] = s / r[j*nc+j]
		}
	}
	var kappa, a0, a1v, uu00, uu01, uu11 float64
	for j := 0; j < q; j++ {
		vj, u0, u1 := u[3*j], u[3*j+1], u[3*j+2]
		kappa += vj * vj
		a0 += u0 * vj
		a1v += u1 * vj
		uu00 += u0 * u0
		uu01 += u0 * u1
		uu11 += u1 * u1
	}
	k00 := a1 * a1 * math.Max(ww00-uu00, 0)
	k01 := a1 * a1 * (ww01 - uu01)
	k11 := a1 * a1 * math.Max(ww11-uu11, 0)
	h[0][0] = k00 + a1*t00 - 2*a1*a0*b[0] - kappa*b[0]*b[0]
	h[0][1] = k01 + a1*t01 - a1*(a0*b[1]+b[0]*a1v) - kappa*b[0]*b[1]
	h[1][1] = k11 + a1*t11 - 2*a1*a1v*b[1] - kappa*b[1]*b[1]
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
	defer v.release()
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

// ssrAt is ‖P⊥(θ)·S‖², the squared residual at θ and c(θ).
func (v *varpro) ssrAt(theta [2]float64) float64 {
	v.at(theta[:])
	nc := v.q + 1
	rho := v.r[v.q*nc+v.q]
	return rho * rho
}

// stdErr returns the standard errors √diag(s²·(JᵀJ)⁻¹), s² = ssr/dof,
// of the full model's parameters at the last θ folded and c(θ), in the
// model's parameter order (NaN where unavailable, as covarianceFromR
// says): J is the model's Jacobian [e, α1·e∘UC, α1·e∘CJ, linear inputs],
// folded (in the order [e, linear inputs, α1·e∘UC, α1·e∘CJ]) from the
// last fold's exponentials.
func (v *varpro) stdErr(ssr float64, dof int) []float64 {
	n, q, m := v.n, v.q, len(v.obs)
	se := make([]float64, n)
	for j := range se {
		se[j] = math.NaN()
	}
	if dof <= 0 {
		return se
	}
	a1 := v.c[0]
	rj := make([]float64, n*n)
	foldRows(rj, nil, m, n, v.buf, func(blk []float64, i0, b, rows int) {
		for j := 0; j < q-1; j++ { // the linear inputs
			copy(blk[(j+1)*rows:(j+1)*rows+b], v.lin[j*m+i0:j*m+i0+b])
		}
		for i := 0; i < b; i++ {
			o := &v.obs[i0+i]
			ei := v.e[i0+i]
			blk[i] = ei
			blk[q*rows+i] = a1 * ei * o.UC
			blk[(q+1)*rows+i] = a1 * ei * o.CJ
		}
	})
	if !allFinite(rj) {
		return se
	}
	_, fse := covarianceFromR(rj, n, ssr/float64(dof))
	// Fold order [α1, linear inputs…, α2, α3] to the model's [α1, α2, α3, linear inputs…].
	se[0], se[1], se[2] = fse[0], fse[q], fse[q+1]
	copy(se[3:], fse[1:q])
	return se
}
