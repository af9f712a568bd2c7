package fitting

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// ErrTooFewSamples: fewer observations than the model has parameters plus
// one (no degrees of freedom left for an error estimate).
var ErrTooFewSamples = errors.New("fitting: too few samples")

// Fit is a model fitted to a set of observations.
type Fit struct {
	Model      string
	Params     []float64
	StdErr     []float64 // NaN where the covariance is unavailable
	Start      []float64 // the starting point given to Levenberg–Marquardt
	Method     string    // MethodQR, MethodVarpro or MethodLM
	Status     Status
	Iterations int
	N          int     // observations
	SSR        float64 // sum of squared residuals
	RMSE       float64
	// MeanRelErr is the in-sample mean |Ŝ − S|/(1 + S).
	MeanRelErr float64
}

// Fit methods.
const (
	// MethodQR: a linear model, solved by one QR.
	MethodQR = "qr"
	// MethodVarpro: an exponential model, by variable projection
	// (Levenberg–Marquardt over the exponents, the linear coefficients
	// solved exactly at each step; see fitVarpro).
	MethodVarpro = "variable-projection"
	// MethodLM: Levenberg–Marquardt over all the parameters, for an
	// exponential model whose variable-projection fit does not apply
	// (its α1 ≥ 0 bound binds, or the reduced problem did not converge).
	MethodLM = "levenberg-marquardt"
)

// Converged reports whether the fit reached a convergence criterion.
func (f *Fit) Converged() bool { return f.Status.Converged() }

// FitModel fits m to obs by least squares on the slowdown. Linear models
// are solved by QR in one pass (Status DirectSolution: the solution is
// exact to rounding; TestLinearQRMatchesLM cross-checks it against
// Levenberg–Marquardt); nonlinear ones start from the best point of a
// small grid over the exponent coefficients (the remaining coefficients
// solved linearly at each grid point) and are fitted by variable
// projection, with Levenberg–Marquardt over all parameters when that does
// not apply (see fitVarpro). A Fit whose Status is not converged is
// returned, not an error: callers report it.
func FitModel(ctx context.Context, m Model, obs []Observation) (*Fit, error) {
	return fitModel(ctx, m, obs, nil)
}

// FitModelFrom is FitModel from a given starting point instead of the
// grid start (linear models ignore it; variable projection uses its
// exponents α2, α3). For the side-by-side benchmark against SciPy, which
// is given the same start.
func FitModelFrom(ctx context.Context, m Model, obs []Observation, start []float64) (*Fit, error) {
	if len(start) != len(m.Params) {
		return nil, fmt.Errorf("model %s: start has %d values, want %d", m.Name, len(start), len(m.Params))
	}
	if err := checkSamples(m, obs); err != nil {
		return nil, err
	}
	if m.Linear {
		return fitLinear(ctx, m, obs)
	}
	return fitFrom(ctx, m, obs, start, nil)
}

func checkSamples(m Model, obs []Observation) error {
	if n := len(m.Params); len(obs) < n+1 {
		return fmt.Errorf("%w: model %s has %d parameters, got %d samples (need ≥ %d)", ErrTooFewSamples, m.Name, n, len(obs), n+1)
	}
	return nil
}

func fitModel(ctx context.Context, m Model, obs []Observation, settings *Settings) (*Fit, error) {
	if err := checkSamples(m, obs); err != nil {
		return nil, err
	}
	if m.Linear {
		return fitLinear(ctx, m, obs)
	}
	start, err := gridStart(m, obs)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	return fitFrom(ctx, m, obs, start, settings)
}

// fitFrom fits a nonlinear model from start: by variable projection where
// the model has one, else (or when it does not apply) by
// Levenberg–Marquardt over all the parameters within the model's bounds.
func fitFrom(ctx context.Context, m Model, obs []Observation, start []float64, settings *Settings) (*Fit, error) {
	s := Settings{Lower: m.Lower, Upper: m.Upper}
	if settings != nil {
		s.MaxIterations = settings.MaxIterations
	}
	if m.evalE != nil {
		f, ok, err := fitVarpro(ctx, m, obs, start, s.MaxIterations)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
		if ok {
			return f, nil
		}
	}
	res, err := Minimize(ctx, problem(m, obs), start, &s)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	f := &Fit{Model: m.Name, Params: res.X, StdErr: res.StdErr, Start: start, Method: MethodLM,
		Status: res.Status, Iterations: res.Iterations, N: len(obs), SSR: res.SSR,
		RMSE: math.Sqrt(res.SSR / float64(len(obs)))}
	f.MeanRelErr = PredictionError(m, f.Params, obs)
	return f, nil
}

func fitLinear(ctx context.Context, m Model, obs []Observation) (*Fit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := len(m.Params)
	// The design rows go straight into the fold's blocks, with the values
	// and in the order LinearLeastSquares(design(m, obs), slowdowns(obs))
	// would give it, so the solution has the same bits without the m×n
	// matrix.
	r, qtb, g := make([]float64, n*n), make([]float64, n), make([]float64, n)
	finite := true
	buf := getFoldBuffer(n)
	defer putScratch(buf)
	foldRows(r, qtb, len(obs), n, *buf, func(blk []float64, i0, b, rows int) {
		for i := 0; i < b; i++ {
			o := &obs[i0+i]
			m.grad(g, nil, o)
			for j, v := range g {
				blk[j*rows+i] = v
			}
			blk[n*rows+i] = o.S
			finite = finite && allFinite(g) && isFinite(o.S)
		}
	})
	if !finite {
		return nil, fmt.Errorf("model %s: fitting: LinearLeastSquares: non-finite input", m.Name)
	}
	x, err := backSolve(nil, r, qtb, n)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Name, err)
	}
	ssr, rel := residualStats(m, x, obs)
	_, se := covarianceFromR(r, n, ssr/float64(len(obs)-n))
	f := &Fit{Model: m.Name, Params: x, StdErr: se, Start: make([]float64, n), Method: MethodQR,
		Status: DirectSolution, Iterations: 1, N: len(obs), SSR: ssr, RMSE: math.Sqrt(ssr / float64(len(obs))), MeanRelErr: rel}
	return f, nil
}

// residualStats returns the sum of squared residuals of m at p and
// PredictionError(m, p, obs) from one evaluation of the model per
// observation (the same sums, term by term, as the two computed apart).
func residualStats(m Model, p []float64, obs []Observation) (ssr, meanRelErr float64) {
	rel := 0.0
	for i := range obs {
		d := m.eval(p, &obs[i]) - obs[i].S
		ssr += d * d
		rel += math.Abs(d) / (1 + obs[i].S)
	}
	return ssr, rel / float64(len(obs))
}

// PredictionError is the MARL paper's error measure, mean |Ŝ − S|/(1 + S):
// the relative error of the predicted run time T_alone·(1 + S).
func PredictionError(m Model, p []float64, obs []Observation) float64 {
	if len(obs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i := range obs {
		s += math.Abs(m.eval(p, &obs[i])-obs[i].S) / (1 + obs[i].S)
	}
	return s / float64(len(obs))
}

// problem is the least-squares problem r_i = f(p; o_i) − S_i with the
// model's analytic Jacobian. For the exponential models it keeps the
// exponentials of the last residual evaluation and reuses them when the
// Jacobian is asked for at the same exponent coefficients, which
// Levenberg–Marquardt does after every accepted step.
func problem(m Model, obs []Observation) Problem {
	if m.evalE == nil {
		return Problem{
			M: len(obs),
			Residuals: func(dst, p []float64) {
				for i := range obs {
					dst[i] = m.eval(p, &obs[i]) - obs[i].S
				}
			},
			Jacobian: func(dst *mat.Dense, p []float64) {
				raw := dst.RawMatrix()
				n := raw.Cols
				for i := range obs {
					m.grad(raw.Data[i*raw.Stride:i*raw.Stride+n], p, &obs[i])
				}
			},
		}
	}
	e := make([]float64, len(obs))
	valid, a2, a3 := false, 0.0, 0.0
	fill := func(p []float64) {
		if valid && p[1] == a2 && p[2] == a3 {
			return
		}
		for i := range obs {
			e[i] = expTerm(p, &obs[i])
		}
		valid, a2, a3 = true, p[1], p[2]
	}
	return Problem{
		M: len(obs),
		Residuals: func(dst, p []float64) {
			fill(p)
			for i := range obs {
				dst[i] = m.evalE(p, &obs[i], e[i]) - obs[i].S
			}
		},
		Jacobian: func(dst *mat.Dense, p []float64) {
			fill(p)
			raw := dst.RawMatrix()
			n := raw.Cols
			for i := range obs {
				m.gradE(raw.Data[i*raw.Stride:i*raw.Stride+n], p, &obs[i], e[i])
			}
		},
	}
}

func design(m Model, obs []Observation) *mat.Dense {
	n := len(m.Params)
	a := mat.NewDense(len(obs), n, nil)
	raw := a.RawMatrix()
	for i := range obs {
		m.grad(raw.Data[i*raw.Stride:i*raw.Stride+n], nil, &obs[i])
	}
	return a
}

func slowdowns(obs []Observation) []float64 {
	s := make([]float64, len(obs))
	for i, o := range obs {
		s[i] = o.S
	}
	return s
}

// gridStart finds a starting point for the exponential models: for each
// (α2, α3) on a grid, the model is linear in the other coefficients, which
// are solved by QR on at most 2000 evenly strided observations; the grid
// point with the least squared error and α1 ≥ 0 wins. Each grid point
// computes its exponentials once, for the QR and for the squared error,
// and folds the design rows straight into the QR blocks.
func gridStart(m Model, obs []Observation) ([]float64, error) {
	sub := obs
	if len(obs) > 2000 {
		stride := (len(obs) + 1999) / 2000
		sub = make([]Observation, 0, 2000)
		for i := 0; i < len(obs); i += stride {
			sub = append(sub, obs[i])
		}
	}
	n := len(m.Params)
	q := n - 2 // the exponential's factor α1, then the model's linear inputs
	var best []float64
	bestSSR := math.Inf(1)
	var lastErr error
	tried := 0
	eb, bb := getScratch(len(sub)), getFoldBuffer(q)
	defer putScratch(eb)
	defer putScratch(bb)
	e, buf, g := *eb, *bb, make([]float64, n)
	r, qtb, x := make([]float64, q*q), make([]float64, q), make([]float64, q)
	p, cand := make([]float64, n), make([]float64, n)
	for _, a2 := range []float64{0.02, 0.05, 0.1, 0.2, 0.35, 0.5} {
		for _, a3 := range []float64{-0.2, 0, 0.2} {
			tried++
			if len(sub) < q {
				lastErr = fmt.Errorf("%w: %d rows for %d unknowns", ErrTooFewResiduals, len(sub), q)
				continue
			}
			// Columns: the exponential, then the model's linear inputs.
			clear(p)
			p[0], p[1], p[2] = 1, a2, a3
			finite := true
			foldRows(r, qtb, len(sub), q, buf, func(blk []float64, i0, b, rows int) {
				for i := 0; i < b; i++ {
					o := &sub[i0+i]
					e[i0+i] = expTerm(p, o)
					m.gradE(g, p, o, e[i0+i])
					blk[i] = g[0]
					finite = finite && isFinite(g[0])
					for j := 3; j < n; j++ {
						blk[(j-2)*rows+i] = g[j]
						finite = finite && isFinite(g[j])
					}
					blk[q*rows+i] = o.S
					finite = finite && isFinite(o.S)
				}
			})
			if !finite {
				lastErr = fmt.Errorf("fitting: LinearLeastSquares: non-finite input")
				continue
			}
			if _, err := backSolve(x, r, qtb, q); err != nil {
				lastErr = err
				continue
			}
			cand[0], cand[1], cand[2] = math.Max(x[0], 0), a2, a3
			copy(cand[3:], x[1:])
			ssr := 0.0
			for i := range sub {
				d := m.evalE(cand, &sub[i], e[i]) - sub[i].S
				ssr += d * d
			}
			if ssr < bestSSR {
				bestSSR, best = ssr, append(best[:0], cand...)
			}
		}
	}
	switch {
	case best != nil:
		return best, nil
	case lastErr != nil: // every grid point's linear solve failed
		return nil, fmt.Errorf("no starting point: %w", lastErr)
	}
	// Every solve succeeded, but no residual sum of squares was finite:
	// the model overflows on these observations.
	return nil, fmt.Errorf("no starting point: the model's squared error is not finite at any of the %d grid starts (observations too large?)", tried)
}

// CVResult is a k-fold cross-validation of one model.
type CVResult struct {
	Model string
	K     int
	// Error is the mean over every held-out observation of |Ŝ − S|/(1 + S).
	Error      float64
	FoldErrors []float64
	// Unconverged counts folds whose fit did not converge (their
	// predictions still count, and the table says so).
	Unconverged int
}

// CrossValidate fits m on k−1 folds and measures PredictionError on the
// held-out fold, for each of k folds drawn by a permutation from src.
func CrossValidate(ctx context.Context, m Model, obs []Observation, k int, src rand.Source) (*CVResult, error) {
	if k < 2 {
		return nil, fmt.Errorf("fitting.folds: must be ≥ 2, got %d", k)
	}
	if len(obs) < k {
		return nil, fmt.Errorf("%w: %d samples for %d folds", ErrTooFewSamples, len(obs), k)
	}
	perm := rand.New(src).Perm(len(obs))
	res := &CVResult{Model: m.Name, K: k}
	total := 0.0
	train := make([]Observation, 0, len(obs))
	test := make([]Observation, 0, len(obs)/k+1)
	for f := 0; f < k; f++ {
		train, test = train[:0], test[:0]
		for i, j := range perm {
			if i%k == f {
				test = append(test, obs[j])
			} else {
				train = append(train, obs[j])
			}
		}
		fit, err := FitModel(ctx, m, train)
		if err != nil {
			return nil, fmt.Errorf("fold %d of %d: %w", f+1, k, err)
		}
		if !fit.Converged() {
			res.Unconverged++
		}
		e := PredictionError(m, fit.Params, test)
		res.FoldErrors = append(res.FoldErrors, e)
		total += e * float64(len(test))
	}
	res.Error = total / float64(len(obs))
	return res, nil
}

// GridStart is the starting point FitModel uses for a nonlinear model
// (exported for the side-by-side benchmark against SciPy).
func GridStart(m Model, obs []Observation) ([]float64, error) { return gridStart(m, obs) }

// MinimizeModel runs Levenberg–Marquardt on m from start with the model's
// analytic Jacobian and bounds, without the QR or grid start of FitModel.
func MinimizeModel(ctx context.Context, m Model, obs []Observation, start []float64) (*Result, error) {
	if len(start) != len(m.Params) {
		return nil, fmt.Errorf("model %s: start has %d values, want %d", m.Name, len(start), len(m.Params))
	}
	return Minimize(ctx, problem(m, obs), start, &Settings{Lower: m.Lower, Upper: m.Upper})
}
