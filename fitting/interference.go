package fitting

import (
	"encoding/json"
	"fmt"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// Load is one job's standalone resource use on one GPU group, as the
// simulator knows it: C in cores, P in Gbit/s.
type Load struct {
	CPUCores float64
	PCIeGbps float64
}

// Coefficient is one fitted coefficient of model.json.
type Coefficient struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	StdErr float64 `json:"std_err"` // NaN-free: 0 when unavailable (see StdErrKnown)
	// StdErrKnown is false when the covariance was unavailable.
	StdErrKnown bool   `json:"std_err_known"`
	Unit        string `json:"unit"`
}

// InterferenceModel is the fitted "ours" model the simulator loads
// (model.json): S = α1·exp(α2·U_c + α3·C_J) + β1·U_p + β2·P_J + λ, with
// U_c = Σ_same C_j + (Σ_other C_j − n_core)_+ and U_p = Σ_same P_j
// (DESIGN.md §3; λ = λ1 + λ2, see Models).
type InterferenceModel struct {
	SchemaVersion  int     `json:"schema_version"`
	Model          string  `json:"model"` // always "ours"
	Formula        string  `json:"formula"`
	CoresPerSocket float64 `json:"cores_per_socket"` // n_core, cores
	Alpha1         float64 `json:"alpha1"`           // 1
	Alpha2         float64 `json:"alpha2"`           // 1/core
	Alpha3         float64 `json:"alpha3"`           // 1/core
	Beta1          float64 `json:"beta1"`            // 1/(Gbit/s)
	Beta2          float64 `json:"beta2"`            // 1/(Gbit/s)
	Lambda         float64 `json:"lambda"`           // 1
	// Coefficients repeats the six with units and standard errors.
	Coefficients []Coefficient     `json:"coefficients"`
	Units        map[string]string `json:"units"`
	Status       string            `json:"status"` // the solver's status
	Converged    bool              `json:"converged"`
	Iterations   int               `json:"iterations"`
	Samples      int               `json:"samples"`     // observations fitted
	Quarantined  int               `json:"quarantined"` // samples refused
	RMSE         float64           `json:"rmse"`
	CVError      float64           `json:"cv_error"` // k-fold mean |Ŝ−S|/(1+S); with folds 0: not measured
	Folds        int               `json:"folds"`
	Provenance   string            `json:"provenance"`
	// GPUShare is the GPU-sharing term (jobs sharing one GPU), present
	// when the fit was given gpu_share_samples.
	GPUShare *GPUShareTerm `json:"gpu_share,omitempty"`
}

// GPUShareOnly is the Model of a model.json fitted to GPU-sharing samples
// alone: it has no CPU/PCIe term (its coefficients are absent, not zero
// by measurement), and a simulator given it charges no CPU/PCIe
// interference.
const GPUShareOnly = "gpu-share-only"

const (
	modelSchemaVersion = 1
	oursFormula        = "S = alpha1*exp(alpha2*U_c + alpha3*C_J) + beta1*U_p + beta2*P_J + lambda; U_c = sum_same C_j + max(sum_other C_j - n_core, 0); U_p = sum_same P_j"
)

var modelUnits = map[string]string{
	"C": "cores", "P": "Gbit/s", "S": "fraction of standalone run time",
	"alpha1": "1", "alpha2": "1/core", "alpha3": "1/core",
	"beta1": "1/(Gbit/s)", "beta2": "1/(Gbit/s)", "lambda": "1", "cores_per_socket": "cores",
}

// Slowdown is S(J, J̃): the predicted slowdown of a job with standalone
// use job, beside co-runners on its own socket (same) and on the other
// socket (other). A job with no co-runners runs at its standalone speed
// (S = 0) by definition; otherwise the prediction is floored at 0, since a
// fitted constant can otherwise predict a co-located job faster than alone.
// A caller that does its own baseline subtraction (sim's Interference
// contract: S(J, J̃) − S(J, ∅), clamped) should call Predict instead.
func (m *InterferenceModel) Slowdown(job Load, same, other []Load) float64 {
	if len(same) == 0 && len(other) == 0 {
		return 0
	}
	s := m.Predict(job, same, other, 0)
	if !(s > 0) { // also maps NaN to 0
		return 0
	}
	return s
}

// Predict is the raw fitted formula, neither floored nor zeroed for a job
// alone. coresPerSocket overrides the model's n_core when > 0 (a server
// kind other than the one profiled; an extrapolation the caller owns).
func (m *InterferenceModel) Predict(job Load, same, other []Load, coresPerSocket float64) float64 {
	n := m.CoresPerSocket
	if coresPerSocket > 0 {
		n = coresPerSocket
	}
	var uc, up, oc float64
	for _, l := range same {
		uc += l.CPUCores
		up += l.PCIeGbps
	}
	for _, l := range other {
		oc += l.CPUCores
	}
	return m.Sim().SlowdownSums(sim.JobLoad{C: job.CPUCores, P: job.PCIeGbps}, uc, up, oc, n)
}

// Sim is the fitted CPU/PCIe term as the simulator's implementation of
// the formula (sim.ExpLinear in cores, λ as Lambda1): Predict evaluates
// through it, so the formula exists once.
func (m *InterferenceModel) Sim() sim.ExpLinear {
	return sim.ExpLinear{Alpha1: m.Alpha1, Alpha2: m.Alpha2, Alpha3: m.Alpha3, Lambda1: m.Lambda, Beta1: m.Beta1, Beta2: m.Beta2}
}

// SimModel is the fitted model as the simulator loads it: the CPU/PCIe
// term (Sim; none for a GPU-share-only fit) and, when fitted, the
// GPU-sharing term with its pool of standalone profiles (sim.SharingModel).
// Nothing in it allocates per call.
func (m *InterferenceModel) SimModel() sim.Interference {
	var cpu sim.Interference = sim.NoInterference{}
	if m.HasCPU() {
		cpu = m.Sim()
	}
	if m.GPUShare == nil {
		return cpu
	}
	p := m.GPUShare.SimParams()
	return sim.SharingModel{Interference: cpu, Sharing: *p.Term, Profiles: p.Profiles}
}

// HasCPU reports whether the model has its CPU/PCIe term.
func (m *InterferenceModel) HasCPU() bool { return m.Model != GPUShareOnly }

// Validate checks that every coefficient is finite and n_core positive,
// and the GPU-sharing term when there is one.
func (m *InterferenceModel) Validate() error {
	if m.GPUShare != nil {
		if err := m.GPUShare.Validate(); err != nil {
			return err
		}
	}
	if !m.HasCPU() {
		if m.GPUShare == nil {
			return fmt.Errorf("model: %q without gpu_share", GPUShareOnly)
		}
		return nil
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"alpha1", m.Alpha1}, {"alpha2", m.Alpha2}, {"alpha3", m.Alpha3}, {"beta1", m.Beta1}, {"beta2", m.Beta2}, {"lambda", m.Lambda}} {
		if bad := datasets.CheckValue(c.name, c.v); bad != nil {
			return fmt.Errorf("%s: %s", c.name, bad.Reason)
		}
	}
	if !(m.CoresPerSocket > 0) {
		return fmt.Errorf("cores_per_socket: must be > 0, got %g", m.CoresPerSocket)
	}
	if m.Model != "" && m.Model != Ours {
		return fmt.Errorf("model: %q, want %q or %q", m.Model, Ours, GPUShareOnly)
	}
	return nil
}

// LoadModel reads a model.json written by WriteArtifacts.
func LoadModel(path string) (*InterferenceModel, error) {
	b, err := pipeline.ReadRecord(path, 0)
	if err != nil {
		return nil, fmt.Errorf("load interference model: %w", err)
	}
	var m InterferenceModel
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("load interference model %s: %w", path, err)
	}
	if m.SchemaVersion != modelSchemaVersion {
		return nil, fmt.Errorf("load interference model %s: schema_version %d, want %d", path, m.SchemaVersion, modelSchemaVersion)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("load interference model %s: %w", path, err)
	}
	return &m, nil
}

// DefaultModel is "ours" fitted to 480 synthetic samples of
// profiling.Synthesize with the default SynthConfig (power8-like server,
// n_core 8) and run seed 1, stream ("profile", "synthetic"); see
// TestDefaultModelProvenance, which refits it. Use it when no fit has been
// run; a run's own fit/model.json supersedes it.
func DefaultModel() *InterferenceModel {
	m := &InterferenceModel{
		SchemaVersion: modelSchemaVersion, Model: Ours, Formula: oursFormula, CoresPerSocket: 8,
		Alpha1: defaultParams[0], Alpha2: defaultParams[1], Alpha3: defaultParams[2],
		Beta1: defaultParams[3], Beta2: defaultParams[4], Lambda: defaultParams[5],
		Units: modelUnits, Status: FunctionConvergence.String(), Converged: true, Samples: 480,
		Provenance: "fitting.DefaultModel: fit of 480 synthetic samples (profiling.DefaultSynthConfig, seed 1)",
	}
	for j, p := range ours().Params {
		m.Coefficients = append(m.Coefficients, Coefficient{Name: p.Name, Value: defaultParams[j], Unit: p.Unit})
	}
	return m
}

// defaultParams are α1, α2, α3, β1, β2, λ of DefaultModel (refitted when
// profiling.TableI took its C_J and P_J from sim.Profiles, the one profile
// table).
var defaultParams = [6]float64{0.011206149814498948, 0.094100612654089671, 0.34553528818071416,
	0.0018721570428335201, 0.0016146881219260747, -0.038893474845820675}
