package fitting

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/sim"
)

// ScopeAll is the scope of every sample pooled, whatever its GPU.
const ScopeAll = "all"

// SimShareGPU is the GPU type whose fit the simulator uses when the
// samples have it: the V100 of the PAI trace's servers and of DAS's
// clusters (DESIGN.md §4). Without V100 samples, the pooled fit.
const SimShareGPU = "v100"

// ShareProfile is one measured job configuration's standalone GPU
// utilisation on one GPU type: the pool from which the simulator draws the
// profile of a trace job that names no model.
type ShareProfile struct {
	Config  string  `json:"config"`
	Type    string  `json:"type"`
	Model   string  `json:"model"`
	GPU     string  `json:"gpu"`
	GPUUtil float64 `json:"gpu_util"`
}

// GPUShareTerm is the GPU-sharing term of model.json: the form chosen by
// leave-type-out validation, fitted on the simulator's scope, with every
// form's fit on every scope (for predicting samples of other GPU types)
// and the pool of measured standalone profiles.
type GPUShareTerm struct {
	Form    string `json:"form"`
	Formula string `json:"formula"`
	Scope   string `json:"scope"`
	// Selection says how Form was chosen.
	Selection string `json:"selection"`
	// LeaveTypeOut is the chosen form's leave-type-out error on Scope;
	// Baseline the median's under the same folds.
	LeaveTypeOut ShareError `json:"leave_type_out"`
	Baseline     ShareError `json:"baseline"`
	// Fits holds every form fitted on every scope (each GPU type, and
	// ScopeAll), in ShareForms' order within scopes sorted by name.
	Fits []*ShareFit `json:"fits"`
	// Profiles is the pool of standalone profiles on Scope, sorted by
	// config (every GPU's when Scope is ScopeAll).
	Profiles []ShareProfile `json:"profiles"`
	// Samples and Quarantined count the share samples read and refused.
	Samples     int `json:"samples"`
	Quarantined int `json:"quarantined"`

	term *ShareFit
}

// Term is the chosen form's fit on Scope.
func (t *GPUShareTerm) Term() *ShareFit {
	if t.term == nil {
		t.term = t.FitFor(t.Scope)
	}
	return t.term
}

// SimParams is the term as an environment carries it (sim.GPUShareParams
// with the default scale and profile rule): the chosen fit as a
// sim.ShareTerm and the pool of standalone profiles.
func (t *GPUShareTerm) SimParams() *sim.GPUShareParams {
	p := sim.DefaultGPUShare()
	f := t.Term()
	p.Term = &sim.ShareTerm{Form: f.Form, Params: slices.Clone(f.Params)}
	for _, x := range t.Profiles {
		p.Profiles = append(p.Profiles, sim.GPUProfile{Model: x.Model, GPUUtil: x.GPUUtil})
	}
	return &p
}

// FitFor returns the chosen form's fit on GPU type gpu, or on ScopeAll
// when gpu has none; nil if neither exists.
func (t *GPUShareTerm) FitFor(gpu string) *ShareFit {
	var all *ShareFit
	for _, f := range t.Fits {
		if f.Form != t.Form {
			continue
		}
		if f.Scope == gpu {
			return f
		}
		if f.Scope == ScopeAll {
			all = f
		}
	}
	return all
}

// Validate checks every fit and that the chosen one exists.
func (t *GPUShareTerm) Validate() error {
	f, ok := ShareFormByName(t.Form)
	if !ok || !f.Standalone || f.Baseline {
		return fmt.Errorf("gpu_share.form: %q is not a standalone form", t.Form)
	}
	for _, f := range t.Fits {
		if err := f.Validate(); err != nil {
			return err
		}
		f.index()
	}
	if t.FitFor(t.Scope) == nil {
		return fmt.Errorf("gpu_share: no %s fit on scope %q", t.Form, t.Scope)
	}
	for i, p := range t.Profiles {
		if !(p.GPUUtil >= 0 && p.GPUUtil <= 1) {
			return fmt.Errorf("gpu_share.profiles[%d] (%s): gpu_util %g outside [0, 1]", i, p.Config, p.GPUUtil)
		}
	}
	t.term = nil
	return nil
}

// ShareReport is the outcome of fitting and validating the GPU-sharing
// term on one sample set.
type ShareReport struct {
	Samples     int
	Quarantined []Quarantined
	AboveOne    int // accepted samples with speed > 1 (kept)
	Fits        []*ShareFit
	CV          []ShareCVRow
	Term        *GPUShareTerm
}

// RunShare validates share samples, fits every form on every scope (each
// GPU type and all pooled), and validates them: leave-type-out and
// leave-model-out per scope, k-fold over pairs (cfg.Folds), and across GPU
// types and sources (fit on the others, predict one). The simulator's form
// is the standalone form with the least leave-type-out mean absolute error
// on its scope (SimShareGPU, else all): chosen by held-out error only.
func RunShare(ctx context.Context, samples []profiling.ShareSample, cfg Config) (*ShareReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	obs, bad := ShareObservations(samples)
	rep := &ShareReport{Samples: len(samples), Quarantined: bad}
	if len(obs) == 0 {
		if len(bad) > 0 {
			return nil, fmt.Errorf("%w: all %d share samples quarantined; first: %s", ErrTooFewSamples, len(bad), bad[0].Reason)
		}
		return nil, fmt.Errorf("%w: no share samples", ErrTooFewSamples)
	}
	for i := range obs {
		if obs[i].S > 1 {
			rep.AboveOne++
		}
	}
	names, by := scopes(obs)
	scopeNames := append(slices.Clone(names), ScopeAll)
	by[ScopeAll] = obs
	slices.Sort(scopeNames)
	for _, sc := range scopeNames {
		so := by[sc]
		for _, fm := range ShareForms() {
			f, err := FitShare(ctx, fm.Name, so)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue // the table says which forms a scope does not support
			}
			f.Scope = sc
			rep.Fits = append(rep.Fits, f)
		}
		typ := func(o *ShareObservation) (string, string) { return o.JobType, o.CoType }
		rows, err := groupFolds(ctx, sc, SchemeLeaveTypeOut, so, typ)
		if err != nil {
			return nil, err
		}
		rep.CV = append(rep.CV, rows...)
		if differs(so) {
			mod := func(o *ShareObservation) (string, string) { return o.JobModel, o.CoModel }
			rows, err := groupFolds(ctx, sc, SchemeLeaveModelOut, so, mod)
			if err != nil {
				return nil, err
			}
			rep.CV = append(rep.CV, rows...)
		}
		rows, err = pairFolds(ctx, sc, so, cfg.Folds)
		if err != nil {
			return nil, err
		}
		rep.CV = append(rep.CV, rows...)
	}
	// Across GPU types within a source, and across sources.
	sources := map[string][]string{}
	for _, g := range names {
		src := by[g][0].Source
		sources[src] = append(sources[src], g)
	}
	srcNames := make([]string, 0, len(sources))
	for s := range sources {
		srcNames = append(srcNames, s)
	}
	slices.Sort(srcNames)
	for _, src := range srcNames {
		gpus := sources[src]
		if len(gpus) < 2 {
			continue
		}
		for _, g := range gpus {
			var train []ShareObservation
			for _, o := range gpus {
				if o != g {
					train = append(train, by[o]...)
				}
			}
			rows, err := across(ctx, g+" ← "+strings.Join(slices.DeleteFunc(slices.Clone(gpus), func(x string) bool { return x == g }), "+"), train, by[g])
			if err != nil {
				return nil, err
			}
			rep.CV = append(rep.CV, rows...)
		}
	}
	if len(srcNames) > 1 {
		for _, src := range srcNames {
			var train, test []ShareObservation
			for _, o := range obs {
				if o.Source == src {
					test = append(test, o)
				} else {
					train = append(train, o)
				}
			}
			rows, err := across(ctx, src+" ← others", train, test)
			if err != nil {
				return nil, err
			}
			rep.CV = append(rep.CV, rows...)
		}
	}
	term, err := chooseTerm(rep, samples, by, slices.Contains(names, SimShareGPU))
	if err != nil {
		return nil, err
	}
	rep.Term = term
	return rep, nil
}

// differs reports whether some sample's model family differs from its
// type (so that leave-model-out is a different scheme).
func differs(obs []ShareObservation) bool {
	for i := range obs {
		if obs[i].JobModel != obs[i].JobType || obs[i].CoModel != obs[i].CoType {
			return true
		}
	}
	return false
}

func chooseTerm(rep *ShareReport, samples []profiling.ShareSample, by map[string][]ShareObservation, haveSimGPU bool) (*GPUShareTerm, error) {
	scope := ScopeAll
	if haveSimGPU {
		scope = SimShareGPU
	}
	t := &GPUShareTerm{Scope: scope, Fits: rep.Fits, Samples: rep.Samples, Quarantined: len(rep.Quarantined)}
	best := math.Inf(1)
	for _, r := range rep.CV {
		if r.Scope != scope || r.Scheme != SchemeLeaveTypeOut || r.Skipped != "" {
			continue
		}
		fm, _ := ShareFormByName(r.Form)
		if fm.Baseline {
			t.Baseline = r.ShareError
			continue
		}
		if fm.Standalone && r.MAE < best {
			best, t.Form, t.Formula, t.LeaveTypeOut = r.MAE, fm.Name, fm.Formula, r.ShareError
		}
	}
	if t.Form == "" {
		return nil, fmt.Errorf("gpu_share: no standalone form could be validated on scope %s (too few job types?)", scope)
	}
	t.Selection = fmt.Sprintf("the standalone form with the least leave-type-out mean absolute error on %s", scope)
	t.Profiles = profilesOf(samples, by[scope])
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// profilesOf is the pool of standalone profiles of the samples obs (jobs
// and co-runners): one per job configuration and GPU type (its first
// appearance in sample order), sorted by configuration then GPU.
func profilesOf(samples []profiling.ShareSample, obs []ShareObservation) []ShareProfile {
	seen := map[[2]string]bool{}
	var out []ShareProfile
	add := func(cfg, typ, model, gpu string, u float64) {
		if cfg == "" {
			cfg = typ
		}
		k := [2]string{cfg, gpu}
		if !seen[k] {
			seen[k] = true
			out = append(out, ShareProfile{Config: cfg, Type: typ, Model: model, GPU: gpu, GPUUtil: u})
		}
	}
	for i := range obs {
		s := &samples[obs[i].Row]
		add(s.JobConfig, s.JobType, s.JobModel, s.GPU, s.JobGPUUtil)
		add(s.CoConfig, s.CoType, s.CoModel, s.GPU, s.CoGPUUtil)
	}
	slices.SortFunc(out, func(a, b ShareProfile) int {
		if c := strings.Compare(a.Config, b.Config); c != 0 {
			return c
		}
		return strings.Compare(a.GPU, b.GPU)
	})
	return out
}

// Markdown renders the GPU-sharing error table.
func (r *ShareReport) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# GPU-sharing term: prediction error\n\n")
	fmt.Fprintf(&b, "Speed relative to running alone of a job sharing one GPU with one other job, predicted from the two jobs' "+
		"standalone GPU utilisation. %d samples read, %d quarantined, %d with a measured speed above 1 (measurement noise, kept). "+
		"MAE = mean |ŝ − s|; run-time error = mean |s/ŝ − 1| (relative error of the predicted run time, the MARL paper's measure). "+
		"Every figure is on samples held out of the fit:\n\n", r.Samples, len(r.Quarantined), r.AboveOne)
	fmt.Fprintf(&b, "- **%s**: each job type in turn is held out; every pair with it (as job or co-runner) is predicted by a fit that saw none of them.\n", SchemeLeaveTypeOut)
	fmt.Fprintf(&b, "- **%s**: the same with whole model families (Gavel: all batch sizes of a model).\n", SchemeLeaveModelOut)
	fmt.Fprintf(&b, "- **%s**: k-fold over measured pairs; every type is seen in training (what a pair measured for every type would give).\n", SchemePairFolds)
	fmt.Fprintf(&b, "- **%s**: fit on the samples after ←, predict those before it.\n\n", SchemeAcross)
	if t := r.Term; t != nil {
		fmt.Fprintf(&b, "Simulator's term: **%s** (%s) on %s, chosen as %s: leave-type-out MAE %.3f against the median baseline's %.3f.\n\n",
			t.Form, t.Formula, t.Scope, t.Selection, t.LeaveTypeOut.MAE, t.Baseline.MAE)
	}
	fmt.Fprintf(&b, "| scope | scheme | form | folds | held-out predictions | MAE | run-time error | note |\n|---|---|---|---:|---:|---:|---:|---|\n")
	for _, c := range r.CV {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s | %s |\n", c.Scope, c.Scheme, c.Form, c.Folds, c.N, num3(c.MAE), pct(c.RunTime), c.Skipped)
	}
	fmt.Fprintf(&b, "\n## Fits on all samples of each scope\n\n| scope | form | samples | RMSE | method | status | parameters |\n|---|---|---:|---:|---|---|---|\n")
	for _, f := range r.Fits {
		var ps []string
		for i, v := range f.Params {
			ps = append(ps, fmt.Sprintf("%s = %.4g", f.Names[i], v))
		}
		if len(f.Effects) > 0 {
			ps = append(ps, fmt.Sprintf("%d type effects", len(f.Effects)))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.4f | %s | %s | %s |\n", f.Scope, f.Form, f.N, f.RMSE, f.Method, f.Status, strings.Join(ps, ", "))
	}
	if len(r.Quarantined) > 0 {
		fmt.Fprintf(&b, "\nQuarantined samples, first %d of %d:\n\n", min(len(r.Quarantined), 20), len(r.Quarantined))
		for _, q := range r.Quarantined[:min(len(r.Quarantined), 20)] {
			fmt.Fprintf(&b, "- %d (%s): %s\n", q.Row, q.SampleID, q.Reason)
		}
	}
	return b.Bytes()
}

func num3(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", v)
}

// Share artifact files.
const (
	ShareTableFile  = "gpu_share.md"
	ShareErrorsFile = "gpu_share_errors.parquet"
)

// ShareErrorRow is one row of gpu_share_errors.parquet.
type ShareErrorRow struct {
	Scope   string  `parquet:"scope"`
	Scheme  string  `parquet:"scheme"`
	Form    string  `parquet:"form"`
	Folds   int32   `parquet:"folds"`
	N       int64   `parquet:"n"`
	MAE     float64 `parquet:"mae"`
	RunTime float64 `parquet:"run_time_err"`
	Skipped string  `parquet:"skipped"`
}

// WriteShareArtifacts writes the error table (gpu_share.md and
// gpu_share_errors.parquet) into dir, atomically.
func WriteShareArtifacts(ctx context.Context, dir string, r *ShareReport, meta datasets.FileMeta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rows := make([]ShareErrorRow, len(r.CV))
	for i, c := range r.CV {
		rows[i] = ShareErrorRow{Scope: c.Scope, Scheme: c.Scheme, Form: c.Form, Folds: int32(c.Folds), N: int64(c.N), MAE: c.MAE, RunTime: c.RunTime, Skipped: c.Skipped}
	}
	if err := datasets.WriteParquet(filepath.Join(dir, ShareErrorsFile), meta, rows); err != nil {
		return fmt.Errorf("fit artifacts: %w", err)
	}
	if err := pipeline.WriteFileAtomic(filepath.Join(dir, ShareTableFile), r.Markdown()); err != nil {
		return fmt.Errorf("fit artifacts: %w", err)
	}
	return nil
}
