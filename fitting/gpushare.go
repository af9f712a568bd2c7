package fitting

// The GPU-sharing term: a job's speed, relative to running alone, while it
// shares one GPU with one other job, predicted from what running each job
// alone measures (its GPU utilisation). Fitted to profiling's
// gpu_share_samples (Gavel's and Lucid's measured pairs).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/sim"
)

// ShareObservation is one GPU-sharing sample reduced to the term's inputs:
// the job's and its co-runner's standalone GPU utilisation (fractions) and
// the job's measured speed relative to alone, with the keys that group it
// for validation.
type ShareObservation struct {
	UJ, UC, S         float64
	JobType, CoType   string
	JobModel, CoModel string
	GPU, Source, Pair string
	Row               int // index in the input
}

// ShareObservations validates share samples and reduces the good ones.
// Rows in = len(obs) + len(quarantined), always: a sample is quarantined
// for a non-finite or out-of-range utilisation (outside [0, 1]), a
// non-positive or non-finite speed, or an empty job type or GPU.
func ShareObservations(samples []profiling.ShareSample) ([]ShareObservation, []Quarantined) {
	obs := make([]ShareObservation, 0, len(samples))
	var bad []Quarantined
	for i := range samples {
		s := &samples[i]
		reason := ""
		switch {
		case !(s.JobGPUUtil >= 0 && s.JobGPUUtil <= 1):
			reason = fmt.Sprintf("job_gpu_util: want a fraction in [0, 1], got %g", s.JobGPUUtil)
		case !(s.CoGPUUtil >= 0 && s.CoGPUUtil <= 1):
			reason = fmt.Sprintf("co_gpu_util: want a fraction in [0, 1], got %g", s.CoGPUUtil)
		case !(s.Speed > 0) || math.IsInf(s.Speed, 0):
			reason = fmt.Sprintf("speed: want a finite number > 0, got %g", s.Speed)
		case s.JobType == "" || s.CoType == "":
			reason = "job_type/co_type: empty"
		case s.GPU == "":
			reason = "gpu: empty"
		}
		if reason != "" {
			bad = append(bad, Quarantined{Row: i, SampleID: s.SampleID, Reason: fmt.Sprintf("%s:%d: %s", s.File, s.Line, reason)})
			continue
		}
		obs = append(obs, ShareObservation{UJ: s.JobGPUUtil, UC: s.CoGPUUtil, S: s.Speed, JobType: s.JobType, CoType: s.CoType,
			JobModel: s.JobModel, CoModel: s.CoModel, GPU: s.GPU, Source: s.Source, Pair: s.PairID, Row: i})
	}
	return obs, bad
}

// Forms of the GPU-sharing term.
const (
	ShareMedian     = sim.ShareFormMedian
	ShareLinear     = sim.ShareFormLinear
	ShareBilinear   = sim.ShareFormBilinear
	ShareSaturating = sim.ShareFormSaturating
	SharePerType    = "per-type"
)

// ShareForm is one candidate form of the GPU-sharing term.
type ShareForm struct {
	Name, Label, Formula string
	// Standalone forms predict from the two standalone utilisations alone,
	// so they apply to job types never measured in a pair (and to trace
	// jobs); per-type needs pairs of the job's type.
	Standalone bool
	// Baseline marks the constant reference, never the simulator's term.
	Baseline bool
	Params   []string
}

// ShareForms lists the candidate forms, baseline first.
func ShareForms() []ShareForm {
	return []ShareForm{
		{Name: ShareMedian, Label: "constant (median speed)", Formula: "s = median of the training speeds", Standalone: true, Baseline: true, Params: []string{"s0"}},
		{Name: ShareLinear, Label: "linear in both utilisations", Formula: "s = c0 + cj*u_J + cc*u_C", Standalone: true, Params: []string{"c0", "cj", "cc"}},
		{Name: ShareBilinear, Label: "linear with interaction", Formula: "s = c0 + cj*u_J + cc*u_C + cjc*u_J*u_C", Standalone: true, Params: []string{"c0", "cj", "cc", "cjc"}},
		{Name: ShareSaturating, Label: "saturating in summed utilisation", Formula: "s = lambda - alpha*(1 - exp(-beta*U))/beta, U = u_J + u_C (alpha*U at beta = 0)", Standalone: true, Params: []string{"lambda", "alpha", "beta"}},
		{Name: SharePerType, Label: "per-job-type effects (needs pairs of every type)", Formula: "s = mu + a[type(J)] + b[type(C)]; an unseen type's effect is 0 (the average type)", Params: []string{"mu"}},
	}
}

// ShareFormByName returns the named form.
func ShareFormByName(name string) (ShareForm, bool) {
	for _, f := range ShareForms() {
		if f.Name == name {
			return f, true
		}
	}
	return ShareForm{}, false
}

// TypeEffect is one job type's effects in the per-type form: as the job
// and as the co-runner.
type TypeEffect struct {
	Type string  `json:"type"`
	Job  float64 `json:"job"`
	Co   float64 `json:"co"`
}

// ShareFit is one form fitted to one set of observations.
type ShareFit struct {
	Form    string       `json:"form"`
	Scope   string       `json:"scope"` // the GPU type the samples are of, or "all"
	Params  []float64    `json:"params"`
	Names   []string     `json:"names"`
	Effects []TypeEffect `json:"effects,omitempty"` // per-type only, sorted by type
	Method  string       `json:"method"`
	Status  string       `json:"status"`
	N       int          `json:"samples"`
	RMSE    float64      `json:"rmse"`

	job, co map[string]float64 // Effects by type (per-type only)
}

// MinShareSpeed floors a predicted speed: a job sharing a GPU never stops.
const MinShareSpeed = sim.MinSharedSpeed

// Speed predicts the speed of a job with standalone utilisation uj beside a
// co-runner with uc, floored at MinShareSpeed (types are read by the
// per-type form only). It does not allocate.
func (f *ShareFit) Speed(uj, uc float64, jobType, coType string) float64 {
	if f.Form != SharePerType {
		return sim.ShareTerm{Form: f.Form, Params: f.Params}.SharedSpeed(uj, uc)
	}
	// Nil maps (effects not indexed) read as 0: the average type.
	s := f.Params[0] + f.job[jobType] + f.co[coType]
	if !(s >= MinShareSpeed) { // also NaN
		return MinShareSpeed
	}
	return s
}

// SharedSpeed implements sim.GPUSharing: Speed for job types the fit does
// not know (the per-type form's average type). It does not allocate.
func (f *ShareFit) SharedSpeed(uj, uc float64) float64 { return f.Speed(uj, uc, "", "") }

func (f *ShareFit) index() {
	f.job, f.co = make(map[string]float64, len(f.Effects)), make(map[string]float64, len(f.Effects))
	for _, e := range f.Effects {
		f.job[e.Type], f.co[e.Type] = e.Job, e.Co
	}
}

// Validate reports an unknown form, a wrong parameter count or a
// non-finite parameter.
func (f *ShareFit) Validate() error {
	form, ok := ShareFormByName(f.Form)
	if !ok {
		return fmt.Errorf("gpu_share.form: unknown %q", f.Form)
	}
	if len(f.Params) != len(form.Params) {
		return fmt.Errorf("gpu_share %s: %d parameters, want %d", f.Form, len(f.Params), len(form.Params))
	}
	for i, v := range f.Params {
		if bad := datasets.CheckValue(sim.ShareParamColumn(f.Form, i), v); bad != nil {
			return fmt.Errorf("gpu_share %s.%s: %s", f.Form, form.Params[i], bad.Reason)
		}
	}
	for _, e := range f.Effects {
		for _, v := range []float64{e.Job, e.Co} {
			if bad := datasets.CheckValue("gpu_share_param", v); bad != nil {
				return fmt.Errorf("gpu_share %s.effects[%s]: %s", f.Form, e.Type, bad.Reason)
			}
		}
	}
	return nil
}

func (f *ShareFit) finish(obs []ShareObservation) {
	ssr := 0.0
	for i := range obs {
		d := f.Speed(obs[i].UJ, obs[i].UC, obs[i].JobType, obs[i].CoType) - obs[i].S
		ssr += d * d
	}
	f.N, f.RMSE = len(obs), math.Sqrt(ssr/float64(len(obs)))
}

// FitShare fits form to obs by the project's least squares: the linear
// forms by QR (LinearLeastSquares), the saturating one by
// Levenberg–Marquardt (Minimize, analytic Jacobian) from the best point of
// a grid over β with λ and α solved by QR, the median by its definition.
func FitShare(ctx context.Context, form string, obs []ShareObservation) (*ShareFit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fm, ok := ShareFormByName(form)
	if !ok {
		return nil, fmt.Errorf("gpu_share: unknown form %q", form)
	}
	if len(obs) < len(fm.Params)+1 {
		return nil, fmt.Errorf("%w: form %s has %d parameters, got %d samples", ErrTooFewSamples, form, len(fm.Params), len(obs))
	}
	f := &ShareFit{Form: form, Names: fm.Params, Method: MethodQR, Status: DirectSolution.String()}
	switch form {
	case ShareMedian:
		s := make([]float64, len(obs))
		for i := range obs {
			s[i] = obs[i].S
		}
		slices.Sort(s)
		med := s[len(s)/2]
		if len(s)%2 == 0 {
			med = (s[len(s)/2-1] + s[len(s)/2]) / 2
		}
		f.Params, f.Method = []float64{med}, "median"
	case ShareLinear, ShareBilinear:
		n := len(fm.Params)
		a := mat.NewDense(len(obs), n, nil)
		b := make([]float64, len(obs))
		for i := range obs {
			a.Set(i, 0, 1)
			a.Set(i, 1, obs[i].UJ)
			a.Set(i, 2, obs[i].UC)
			if n == 4 {
				a.Set(i, 3, obs[i].UJ*obs[i].UC)
			}
			b[i] = obs[i].S
		}
		x, err := LinearLeastSquares(nil, a, b)
		if err != nil {
			return nil, fmt.Errorf("gpu_share %s: %w", form, err)
		}
		f.Params = x
	case ShareSaturating:
		if err := fitSaturating(ctx, f, obs); err != nil {
			return nil, err
		}
	case SharePerType:
		if err := fitPerType(f, obs); err != nil {
			return nil, err
		}
	}
	f.finish(obs)
	return f, nil
}

func fitSaturating(ctx context.Context, f *ShareFit, obs []ShareObservation) error {
	// Grid start: for each β, s = λ − α·g(β, U) is linear in λ and α.
	best, bestSSR := []float64(nil), math.Inf(1)
	a := mat.NewDense(len(obs), 2, nil)
	b := make([]float64, len(obs))
	x := make([]float64, 2)
	for _, beta := range []float64{0, 0.5, 1, 2, 4, 8} {
		for i := range obs {
			g, _ := sim.SaturatingG(beta, obs[i].UJ+obs[i].UC)
			a.Set(i, 0, 1)
			a.Set(i, 1, -g)
			b[i] = obs[i].S
		}
		if _, err := LinearLeastSquares(x, a, b); err != nil {
			continue
		}
		ssr := 0.0
		for i := range obs {
			d := x[0] + x[1]*a.At(i, 1) - b[i]
			ssr += d * d
		}
		if ssr < bestSSR {
			best, bestSSR = []float64{x[0], x[1], beta}, ssr
		}
	}
	if best == nil {
		return fmt.Errorf("gpu_share saturating: no starting point (the summed utilisations do not vary)")
	}
	p := Problem{
		M: len(obs),
		Residuals: func(dst, p []float64) {
			for i := range obs {
				g, _ := sim.SaturatingG(p[2], obs[i].UJ+obs[i].UC)
				dst[i] = p[0] - p[1]*g - obs[i].S
			}
		},
		Jacobian: func(dst *mat.Dense, p []float64) {
			raw := dst.RawMatrix()
			for i := range obs {
				g, dg := sim.SaturatingG(p[2], obs[i].UJ+obs[i].UC)
				row := raw.Data[i*raw.Stride : i*raw.Stride+3]
				row[0], row[1], row[2] = 1, -g, -p[1]*dg
			}
		},
	}
	// β ≥ 0: saturating (concave) or linear; its upper bound keeps the
	// exponential meaningful over utilisations in [0, 2].
	inf := math.Inf(1)
	res, err := Minimize(ctx, p, best, &Settings{Lower: []float64{-inf, -inf, 0}, Upper: []float64{inf, inf, 50}})
	if err != nil {
		return fmt.Errorf("gpu_share saturating: %w", err)
	}
	f.Params, f.Method, f.Status = res.X, MethodLM, res.Status.String()
	return nil
}

// fitPerType solves s = μ + a[type(J)] + b[type(C)] by QR with one
// indicator column per type seen in each role, the first type of each role
// the reference (a column the others make dependent is dropped and its
// effect left at the reference's), then centres the effects over the types
// so that an unseen type's 0 is the average type.
func fitPerType(f *ShareFit, obs []ShareObservation) error {
	var jt, ct []string
	for i := range obs {
		jt, ct = append(jt, obs[i].JobType), append(ct, obs[i].CoType)
	}
	slices.Sort(jt)
	slices.Sort(ct)
	jt, ct = slices.Compact(jt), slices.Compact(ct)
	// Columns: μ, then the job types but the first, then the co types but the first.
	type col struct {
		role int // 1 job, 2 co
		typ  string
	}
	cols := []col{{0, ""}}
	for _, t := range jt[1:] {
		cols = append(cols, col{1, t})
	}
	for _, t := range ct[1:] {
		cols = append(cols, col{2, t})
	}
	b := make([]float64, len(obs))
	for i := range obs {
		b[i] = obs[i].S
	}
	for {
		if len(obs) < len(cols) {
			return fmt.Errorf("%w: per-type form has %d effects, got %d samples", ErrTooFewSamples, len(cols), len(obs))
		}
		a := mat.NewDense(len(obs), len(cols), nil)
		for i := range obs {
			for k, c := range cols {
				if c.role == 0 || (c.role == 1 && obs[i].JobType == c.typ) || (c.role == 2 && obs[i].CoType == c.typ) {
					a.Set(i, k, 1)
				}
			}
		}
		x, err := LinearLeastSquares(nil, a, b)
		var se *SingularError
		if errors.As(err, &se) && se.Column > 0 {
			cols = slices.Delete(cols, se.Column, se.Column+1)
			continue
		}
		if err != nil {
			return fmt.Errorf("gpu_share per-type: %w", err)
		}
		job, co := map[string]float64{}, map[string]float64{}
		for k, c := range cols {
			switch c.role {
			case 1:
				job[c.typ] = x[k]
			case 2:
				co[c.typ] = x[k]
			}
		}
		mj, mc := 0.0, 0.0
		for _, t := range jt {
			mj += job[t]
		}
		for _, t := range ct {
			mc += co[t]
		}
		mj, mc = mj/float64(len(jt)), mc/float64(len(ct))
		types := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(jt), ct...))))
		f.Effects = f.Effects[:0]
		for _, t := range types {
			e := TypeEffect{Type: t}
			if slices.Contains(jt, t) {
				e.Job = job[t] - mj
			}
			if slices.Contains(ct, t) {
				e.Co = co[t] - mc
			}
			f.Effects = append(f.Effects, e)
		}
		f.Params = []float64{x[0] + mj + mc}
		f.index()
		return nil
	}
}

// ShareError is the error of predictions ŝ against measured speeds s.
type ShareError struct {
	N int `json:"n"`
	// MAE is mean |ŝ − s| (speed, a fraction of standalone).
	MAE float64 `json:"mae"`
	// RunTime is mean |s/ŝ − 1|: the relative error of the predicted run
	// time (run time ∝ 1/speed), the MARL paper's measure of Table III.
	RunTime float64 `json:"run_time_err"`
}

func (e *ShareError) add(pred, s float64) {
	e.N++
	e.MAE += math.Abs(pred - s)
	e.RunTime += math.Abs(s/pred - 1)
}

func (e *ShareError) done() {
	if e.N > 0 {
		e.MAE /= float64(e.N)
		e.RunTime /= float64(e.N)
	} else {
		e.MAE, e.RunTime = math.NaN(), math.NaN()
	}
}

// ShareCVRow is one row of the GPU-sharing error table: one form under one
// validation scheme on one scope.
type ShareCVRow struct {
	Scope  string `json:"scope"`  // the samples validated: a GPU type, a source, or "all"
	Scheme string `json:"scheme"` // see ShareSchemes
	Form   string `json:"form"`
	Folds  int    `json:"folds"`
	ShareError
	// Skipped says why a form has no figure here ("" when it has one).
	Skipped string `json:"skipped,omitempty"`
}

// Validation schemes of the error table.
const (
	// SchemeLeaveTypeOut holds out each job type in turn: every pair with
	// the type (as job or co-runner) is predicted by a fit that saw none
	// of them.
	SchemeLeaveTypeOut = "leave-type-out"
	// SchemeLeaveModelOut holds out each model family (Gavel: all batch
	// sizes of a model together; Lucid's types are its models already).
	SchemeLeaveModelOut = "leave-model-out"
	// SchemePairFolds is k-fold over measured pairs (both jobs of a pair
	// in one fold): every type is seen in training, as if a pair had
	// been measured for every type.
	SchemePairFolds = "pair-k-fold"
	// SchemeAcross is "train on X, predict Y" across GPU types or sources.
	SchemeAcross = "across"
)

// groupFolds runs leave-one-group-out over obs with key giving a sample's
// two groups (job's and co-runner's), and adds every form's held-out
// errors to the rows.
func groupFolds(ctx context.Context, scope, scheme string, obs []ShareObservation, key func(*ShareObservation) (string, string)) ([]ShareCVRow, error) {
	var groups []string
	for i := range obs {
		a, b := key(&obs[i])
		groups = append(groups, a, b)
	}
	slices.Sort(groups)
	groups = slices.Compact(groups)
	forms := ShareForms()
	rows := make([]ShareCVRow, len(forms))
	for k, fm := range forms {
		rows[k] = ShareCVRow{Scope: scope, Scheme: scheme, Form: fm.Name, Folds: len(groups)}
	}
	if len(groups) < 3 {
		for k := range rows {
			rows[k].Skipped = fmt.Sprintf("%d groups", len(groups))
			rows[k].ShareError.done()
		}
		return rows, nil
	}
	train := make([]ShareObservation, 0, len(obs))
	test := make([]ShareObservation, 0, len(obs))
	for _, g := range groups {
		train, test = train[:0], test[:0]
		for i := range obs {
			a, b := key(&obs[i])
			if a == g || b == g {
				test = append(test, obs[i])
			} else {
				train = append(train, obs[i])
			}
		}
		if err := scoreForms(ctx, rows, train, test); err != nil {
			return nil, fmt.Errorf("%s %s, %s held out: %w", scope, scheme, g, err)
		}
	}
	for k := range rows {
		rows[k].ShareError.done()
	}
	return rows, nil
}

// scoreForms fits every form on train and adds its errors on test to
// rows (ShareForms' order). A form that cannot be fitted on train (too
// few samples, a singular design) is marked skipped, not an error.
func scoreForms(ctx context.Context, rows []ShareCVRow, train, test []ShareObservation) error {
	for k, fm := range ShareForms() {
		f, err := FitShare(ctx, fm.Name, train)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			rows[k].Skipped = err.Error()
			continue
		}
		for i := range test {
			rows[k].add(f.Speed(test[i].UJ, test[i].UC, test[i].JobType, test[i].CoType), test[i].S)
		}
	}
	return nil
}

// pairFolds is k-fold cross-validation over pairs, folds assigned by the
// pairs' sorted order strided k ways (deterministic, no seed needed: the
// pairs' ids already mix types).
func pairFolds(ctx context.Context, scope string, obs []ShareObservation, k int) ([]ShareCVRow, error) {
	var pairs []string
	for i := range obs {
		pairs = append(pairs, obs[i].Pair)
	}
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	fold := make(map[string]int, len(pairs))
	for i, p := range pairs {
		fold[p] = i % k
	}
	forms := ShareForms()
	rows := make([]ShareCVRow, len(forms))
	for j, fm := range forms {
		rows[j] = ShareCVRow{Scope: scope, Scheme: SchemePairFolds, Form: fm.Name, Folds: k}
	}
	var train, test []ShareObservation
	for f := 0; f < k; f++ {
		train, test = train[:0], test[:0]
		for i := range obs {
			if fold[obs[i].Pair] == f {
				test = append(test, obs[i])
			} else {
				train = append(train, obs[i])
			}
		}
		if err := scoreForms(ctx, rows, train, test); err != nil {
			return nil, err
		}
	}
	for j := range rows {
		rows[j].ShareError.done()
	}
	return rows, nil
}

// across fits on train and predicts test.
func across(ctx context.Context, scope string, train, test []ShareObservation) ([]ShareCVRow, error) {
	forms := ShareForms()
	rows := make([]ShareCVRow, len(forms))
	for j, fm := range forms {
		rows[j] = ShareCVRow{Scope: scope, Scheme: SchemeAcross, Form: fm.Name, Folds: 1}
	}
	if err := scoreForms(ctx, rows, train, test); err != nil {
		return nil, err
	}
	for j := range rows {
		rows[j].ShareError.done()
	}
	return rows, nil
}

// scopes splits obs by GPU type, in sorted order.
func scopes(obs []ShareObservation) (names []string, by map[string][]ShareObservation) {
	by = map[string][]ShareObservation{}
	for _, o := range obs {
		by[o.GPU] = append(by[o.GPU], o)
	}
	for g := range by {
		names = append(names, g)
	}
	sort.Strings(names)
	return names, by
}
