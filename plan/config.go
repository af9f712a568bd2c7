package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/calibration"
	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/section"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

// Environments are the calibrated environments the DAG's calibrate stage
// produces, each with the paper whose experiments run in it
// (evaluation.Experiment.Paper).
// They are calibration.Environments' papers by name, declared there.
var Environments = func() map[string]string {
	m := map[string]string{}
	for name, e := range calibration.Environments {
		m[name] = e.Paper
	}
	return m
}()

// PaperEnvironments as sim.environment runs every experiment in its own
// paper's calibrated environment, where one exists.
const PaperEnvironments = "paper"

// SimConfig is the run-wide choice of speed model: it applies to every
// experiment's simulations (Spec.Sim) and to the training of the learned
// schedulers they evaluate, which simulate alike.
type SimConfig struct {
	// Speed is sim.SpeedModel (interference and communication slow jobs
	// down) or sim.SpeedStandalone (a pure trace replay: every job runs for
	// its recorded duration); "" keeps each experiment's own (the model).
	Speed string `mapstructure:"speed" yaml:"speed" json:"speed"`
	// Environment names the calibrated environment whose fitted parameters
	// the speed model uses; "" is none (the simulator's defaults), "paper"
	// each experiment in its own paper's (CheckEnvironment).
	Environment string `mapstructure:"environment" yaml:"environment" json:"environment"`
	// Socket is the rule that homes an instance on a socket of its server
	// (sim.Config.Socket: most-free, first-fit, random); "" keeps each
	// experiment's own (first-fit for the MARL experiments, most-free
	// for the DAS ones).
	Socket string `mapstructure:"socket" yaml:"socket" json:"socket,omitempty"`
	// CPULoad is where an instance's C_J comes from (sim.Config.CPULoad:
	// request, profile); "" keeps each experiment's own (profile for the
	// MARL experiments, request for the DAS ones).
	CPULoad string `mapstructure:"cpu_load" yaml:"cpu_load" json:"cpu_load,omitempty"`
	// JobShape overrides the MARL workloads' job shape
	// (datasets.MARLShape), field by field and per model: a zero field
	// keeps the paper's (docs/marl-operating-point.md). It applies to
	// every generated MARL workload, evaluated and trained on.
	JobShape datasets.MARLShape `mapstructure:"job_shape" yaml:"job_shape" json:"job_shape,omitzero"`
}

// Validate names every bad key.
func (c SimConfig) Validate() error {
	var errs []error
	switch c.Speed {
	case "", sim.SpeedModel, sim.SpeedStandalone:
	default:
		errs = append(errs, fmt.Errorf("sim.speed: must be %q or %q, got %q", sim.SpeedModel, sim.SpeedStandalone, c.Speed))
	}
	if c.Socket != "" && !slices.Contains(sim.SocketRules, c.Socket) {
		errs = append(errs, fmt.Errorf("sim.socket: must be one of %s, got %q", strings.Join(sim.SocketRules, ", "), c.Socket))
	}
	if c.CPULoad != "" && !slices.Contains(sim.CPULoads, c.CPULoad) {
		errs = append(errs, fmt.Errorf("sim.cpu_load: must be one of %s, got %q", strings.Join(sim.CPULoads, ", "), c.CPULoad))
	}
	if err := c.JobShape.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("sim.%w", err))
	}
	if err := CheckEnvironment(c.Environment); err != nil {
		errs = append(errs, fmt.Errorf("sim.environment: %w", err))
	}
	return errors.Join(errs...)
}

// CheckEnvironment reports whether the DAG can run experiments in the
// named environment, so that a configuration naming one that no stage
// produces fails at configuration time, before any work: "" (the
// simulator's defaults), "paper" (each experiment in its own paper's
// calibrated environment, where one exists) or an environment of
// Environments (the experiments of its paper run in it).
func CheckEnvironment(name string) error {
	if _, ok := Environments[name]; ok || name == "" || name == PaperEnvironments {
		return nil
	}
	return fmt.Errorf("no stage produces environment %q (want \"\" for the simulator's defaults, %q for each paper's own, or one of %v)",
		name, PaperEnvironments, slices.Sorted(maps.Keys(Environments)))
}

// EnvironmentFor is the environment the experiments of paper run in: ""
// for none (the simulator's defaults).
func (c SimConfig) EnvironmentFor(paper string) string {
	for _, name := range slices.Sorted(maps.Keys(Environments)) {
		if Environments[name] == paper && (c.Environment == name || c.Environment == PaperEnvironments) {
			return name
		}
	}
	return ""
}

// apply sets the run-wide speed model on the simulator configuration of
// an experiment of paper; empty keys leave the experiment's own.
func (c SimConfig) apply(s *sim.Config, paper string) {
	if c.Speed != "" {
		s.Speed = c.Speed
	}
	if c.Socket != "" {
		s.Socket = c.Socket
	}
	if c.CPULoad != "" {
		s.CPULoad = c.CPULoad
	}
	s.Environment = c.EnvironmentFor(paper)
}

// applyShape sets the run-wide job shape on every generated MARL workload
// of spec; a zero shape leaves each its own.
func (c SimConfig) applyShape(spec *evaluation.Spec) {
	if c.JobShape.IsZero() {
		return
	}
	for i := range spec.Workloads {
		if spec.Workloads[i].Kind != evaluation.KindTrace {
			spec.Workloads[i].Shape = c.JobShape
		}
	}
}

// TrainConfig sizes the training of the learned schedulers that the
// evaluation experiments name. Which models are trained follows from the
// experiments' scheduler lists: a learned name there adds its training
// stage to the DAG.
type TrainConfig struct {
	// Seeds is the number of independently trained models (replicates) of
	// each learned scheduler that Replicated selects, on each cluster it is
	// trained for: replicate 0 is the model a single training makes,
	// replicate r ≥ 1 trains into models/<key>/replicate-<r>/ from streams
	// of its own (ReplicaSeeds), and every experiment evaluates each, its
	// tables showing the mean and a confidence interval.
	Seeds int `mapstructure:"seeds" yaml:"seeds" json:"seeds"`
	// Replicated are the learned schedulers that get Seeds models: a name
	// (every model of it) or name@cluster-id (the one trained for that
	// cluster, as in models/<name>/<cluster-id>/: a MARL-workload model,
	// or any with train.das.cluster each); empty means every learned
	// scheduler. A name whose model the run does not train is ignored, so
	// that a preset's list survives a shorter eval.experiments.
	Replicated []string `mapstructure:"replicated" yaml:"replicated" json:"replicated"`

	// Sections are the learned families' train.<section> values, each
	// declared with its type, defaults and range check by the family that
	// owns it (training.DeclareSection) and read through its handle
	// (marl.Section, daspaper.Section); the decoder and the encodings
	// below treat them as keys of train.
	Sections training.Sections `mapstructure:"-" yaml:"-" json:"-"`
}

// trainOrder is the order of train's keys in its JSON and YAML as it was
// when every section was a field: frozen, so that configuration hashes
// and `schedlab config show` stay; a section declared since goes last.
var trainOrder = []string{"seeds", "replicated", "marl", "das"}

func (c TrainConfig) ordered() []section.KeyValue {
	type fields TrainConfig // without the methods
	return section.Ordered(fields(c), c.Sections, training.SectionRegistry, trainOrder)
}

// Keys are train's keys in order: its fields' and its sections'.
func (c TrainConfig) Keys() []string { return section.Keys(c.ordered()) }

// SectionKeys are the declared train.* sections' keys.
func (c TrainConfig) SectionKeys() []string { return training.SectionRegistry.Keys() }

// SectionValue is a pointer to a copy of the section under key, false
// when no family declares it.
func (c TrainConfig) SectionValue(key string) (any, bool) {
	return training.SectionRegistry.Value(c.Sections, key)
}

// SetSectionValue sets the section under key from p (as SectionValue
// gives it).
func (c *TrainConfig) SetSectionValue(key string, p any) {
	training.SectionRegistry.SetValue(&c.Sections, key, p)
}

// MarshalJSON writes train's keys in order: the configuration hash's
// bytes.
func (c TrainConfig) MarshalJSON() ([]byte, error) { return section.MarshalJSON(c.ordered(), "train") }

// MarshalYAML writes train's keys in order.
func (c TrainConfig) MarshalYAML() (any, error) { return section.MarshalYAML(c.ordered(), "train") }

// UnmarshalJSON reads what MarshalJSON writes over c's values.
func (c *TrainConfig) UnmarshalJSON(data []byte) error {
	type fields TrainConfig
	f := fields(*c)
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	out := TrainConfig(f)
	if err := section.UnmarshalJSON(data, &out.Sections, training.SectionRegistry, "train"); err != nil {
		return err
	}
	*c = out
	return nil
}

// Validate names the bad key in full, one message per key.
func (c TrainConfig) Validate() error {
	var errs []error
	inRange := func(key string, v, lo, hi int) {
		if v < lo || v > hi {
			errs = append(errs, fmt.Errorf("%s: must be in [%d, %d], got %d", key, lo, hi, v))
		}
	}
	inRange("train.seeds", c.Seeds, 1, evaluation.MaxReplicates)
	for i, e := range c.Replicated {
		name, cluster, hasCluster := strings.Cut(e, "@")
		canon, err := schedulers.Canonical(name)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("train.replicated[%d]: %w", i, err))
		case !canon.Learned():
			errs = append(errs, fmt.Errorf("train.replicated[%d]: %s is a heuristic: only a learned scheduler has trained models (learned: %v)", i, canon, schedulers.LearnedNames()))
		case hasCluster && (cluster == "" || strings.ContainsAny(cluster, "/\\ ,@")):
			errs = append(errs, fmt.Errorf("train.replicated[%d]: want name or name@cluster-id (e.g. marl-device@fattree-k8-power8), got %q", i, e))
		}
	}
	// Each section's one range check, declared with it.
	errs = append(errs, training.SectionRegistry.Check(c.Sections))
	return errors.Join(errs...)
}

// DASEachCluster as train.das.cluster trains every model of a trace-source
// family (das, dl2, rifling) once per cluster it is evaluated on.
const DASEachCluster = daspaper.EachCluster
