package schedulers

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/schedlab/schedlab/internal/section"
)

// ParamRegistry is the declared sched.<name> sections: the parameters of
// heuristics that have some, each declared once beside its scheduler
// (DeclareParams) with its type, Go default, documented YAML defaults and
// range check. The run configuration's sched section (Params) holds their
// values; the decoder, `schedlab config defaults` and the checks reach
// them through it.
var ParamRegistry = section.NewRegistry("sched")

// Param is the typed handle of a heuristic's parameter section.
type Param[T any] struct{ of section.Of[T] }

// Key is the section's key under sched.
func (h Param[T]) Key() string { return h.of.Key() }

// DeclareParams declares sched.<key> of type T, whose value is def where
// a run sets none, with its keys' defaults and a comment on each (YAML:
// they must decode to def, TestParamDefaults) and its range check (nil:
// none). Call it once, in a package variable beside the scheduler.
func DeclareParams[T any](key string, def T, defaults string, check func(T, *section.Errs)) Param[T] {
	return Param[T]{of: section.DeclareDefault(ParamRegistry, section.New[T](key), "package schedulers", defaults, def, check)}
}

// Of is the section's value in p: the run's, else the declared default.
func (h Param[T]) Of(p Params) T {
	v, _ := ParamRegistry.Get(p.set, h.Key())
	return v.(T)
}

// With is a copy of p whose section is v.
func (h Param[T]) With(p Params, v T) Params {
	p.set = h.of.With(p.set, v)
	return p
}

// Params are the values of the heuristics' parameter sections (the run
// configuration's sched, an evaluation.Spec's params): a section it does
// not hold is at its declared default. Its JSON holds only the sections
// away from their defaults, so that a run, a spec or a cell at the
// defaults hashes as before the sections existed; its YAML (`schedlab
// config show`) holds them all.
type Params struct{ set section.Set }

// Keys are the declared sections' keys, in declaration order.
func (p Params) Keys() []string { return ParamRegistry.Keys() }

// SectionKeys are Keys: sched has no key of its own.
func (p Params) SectionKeys() []string { return ParamRegistry.Keys() }

// SectionValue is a pointer to a copy of the section key's value.
func (p Params) SectionValue(key string) (any, bool) { return ParamRegistry.Value(p.set, key) }

// SetSectionValue sets the section key from a pointer as SectionValue
// gives.
func (p *Params) SetSectionValue(key string, v any) { ParamRegistry.SetValue(&p.set, key, v) }

// IsZero reports every section at its default.
func (p Params) IsZero() bool {
	for _, k := range ParamRegistry.Keys() {
		if !ParamRegistry.AtDefault(p.set, k) {
			return false
		}
	}
	return true
}

// Validate runs every section's range check, naming keys in full
// (sched.<name>.<key>).
func (p Params) Validate() error { return ParamRegistry.Check(p.set) }

func (p Params) ordered() []section.KeyValue {
	kvs := section.Ordered(struct{}{}, p.set, ParamRegistry, nil)
	for i := range kvs {
		kvs[i].OmitJSON = ParamRegistry.AtDefault(p.set, kvs[i].Key)
	}
	return kvs
}

// MarshalJSON writes the sections away from their defaults.
func (p Params) MarshalJSON() ([]byte, error) { return section.MarshalJSON(p.ordered(), "sched") }

// UnmarshalJSON reads what MarshalJSON writes.
func (p *Params) UnmarshalJSON(data []byte) error {
	return section.UnmarshalJSON(data, &p.set, ParamRegistry, "sched")
}

// MarshalYAML writes every section.
func (p Params) MarshalYAML() (any, error) { return section.MarshalYAML(p.ordered(), "sched") }

var _ json.Marshaler = Params{}

// Bounds of the meta-heuristics' search (sched.malo, sched.mosa): each
// decision evaluates about Iterations × Population candidate schedules of
// up to MaxJobs jobs, so these cap a decision's cost.
const (
	MaxMetaIterations = 100_000
	MaxMetaPopulation = 10_000
	MaxMetaJobs       = 10_000
)

// checkMeta is sched.malo's and sched.mosa's range check.
func checkMeta(c MetaConfig, e *section.Errs) {
	if !(c.Temperature > 0) || math.IsInf(c.Temperature, 0) {
		e.Addf("temperature", "must be > 0 and finite, got %v", c.Temperature)
	}
	if !(c.Cooling > 0 && c.Cooling <= 1) {
		e.Addf("cooling", "must be in (0, 1], got %v", c.Cooling)
	}
	e.InRange("iterations", c.Iterations, 1, MaxMetaIterations)
	e.InRange("population", c.Population, 2, MaxMetaPopulation)
	e.InRange("max_jobs", c.MaxJobs, 1, MaxMetaJobs)
}

const metaDoc = `# The initial annealing temperature, in objective units (minutes of
# mean JCT + dollars of mean fee), > 0.
temperature: 400
# The factor the temperature is multiplied by after every iteration, in
# (0, 1].
cooling: 0.99
# Iterations of the search per decision, 1 to 100000.
iterations: %d
# Candidate solutions searched together, 2 to 10000.
population: %d
# The pending jobs searched over (the oldest; later ones follow in
# submission order with first fit), 1 to 10000: not in the paper, it
# bounds a decision's cost. The oracle row (%s-oracle) searches alike.
max_jobs: 32
`

// MALOParams (sched.malo) are MALO's and malo-oracle's search: the DAS
// paper's Table 2 by default (DefaultMALOConfig).
var MALOParams = DeclareParams("malo", DefaultMALOConfig(),
	"# MALO (ant-lion + elite differential evolution, DAS Table 2: T=400,\n# P=0.99, I=50; its ants, not given by the paper, are ours):\n"+fmt.Sprintf(metaDoc, 50, 20, "malo"), checkMeta)

// MOSAParams (sched.mosa) are MOSA's and mosa-oracle's search: the DAS
// paper's Table 2 by default (DefaultMOSAConfig).
var MOSAParams = DeclareParams("mosa", DefaultMOSAConfig(),
	"# MOSA (multi-objective simulated annealing, DAS Table 2: I=100,\n# S=50; the paper gives it no temperature, so it shares MALO's):\n"+fmt.Sprintf(metaDoc, 100, 50, "mosa"), checkMeta)

// TiresiasParams (sched.tiresias) are the keys of the Tiresias policies
// (tiresias-las, tiresias-las-1d, tiresias-gittins) a run sets; schedlab
// replay's flags set the same through Options.Tiresias.
type TiresiasParams struct {
	// ThresholdsGPUS: TiresiasConfig.ThresholdsGPUS.
	ThresholdsGPUS []float64 `mapstructure:"thresholds_gpus" yaml:"thresholds_gpus" json:"thresholds_gpus"`
	// Promote: TiresiasConfig.Promote.
	Promote float64 `mapstructure:"promote" yaml:"promote" json:"promote"`
}

// TiresiasSection is sched.tiresias, the reference's queues by default.
var TiresiasSection = DeclareParams("tiresias", TiresiasParams{ThresholdsGPUS: []float64{3250, 7200}},
	`# The Tiresias policies' queues (tiresias-las, tiresias-las-1d,
# tiresias-gittins): a job moves to the next queue once its executed time
# × GPUs (seconds alone for tiresias-las-1d) reaches the next of these
# limits, positive and increasing (the reference: 3250, 7200, three
# queues); and the starvation knob: a job that has run and has since
# waited promote × its executed time goes back to the top queue (>= 0;
# 0, the reference's dlas-gpu, turns promotion off).
thresholds_gpus: [3250, 7200]
promote: 0
`, func(p TiresiasParams, e *section.Errs) {
		if err := p.config().Validate(); err != nil {
			e.AddNamed(err)
		}
	})

func (p TiresiasParams) config() TiresiasConfig {
	return TiresiasConfig{ThresholdsGPUS: p.ThresholdsGPUS, Promote: p.Promote}
}
