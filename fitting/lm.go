package fitting

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Problem is a nonlinear least-squares problem: minimise ½‖r(x)‖² over x,
// where r maps N parameters to M residuals.
type Problem struct {
	// M is the number of residuals.
	M int
	// Residuals writes r(x) into dst, which has length M. It must not keep
	// dst or x.
	Residuals func(dst, x []float64)
	// Jacobian writes ∂r_i/∂x_j into the M×N matrix dst. When nil the
	// Jacobian is approximated by finite differences (see Settings.Diff).
	Jacobian func(dst *mat.Dense, x []float64)
}

// Difference selects the finite-difference scheme of a Jacobian that the
// Problem does not give.
type Difference int

const (
	// Forward differences: N extra residual evaluations per Jacobian,
	// about 8 correct digits.
	Forward Difference = iota
	// Central differences: 2N extra evaluations, about 10 correct digits.
	Central
)

// Settings tunes Minimize. The zero value (or a nil *Settings) means the
// documented defaults.
type Settings struct {
	// MaxIterations bounds the number of Jacobian evaluations; 0 means
	// 100·(N+1).
	MaxIterations int
	// FTol stops when both the actual and the predicted relative reduction
	// of the sum of squares are below it; 0 means 1e-15 (a relative
	// change of the sum of squares of ε only bounds the parameter error by
	// √ε, so this criterion is kept near round-off and XTol does the work).
	FTol float64
	// XTol stops when the scaled step is below XTol times the scaled
	// parameter norm; 0 means 1e-12.
	XTol float64
	// GTol stops when the cosine between the residual vector and every
	// Jacobian column is below it; 0 means 1e-12.
	GTol float64
	// InitialDamping is the first damping parameter μ relative to the
	// scaling; 0 means 1e-3.
	InitialDamping float64
	// Lower and Upper bound the parameters (nil: unbounded; ±Inf entries
	// allowed). Trial points are projected onto the box.
	Lower, Upper []float64
	// Diff is the finite-difference scheme used when Problem.Jacobian is nil.
	Diff Difference
}

// Status says why Minimize stopped.
type Status int

const (
	// NotStarted is the zero Status.
	NotStarted Status = iota
	// FunctionConvergence: the relative reduction of the sum of squares
	// fell below FTol.
	FunctionConvergence
	// StepConvergence: the relative step fell below XTol.
	StepConvergence
	// GradientConvergence: the residuals are orthogonal to the Jacobian
	// columns within GTol.
	GradientConvergence
	// ZeroResidual: the residuals vanished.
	ZeroResidual
	// IterationLimit: MaxIterations was reached before convergence.
	IterationLimit
	// Stalled: no step reduces the sum of squares even with very large
	// damping, yet no tolerance is met (often a Jacobian that disagrees
	// with the residuals, or tolerances below round-off).
	Stalled
	// NonFinite: the residuals or the Jacobian became NaN or infinite.
	NonFinite
)

var statusNames = [...]string{"not started", "function convergence", "step convergence",
	"gradient convergence", "zero residual", "iteration limit", "stalled", "non-finite"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Converged reports whether s is one of the convergence criteria.
func (s Status) Converged() bool {
	return s == FunctionConvergence || s == StepConvergence || s == GradientConvergence || s == ZeroResidual
}

// Result is the outcome of Minimize.
type Result struct {
	X           []float64 // parameters at the end
	Status      Status
	Iterations  int     // Jacobian evaluations
	Evaluations int     // residual evaluations, finite differences included
	SSR         float64 // sum of squared residuals at X
	DOF         int     // M − N
	// Covariance is s²·(JᵀJ)⁻¹ at X with s² = SSR/DOF; nil when JᵀJ is
	// singular or DOF ≤ 0.
	Covariance *mat.SymDense
	// StdErr holds √diag(Covariance), NaN where unavailable.
	StdErr []float64
}

// Errors returned by Minimize.
var (
	// ErrTooFewResiduals: fewer residuals than parameters.
	ErrTooFewResiduals = errors.New("fitting: fewer residuals than parameters")
	// ErrBadStart: the starting point is outside the bounds or gives
	// non-finite residuals.
	ErrBadStart = errors.New("fitting: bad starting point")
)

// Minimize runs Levenberg–Marquardt from x0 and returns the final point
// whatever the status: a Result whose Status is not Converged is reported,
// not hidden. It returns an error only for a malformed problem, a bad
// starting point, or a cancelled ctx.
//
// Each iteration factors the Jacobian once, J = QR (Householder, LAPACK
// Dgeqrf), and tries damped steps δ solving [R; √μ·D] δ ≈ [−Qᵀr; 0] by a
// second small QR, so the normal equations (and their squared condition
// number) are never formed. D holds the running maximum of the Jacobian
// column norms (Moré's scaling), so the method is invariant to the units of
// the parameters. μ follows Nielsen's gain-ratio rule.
func Minimize(ctx context.Context, p Problem, x0 []float64, s *Settings) (*Result, error) {
	n, m := len(x0), p.M
	if p.Residuals == nil {
		panic("fitting: nil Residuals")
	}
	if m < n || n == 0 {
		return nil, fmt.Errorf("%w: %d residuals, %d parameters", ErrTooFewResiduals, m, n)
	}
	var set Settings
	if s != nil {
		set = *s
	}
	if set.MaxIterations <= 0 {
		set.MaxIterations = 100 * (n + 1)
	}
	if set.FTol <= 0 {
		set.FTol = 1e-15
	}
	if set.XTol <= 0 {
		set.XTol = 1e-12
	}
	if set.GTol <= 0 {
		set.GTol = 1e-12
	}
	if set.InitialDamping <= 0 {
		set.InitialDamping = 1e-3
	}
	if (set.Lower != nil && len(set.Lower) != n) || (set.Upper != nil && len(set.Upper) != n) {
		panic("fitting: bounds length mismatch")
	}
	lm := &lmState{p: p, set: set, m: m, n: n}
	x := append([]float64(nil), x0...)
	for j := range x {
		if lo, hi := lm.bounds(j); x[j] < lo || x[j] > hi {
			return nil, fmt.Errorf("%w: x[%d] = %g outside [%g, %g]", ErrBadStart, j, x[j], lo, hi)
		}
	}
	res := &Result{DOF: m - n}
	r := make([]float64, m)
	lm.eval(r, x, res)
	ssr := floats.Dot(r, r)
	if !isFinite(ssr) {
		return nil, fmt.Errorf("%w: residuals not finite at x0 = %v", ErrBadStart, x0)
	}

	jac := mat.NewDense(m, n, nil)
	qr := make([]float64, m*n)
	tau := make([]float64, n)
	qtr := make([]float64, m)
	diag := make([]float64, n)
	grad := make([]float64, n)
	step := make([]float64, n)
	xNew := make([]float64, n)
	rNew := make([]float64, m)
	small := newDampedSolver(n)
	mu, nu := 0.0, 2.0
	work := make([]float64, 1)

	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if res.Iterations >= set.MaxIterations {
			res.Status = IterationLimit
			break
		}
		res.Iterations++
		lm.jacobian(jac, x, r, res)
		raw := jac.RawMatrix()
		if !allFinite(raw.Data) {
			res.Status = NonFinite
			break
		}
		copy(qr, raw.Data)
		a := blas64.General{Rows: m, Cols: n, Stride: n, Data: qr}
		// Column norms for scaling and the gradient test, before factoring.
		gmax, rnorm := 0.0, math.Sqrt(ssr)
		for j := 0; j < n; j++ {
			cn := colNorm(raw.Data, m, n, j)
			if cn > diag[j] {
				diag[j] = cn
			}
			if diag[j] == 0 {
				diag[j] = 1
			}
			g := 0.0
			for i := 0; i < m; i++ {
				g += raw.Data[i*n+j] * r[i]
			}
			grad[j] = g
			if cn > 0 && rnorm > 0 {
				gmax = math.Max(gmax, math.Abs(g)/(cn*rnorm))
			}
		}
		if ssr == 0 {
			res.Status = ZeroResidual
			break
		}
		if gmax <= set.GTol {
			res.Status = GradientConvergence
			break
		}
		if len(work) < n*64 {
			work = make([]float64, n*64)
		}
		lapack64.Geqrf(a, tau, work, len(work))
		copy(qtr, r)
		lapack64.Ormqr(blas.Left, blas.Trans, a, tau, blas64.General{Rows: m, Cols: 1, Stride: 1, Data: qtr}, work, len(work))
		if res.Iterations == 1 {
			// μ multiplies D², which already carries the scale of JᵀJ.
			mu = set.InitialDamping
		}

		accepted := false
		for !accepted {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			small.solve(step, qr, n, qtr[:n], diag, mu)
			// Project onto the bounds; the step is what was actually taken.
			for j := range xNew {
				lo, hi := lm.bounds(j)
				xNew[j] = math.Min(math.Max(x[j]+step[j], lo), hi)
				step[j] = xNew[j] - x[j]
			}
			// Predicted reduction: ‖r‖² − ‖r + Jδ‖² = −2δ·Jᵀr − ‖Rδ‖².
			rd := 0.0
			for i := 0; i < n; i++ {
				s := 0.0
				for j := i; j < n; j++ {
					s += qr[i*n+j] * step[j]
				}
				rd += s * s
			}
			pred := -2*floats.Dot(step, grad) - rd
			dxNorm, xNorm := 0.0, 0.0
			for j := range step {
				dxNorm = math.Hypot(dxNorm, diag[j]*step[j])
				xNorm = math.Hypot(xNorm, diag[j]*x[j])
			}
			lm.eval(rNew, xNew, res)
			ssrNew := floats.Dot(rNew, rNew)
			if !isFinite(ssrNew) {
				ssrNew = math.Inf(1)
			}
			rho := -1.0
			if pred > 0 {
				rho = (ssr - ssrNew) / pred
			}
			if rho > 0 {
				accepted = true
				actRel := (ssr - ssrNew) / ssr
				predRel := pred / ssr
				copy(x, xNew)
				r, rNew = rNew, r
				ssr = ssrNew
				mu *= math.Max(1.0/3, 1-math.Pow(2*rho-1, 3))
				nu = 2
				if ssr == 0 {
					res.Status = ZeroResidual
				} else if math.Abs(actRel) <= set.FTol && predRel <= set.FTol && rho <= 2 {
					res.Status = FunctionConvergence
				} else if dxNorm <= set.XTol*(xNorm+set.XTol) {
					res.Status = StepConvergence
				}
			} else {
				if dxNorm <= set.XTol*(xNorm+set.XTol) {
					// The damped step is already negligible: we are at a
					// minimum to working precision.
					res.Status = StepConvergence
					break
				}
				mu *= nu
				nu *= 2
				if mu > 1e300 || math.IsInf(nu, 1) {
					res.Status = Stalled
					break
				}
			}
		}
		if res.Status != NotStarted {
			break
		}
	}
	res.X = x
	res.SSR = ssr
	lm.covariance(res, jac, x, r)
	return res, nil
}

type lmState struct {
	p    Problem
	set  Settings
	m, n int
	tmp  []float64
	tmp2 []float64
}

func (lm *lmState) bounds(j int) (float64, float64) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if lm.set.Lower != nil {
		lo = lm.set.Lower[j]
	}
	if lm.set.Upper != nil {
		hi = lm.set.Upper[j]
	}
	return lo, hi
}

func (lm *lmState) eval(dst, x []float64, res *Result) {
	res.Evaluations++
	lm.p.Residuals(dst, x)
}

// jacobian fills jac at x, whose residuals are r.
func (lm *lmState) jacobian(jac *mat.Dense, x, r []float64, res *Result) {
	if lm.p.Jacobian != nil {
		lm.p.Jacobian(jac, x)
		return
	}
	if lm.tmp == nil {
		lm.tmp = make([]float64, lm.m)
		lm.tmp2 = make([]float64, lm.m)
	}
	raw := jac.RawMatrix()
	xt := append([]float64(nil), x...)
	for j := 0; j < lm.n; j++ {
		lo, hi := lm.bounds(j)
		if lm.set.Diff == Central {
			h := math.Cbrt(epsilon) * math.Max(math.Abs(x[j]), 1e-8)
			if x[j]+h > hi || x[j]-h < lo {
				// Fall back to a one-sided difference inside the box.
				lm.forward(raw, xt, r, j, lo, hi, res)
				continue
			}
			xt[j] = x[j] + h
			lm.eval(lm.tmp, xt, res)
			xt[j] = x[j] - h
			lm.eval(lm.tmp2, xt, res)
			xt[j] = x[j]
			for i := 0; i < lm.m; i++ {
				raw.Data[i*raw.Stride+j] = (lm.tmp[i] - lm.tmp2[i]) / (2 * h)
			}
			continue
		}
		lm.forward(raw, xt, r, j, lo, hi, res)
	}
}

func (lm *lmState) forward(raw blas64.General, xt, r []float64, j int, lo, hi float64, res *Result) {
	x := xt[j]
	h := math.Sqrt(epsilon) * math.Max(math.Abs(x), 1e-8)
	if x+h > hi {
		h = -h
	}
	if x+h < lo {
		h = 0.5 * (hi - x)
	}
	xt[j] = x + h
	h = xt[j] - x // the step actually represented in floating point
	lm.eval(lm.tmp, xt, res)
	xt[j] = x
	for i := 0; i < lm.m; i++ {
		raw.Data[i*raw.Stride+j] = (lm.tmp[i] - r[i]) / h
	}
}

// covariance sets res.Covariance and res.StdErr from the Jacobian at x.
func (lm *lmState) covariance(res *Result, jac *mat.Dense, x, r []float64) {
	n := lm.n
	res.StdErr = make([]float64, n)
	for j := range res.StdErr {
		res.StdErr[j] = math.NaN()
	}
	if res.DOF <= 0 || !allFinite(x) {
		return
	}
	var discard Result
	lm.jacobian(jac, x, r, &discard)
	res.Evaluations += discard.Evaluations
	raw := jac.RawMatrix()
	if !allFinite(raw.Data) {
		return
	}
	a := blas64.General{Rows: lm.m, Cols: n, Stride: n, Data: append([]float64(nil), raw.Data...)}
	tau := make([]float64, n)
	work := make([]float64, 64*n)
	lapack64.Geqrf(a, tau, work, len(work))
	rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: a.Data[:n*n]}
	maxDiag := 0.0
	for j := 0; j < n; j++ {
		maxDiag = math.Max(maxDiag, math.Abs(rt.Data[j*n+j]))
	}
	for j := 0; j < n; j++ {
		if math.Abs(rt.Data[j*n+j]) <= maxDiag*1e-14*float64(lm.m) {
			return // numerically rank deficient: no covariance
		}
	}
	if !lapack64.Trtri(rt) {
		return
	}
	s2 := res.SSR / float64(res.DOF)
	cov := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			// (RᵀR)⁻¹ = R⁻¹R⁻ᵀ; R⁻¹ is upper triangular.
			s := 0.0
			for k := j; k < n; k++ {
				s += rt.Data[i*n+k] * rt.Data[j*n+k]
			}
			cov.SetSym(i, j, s2*s)
		}
	}
	res.Covariance = cov
	for j := 0; j < n; j++ {
		res.StdErr[j] = math.Sqrt(cov.At(j, j))
	}
}

// dampedSolver solves min ‖[R; √μ·D] δ + [qtr; 0]‖ for an upper-triangular R.
type dampedSolver struct {
	a, tau, work, b []float64
}

func newDampedSolver(n int) *dampedSolver {
	return &dampedSolver{a: make([]float64, 2*n*n), tau: make([]float64, n), work: make([]float64, 64*n), b: make([]float64, 2*n)}
}

// solve writes δ into dst. rqr holds R in its upper triangle with row
// stride n (the leading n rows of the factored Jacobian).
func (d *dampedSolver) solve(dst []float64, rqr []float64, n int, qtr, diag []float64, mu float64) {
	clear(d.a)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			d.a[i*n+j] = rqr[i*n+j]
		}
		d.a[(n+i)*n+i] = math.Sqrt(mu) * diag[i]
		d.b[i] = -qtr[i]
		d.b[n+i] = 0
	}
	a := blas64.General{Rows: 2 * n, Cols: n, Stride: n, Data: d.a}
	lapack64.Geqrf(a, d.tau, d.work, len(d.work))
	lapack64.Ormqr(blas.Left, blas.Trans, a, d.tau, blas64.General{Rows: 2 * n, Cols: 1, Stride: 1, Data: d.b}, d.work, len(d.work))
	rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: d.a[:n*n]}
	copy(dst, d.b[:n])
	blas64.Trsv(blas.NoTrans, rt, blas64.Vector{N: n, Inc: 1, Data: dst})
}

const epsilon = 0x1p-52

func colNorm(data []float64, m, n, j int) float64 {
	return blas64.Nrm2(blas64.Vector{N: m, Inc: n, Data: data[j:]})
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func allFinite(v []float64) bool {
	for _, x := range v {
		if !isFinite(x) {
			return false
		}
	}
	return true
}
