package fitting

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
)

// Config configures the fit stage.
type Config struct {
	// Folds is k of the k-fold cross-validation.
	Folds int `mapstructure:"folds" yaml:"folds" json:"folds"`
	// MaxIterations bounds Levenberg–Marquardt (0: the solver's default).
	MaxIterations int `mapstructure:"max_iterations" yaml:"max_iterations" json:"max_iterations"`
}

// Bounds of Config: each fold refits every model, so folds multiply the
// work (leave-one-out on the paper's 480 samples is within it), and the
// solver converges in tens of iterations, so a million is no bound in
// practice but keeps a typo from running for days.
const (
	MaxFolds           = 1000
	MaxIterationsBound = 1_000_000
)

// DefaultConfig is 5-fold cross-validation and the solver's defaults.
func DefaultConfig() Config { return Config{Folds: 5} }

// Validate reports the first bad field, named by its config key.
func (c Config) Validate() error {
	if c.Folds < 2 || c.Folds > MaxFolds {
		return fmt.Errorf("fit.folds: must be in [2, %d], got %d", MaxFolds, c.Folds)
	}
	if c.MaxIterations < 0 || c.MaxIterations > MaxIterationsBound {
		return fmt.Errorf("fit.max_iterations: must be in [0, %d], got %d", MaxIterationsBound, c.MaxIterations)
	}
	return nil
}

// Report is the outcome of fitting every Table III model to one sample set.
type Report struct {
	Samples        int // rows in
	Quarantined    []Quarantined
	CoresPerSocket float64
	Folds          int
	Fits           []*Fit      // one per Models(), in order
	CV             []*CVResult // idem
}

// Run validates samples, fits the five Table III models on all accepted
// samples and cross-validates each with cfg.Folds folds drawn from src. It
// fails if the samples disagree on cores_per_socket (one model.json holds
// one n_core) or if too few samples survive validation.
func Run(ctx context.Context, samples []profiling.Sample, cfg Config, src rand.Source) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	obs, bad := Observations(samples)
	rep := &Report{Samples: len(samples), Quarantined: bad, Folds: cfg.Folds}
	for i, s := range samples {
		if len(bad) > 0 && containsRow(bad, i) {
			continue
		}
		if rep.CoresPerSocket == 0 {
			rep.CoresPerSocket = s.CoresPerSocket
		} else if s.CoresPerSocket != rep.CoresPerSocket {
			return nil, fmt.Errorf("sample %d (%s): cores_per_socket %g differs from %g: fit one server kind at a time",
				i, s.SampleID, s.CoresPerSocket, rep.CoresPerSocket)
		}
	}
	if len(obs) == 0 {
		return nil, fmt.Errorf("%w: all %d samples quarantined (first: row %d: %s)", ErrTooFewSamples, len(samples), firstRow(bad), firstReason(bad))
	}
	// One fold assignment for every model, so that they are compared on
	// the same held-out sets.
	seed := rand.New(src).Uint64()
	for _, m := range Models() {
		fit, err := fitModel(ctx, m, obs, &Settings{MaxIterations: cfg.MaxIterations})
		if err != nil {
			return nil, err
		}
		cv, err := CrossValidate(ctx, m, obs, cfg.Folds, rand.NewPCG(seed, 0))
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Name, err)
		}
		rep.Fits = append(rep.Fits, fit)
		rep.CV = append(rep.CV, cv)
	}
	return rep, nil
}

func containsRow(q []Quarantined, row int) bool {
	for _, x := range q {
		if x.Row == row {
			return true
		}
	}
	return false
}

func firstRow(q []Quarantined) int {
	if len(q) == 0 {
		return -1
	}
	return q[0].Row
}

func firstReason(q []Quarantined) string {
	if len(q) == 0 {
		return "none"
	}
	return q[0].Reason
}

// Converged reports whether every fit and every cross-validation fold
// converged.
func (r *Report) Converged() bool {
	for i, f := range r.Fits {
		if !f.Converged() || r.CV[i].Unconverged > 0 {
			return false
		}
	}
	return true
}

// Model returns the InterferenceModel of the report's "ours" fit.
func (r *Report) Model() *InterferenceModel {
	for i, f := range r.Fits {
		if f.Model != Ours {
			continue
		}
		m := &InterferenceModel{
			SchemaVersion: modelSchemaVersion, Model: Ours, Formula: oursFormula, CoresPerSocket: r.CoresPerSocket,
			Alpha1: f.Params[0], Alpha2: f.Params[1], Alpha3: f.Params[2], Beta1: f.Params[3], Beta2: f.Params[4], Lambda: f.Params[5],
			Units: modelUnits, Status: f.Status.String(), Converged: f.Converged(), Iterations: f.Iterations,
			Samples: f.N, Quarantined: len(r.Quarantined), RMSE: f.RMSE, CVError: r.CV[i].Error, Folds: r.Folds,
			Provenance: fmt.Sprintf("fitting.Run: %s on %d samples (%d quarantined)", f.Method, f.N, len(r.Quarantined)),
		}
		for j, p := range ours().Params {
			se, ok := f.StdErr[j], !math.IsNaN(f.StdErr[j])
			if !ok {
				se = 0
			}
			m.Coefficients = append(m.Coefficients, Coefficient{Name: p.Name, Value: f.Params[j], StdErr: se, StdErrKnown: ok, Unit: p.Unit})
		}
		return m
	}
	return nil
}

// CoefficientRow is one row of coefficients.parquet: one coefficient of one
// model, with the model's fit metrics repeated on each of its rows.
type CoefficientRow struct {
	Model      string  `parquet:"model"`
	Parameter  string  `parquet:"parameter"`
	Unit       string  `parquet:"unit"`
	Value      float64 `parquet:"value"`
	StdErr     float64 `parquet:"std_err"` // NaN when the covariance was unavailable
	Method     string  `parquet:"method"`
	Samples    int64   `parquet:"samples"`
	RMSE       float64 `parquet:"rmse"`
	MeanRelErr float64 `parquet:"mean_rel_err"` // in-sample mean |Ŝ−S|/(1+S)
	CVError    float64 `parquet:"cv_error"`     // k-fold mean |Ŝ−S|/(1+S)
	Folds      int32   `parquet:"folds"`
	Iterations int32   `parquet:"iterations"`
	Status     string  `parquet:"status"`
	Converged  bool    `parquet:"converged"`
}

// Coefficients lists every coefficient of every fit.
func (r *Report) Coefficients() []CoefficientRow {
	var rows []CoefficientRow
	for i, f := range r.Fits {
		m, _ := ModelByName(f.Model)
		for j, p := range m.Params {
			rows = append(rows, CoefficientRow{
				Model: f.Model, Parameter: p.Name, Unit: p.Unit, Value: f.Params[j], StdErr: f.StdErr[j],
				Method: f.Method, Samples: int64(f.N), RMSE: f.RMSE, MeanRelErr: f.MeanRelErr,
				CVError: r.CV[i].Error, Folds: int32(r.Folds), Iterations: int32(f.Iterations),
				Status: f.Status.String(), Converged: f.Converged() && r.CV[i].Unconverged == 0,
			})
		}
	}
	return rows
}

// Artifact file names written by WriteArtifacts.
const (
	CoefficientsFile = "coefficients.parquet"
	ModelFile        = "model.json"
	TableFile        = "interference.md"
)

// WriteArtifacts writes coefficients.parquet, model.json and
// interference.md into dir, each atomically. Outputs hold no timestamps:
// the same report gives the same bytes.
func WriteArtifacts(ctx context.Context, dir string, r *Report, meta datasets.FileMeta) error {
	return WriteAllArtifacts(ctx, dir, r, nil, meta)
}

// WriteAllArtifacts writes the artifacts of a CPU/PCIe fit r and of a
// GPU-sharing fit share (either may be nil, not both) into dir, with one
// model.json holding both terms: r's coefficients.parquet and
// interference.md, share's gpu_share.md and gpu_share_errors.parquet.
func WriteAllArtifacts(ctx context.Context, dir string, r *Report, share *ShareReport, meta datasets.FileMeta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var m *InterferenceModel
	switch {
	case r != nil:
		if m = r.Model(); m == nil {
			return fmt.Errorf("fit artifacts: report has no %q fit", Ours)
		}
		if err := datasets.WriteParquet(filepath.Join(dir, CoefficientsFile), meta, r.Coefficients()); err != nil {
			return fmt.Errorf("fit artifacts: %w", err)
		}
	case share != nil:
		m = &InterferenceModel{SchemaVersion: modelSchemaVersion, Model: GPUShareOnly, Units: map[string]string{"speed": "fraction of standalone speed", "gpu_util": "fraction"},
			Status: "n/a", Provenance: "fitting.RunShare: GPU-sharing samples only; no CPU/PCIe term"}
	default:
		return fmt.Errorf("fit artifacts: nothing fitted")
	}
	if share != nil {
		m.GPUShare = share.Term
		if err := WriteShareArtifacts(ctx, dir, share, meta); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("fit artifacts: %w", err)
	}
	if err := pipeline.WriteFileAtomic(filepath.Join(dir, ModelFile), append(b, '\n')); err != nil {
		return fmt.Errorf("fit artifacts: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if r == nil {
		return nil
	}
	if err := pipeline.WriteFileAtomic(filepath.Join(dir, TableFile), r.Markdown()); err != nil {
		return fmt.Errorf("fit artifacts: %w", err)
	}
	return nil
}

// Markdown renders Table III as measured, with the paper's figures in a
// column labelled as the paper's.
func (r *Report) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Interference model accuracy (MARL paper, Table III)\n\n")
	fmt.Fprintf(&b, "Prediction error = mean |Ŝ − S| / (1 + S) on held-out folds (%d-fold cross-validation) "+
		"over %d samples (%d quarantined). The last column is the figure printed in the paper "+
		"(Zhao & Wu, TNSM 2021, 480 samples from a 2×E5-2630, 4×V100 server), not a measurement of ours.\n\n",
		r.Folds, r.Samples-len(r.Quarantined), len(r.Quarantined))
	fmt.Fprintf(&b, "| model | CV error (measured) | in-sample error | RMSE | parameters | fit status | paper's Table III |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---|---:|\n")
	for i, f := range r.Fits {
		m, _ := ModelByName(f.Model)
		status := f.Status.String()
		if !f.Converged() {
			status = "**NOT CONVERGED** (" + status + ")"
		}
		if u := r.CV[i].Unconverged; u > 0 {
			status += fmt.Sprintf("; %d of %d CV folds NOT CONVERGED", u, r.CV[i].K)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.4f | %d | %s | %s (paper) |\n", m.Label, pct(r.CV[i].Error),
			pct(f.MeanRelErr), f.RMSE, len(f.Params), status, pct(m.Paper))
	}
	if len(r.Quarantined) > 0 {
		fmt.Fprintf(&b, "\nQuarantined samples (row: reason), first %d of %d:\n\n", min(len(r.Quarantined), 20), len(r.Quarantined))
		for _, q := range r.Quarantined[:min(len(r.Quarantined), 20)] {
			fmt.Fprintf(&b, "- %d (%s): %s\n", q.Row, q.SampleID, q.Reason)
		}
	}
	if m := r.Model(); m != nil {
		// A code span: the formula's * would otherwise be Markdown emphasis.
		fmt.Fprintf(&b, "\nFitted model (ours), loaded by the simulator from model.json: `%s`\n\n", m.Formula)
		fmt.Fprintf(&b, "| coefficient | value | std. error | unit |\n|---|---:|---:|---|\n")
		for _, c := range m.Coefficients {
			se := "n/a"
			if c.StdErrKnown {
				se = strconv.FormatFloat(c.StdErr, 'g', 4, 64)
			}
			fmt.Fprintf(&b, "| %s | %.6g | %s | %s |\n", c.Name, c.Value, se, c.Unit)
		}
	}
	return b.Bytes()
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}
