package fitting

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

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
	// DirectSolution: a linear problem solved exactly (to rounding) by QR,
	// without iterating.
	DirectSolution
)

var statusNames = [...]string{"not started", "function convergence", "step convergence",
	"gradient convergence", "zero residual", "iteration limit", "stalled", "non-finite", "direct solution (QR)"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Converged reports whether s is one of the convergence criteria.
func (s Status) Converged() bool {
	return s == FunctionConvergence || s == StepConvergence || s == GradientConvergence || s == ZeroResidual || s == DirectSolution
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
	rmat := make([]float64, n*n)
	row := foldBuffer(n)
	qtr := make([]float64, n)
	diag := make([]float64, n)
	grad := make([]float64, n)
	step := make([]float64, n)
	xNew := make([]float64, n)
	rNew := make([]float64, m)
	small := newDampedSolver(n)
	mu, nu := 0.0, 2.0

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
		// R and (Qᵀr)[:n] of J = QR, accumulated row by row.
		foldQR(rmat, qtr, raw.Data, r, m, n, row)
		// Column norms and the gradient Jᵀr = Rᵀ(Qᵀr) come from R: Q
		// preserves them.
		gmax, rnorm := 0.0, math.Sqrt(ssr)
		for j := 0; j < n; j++ {
			cn, g := 0.0, 0.0
			for k := 0; k <= j; k++ {
				cn += rmat[k*n+j] * rmat[k*n+j]
				g += rmat[k*n+j] * qtr[k]
			}
			cn = math.Sqrt(cn)
			if cn > diag[j] {
				diag[j] = cn
			}
			if diag[j] == 0 {
				diag[j] = 1
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
		if res.Iterations == 1 {
			// μ multiplies D², which already carries the scale of JᵀJ.
			mu = set.InitialDamping
		}

		accepted := false
		for !accepted {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			small.solve(step, rmat, n, qtr, diag, mu)
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
					s += rmat[i*n+j] * step[j]
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
				// As MINPACK does, the function test also applies to a
				// rejected step: when even the model predicts no relative
				// reduction above FTol, further trials only wander in
				// rounding noise.
				if pred >= 0 && pred/ssr <= set.FTol {
					res.Status = FunctionConvergence
					break
				}
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
	rdata, qtr := make([]float64, n*n), make([]float64, n)
	foldQR(rdata, qtr, raw.Data, r, lm.m, n, foldBuffer(n))
	res.Covariance, res.StdErr = covarianceFromR(rdata, n, res.SSR/float64(res.DOF))
}

// covarianceFromR returns s²·(RᵀR)⁻¹ and the square roots of its
// diagonal for the n×n upper-triangular R of J = QR, or (nil, NaNs) when
// R is numerically singular: a scaled pivot |R_jj|/‖R e_j‖ below 1e-13
// (the column is dependent on the earlier ones to within round-off).
func covarianceFromR(rdata []float64, n int, s2 float64) (*mat.SymDense, []float64) {
	se := make([]float64, n)
	for j := range se {
		se[j] = math.NaN()
	}
	for j := 0; j < n; j++ {
		cn := 0.0
		for k := 0; k <= j; k++ {
			cn += rdata[k*n+j] * rdata[k*n+j]
		}
		if cn == 0 || math.Abs(rdata[j*n+j]) < 1e-13*math.Sqrt(cn) {
			return nil, se
		}
	}
	rt := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: append([]float64(nil), rdata...)}
	if !lapack64.Trtri(rt) {
		return nil, se
	}
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
	for j := 0; j < n; j++ {
		se[j] = math.Sqrt(cov.At(j, j))
	}
	return cov, se
}

// dampedSolver solves min ‖[R; √μ·D] δ + [qtr; 0]‖ for an upper-triangular R.
type dampedSolver struct {
	a, b, r, qtr, buf []float64
}

func newDampedSolver(n int) *dampedSolver {
	return &dampedSolver{a: make([]float64, 2*n*n), b: make([]float64, 2*n), r: make([]float64, n*n),
		qtr: make([]float64, n), buf: make([]float64, 2*n*(n+1))}
}

// solve writes δ into dst. rmat holds R in its upper triangle, row-major.
func (d *dampedSolver) solve(dst []float64, rmat []float64, n int, qtr, diag []float64, mu float64) {
	clear(d.a)
	sq := math.Sqrt(mu)
	for i := 0; i < n; i++ {
		copy(d.a[i*n+i:i*n+n], rmat[i*n+i:i*n+n])
		d.a[(n+i)*n+i] = sq * diag[i]
		d.b[i] = -qtr[i]
		d.b[n+i] = 0
	}
	foldQR(d.r, d.qtr, d.a, d.b, 2*n, n, d.buf)
	// Back-substitution R₂δ = qtr₂; a zero pivot (possible only when μ = 0
	// and R is singular) leaves that component at 0.
	for i := n - 1; i >= 0; i-- {
		s := d.qtr[i]
		for j := i + 1; j < n; j++ {
			s -= d.r[i*n+j] * dst[j]
		}
		if d.r[i*n+i] == 0 {
			dst[i] = 0
			continue
		}
		dst[i] = s / d.r[i*n+i]
	}
}

const epsilon = 0x1p-52

// foldQR computes the triangular factor R (n×n, row-major, upper; its
// diagonal may be negative) of the m×n row-major matrix J = QR and
// qtr = (Qᵀr)[:n]. It streams [J | r] once in memory order, folding
// blocks of rows into R with Householder reflections (a tall-skinny QR):
// the block sits in L1 cache, and per row the work is about n² + 4n flops
// with no square root or division, which for curve-fitting Jacobians
// (m ≫ n) is several times faster than column-oriented Householder on
// row-major storage. Q is orthogonal, so the result is as accurate as
// any Householder QR of J.
func foldQR(R, qtr, J, r []float64, m, n int, buf []float64) {
	foldRows(R, qtr, m, n, buf, func(blk []float64, i0, b, rows int) {
		for i := 0; i < b; i++ {
			row := J[(i0+i)*n : (i0+i+1)*n]
			for j, v := range row {
				blk[j*rows+i] = v
			}
			blk[n*rows+i] = r[i0+i]
		}
	})
}

// foldRows is foldQR with the rows of [J | r] written by fill instead of
// read from memory: fill(blk, i0, b, rows) stores rows i0 … i0+b−1 into
// the block column-major, column j (j = n: r) at blk[j*rows : j*rows+b].
// Callers that compute J row by row (the fits) so skip materialising it;
// the arithmetic is foldQR's, so the same rows give the same bits. With a
// nil qtr there is no right-hand side: only J's n columns are folded
// (column n of the block is not read).
func foldRows(R, qtr []float64, m, n int, buf []float64, fill func(blk []float64, i0, b, rows int)) {
	clear(R)
	clear(qtr)
	rows := len(buf) / (n + 1)
	last := n // the last column a reflection applies to: the right-hand side
	if qtr == nil {
		last = n - 1
	}
	for i0 := 0; i0 < m; i0 += rows {
		b := min(rows, m-i0)
		// The block is stored column-major (column j at buf[j*rows:]), so
		// that every inner loop below runs over contiguous memory.
		fill(buf, i0, b, rows)
		for k := 0; k < n; k++ {
			ck := buf[k*rows : k*rows+b]
			sigma := floats.Dot(ck, ck)
			if sigma == 0 {
				continue // the block is already zero in column k
			}
			alpha := R[k*n+k]
			norm := math.Sqrt(alpha*alpha + sigma)
			if math.IsInf(norm, 0) || norm == 0 {
				norm = math.Hypot(alpha, math.Sqrt(sigma))
			}
			beta := -math.Copysign(norm, alpha)
			// H = I − τ·v·vᵀ with v = [1; column k/(α−β)], τ = (β−α)/β.
			tau := (beta - alpha) / beta
			scale := 1 / (alpha - beta)
			floats.Scale(scale, ck)
			for j := k + 1; j <= last; j++ {
				var top *float64
				if j < n {
					top = &R[k*n+j]
				} else {
					top = &qtr[k]
				}
				// gonum's floats kernels are SIMD assembly on amd64 and arm64.
				cj := buf[j*rows : j*rows+b]
				sum := tau * (*top + floats.Dot(ck, cj))
				*top -= sum
				floats.AddScaled(cj, -sum, ck)
			}
			R[k*n+k] = beta
		}
	}
}

// foldBuffer returns a block buffer for foldQR sized to stay in L1 cache.
func foldBuffer(n int) []float64 {
	rows := max(8, 2048/(n+1))
	return make([]float64, rows*(n+1))
}

// scratch is a pool of float64 work buffers for the fits, which a
// cross-validation or a benchmark calls thousands of times: a buffer
// reused is memory already mapped and in cache, where a new one, in a
// young process, is fresh pages that the kernel must fault in and zero.
// The fits overwrite every element they read, so reuse cannot change a
// result.
var scratch = sync.Pool{New: func() any { return new([]float64) }}

// getScratch returns a pooled buffer of length n (contents undefined).
func getScratch(n int) *[]float64 {
	b := scratch.Get().(*[]float64)
	if cap(*b) < n {
		*b = make([]float64, n)
	}
	*b = (*b)[:n]
	return b
}

// getFoldBuffer is foldBuffer(n) from the pool; give it back with putScratch.
func getFoldBuffer(n int) *[]float64 {
	rows := max(8, 2048/(n+1))
	return getScratch(rows * (n + 1))
}

func putScratch(b *[]float64) { scratch.Put(b) }

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func allFinite(v []float64) bool {
	for _, x := range v {
		if !isFinite(x) {
			return false
		}
	}
	return true
}
