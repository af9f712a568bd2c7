package stages

import (
	"errors"
	"fmt"
	"github.com/schedlab/schedlab/calibration"
	"github.com/schedlab/schedlab/evaluation"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/history"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/sim"
)

// Config is the whole configuration of a run. Its zero value is not useful:
// start from the embedded defaults (cmd/schedlab decodes them) or from
// Default. Every key is documented where the defaults are.
type Config struct {
	Preset   string         `mapstructure:"preset" yaml:"preset" json:"preset"`
	Seed     uint64         `mapstructure:"seed" yaml:"seed" json:"seed"`
	Workers  int            `mapstructure:"workers" yaml:"workers" json:"workers"`
	Out      string         `mapstructure:"out" yaml:"out" json:"out"`
	DataDir  string         `mapstructure:"data_dir" yaml:"data_dir" json:"data_dir"`
	Datasets DatasetsConfig `mapstructure:"datasets" yaml:"datasets" json:"datasets"`
	Summary  SummaryConfig  `mapstructure:"summary" yaml:"summary" json:"summary"`
	Profile  ProfileConfig  `mapstructure:"profile" yaml:"profile" json:"profile"`
	Fit      fitting.Config `mapstructure:"fit" yaml:"fit" json:"fit"`
	Sim      SimConfig      `mapstructure:"sim" yaml:"sim" json:"sim"`
	Eval     EvalConfig     `mapstructure:"eval" yaml:"eval" json:"eval"`
	Train    TrainConfig    `mapstructure:"train" yaml:"train" json:"train"`
	// History: where a finished run is added (history.Add); omitted from
	// the recorded configuration when off, so that it hashes as before.
	History history.Config `mapstructure:"history" yaml:"history" json:"history,omitzero"`
	// External declares policy processes that experiments name as
	// schedulers external:NAME (docs/policy-protocol.md); Validate
	// declares them (external.Declare) before it checks the experiments'
	// scheduler lists. Omitted when empty, so that it hashes as before.
	External []external.Spec `mapstructure:"external" yaml:"external" json:"external,omitempty"`
}

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

// calibrates says whether the calibrate stage fits the named environment:
// marl-paper always, das-paper when eval.calibration.das is set.
func (c *Config) calibrates(name string) bool {
	switch name {
	case calibration.MARLPaper:
		return true
	case calibration.DASPaper:
		return c.Eval.Calibration.DAS
	}
	return false
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

// environmentFor is the environment the experiments of paper run in: ""
// for none (the simulator's defaults).
func (c SimConfig) environmentFor(paper string) string {
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
	s.Environment = c.environmentFor(paper)
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

// ProfileConfig selects where co-location samples come from.
type ProfileConfig struct {
	Synth profiling.SynthConfig `mapstructure:"synth" yaml:"synth" json:"synth"`
	// GPUShare names the measured GPU-sharing sources (gpushare.go).
	GPUShare GPUShareConfig `mapstructure:"gpu_share" yaml:"gpu_share" json:"gpu_share,omitzero"`
}

// DatasetsConfig selects the real traces a run ingests and the job trace
// it works on.
type DatasetsConfig struct {
	// Source is the run's job trace: "synthetic-pai" (the seeded PAI-like
	// generator, needing no data files) or the source of one of Ingest whose
	// reader writes a jobs table.
	Source    string                 `mapstructure:"source" yaml:"source" json:"source"`
	Synthetic datasets.PAILikeConfig `mapstructure:"synthetic" yaml:"synthetic" json:"synthetic"`
	// Ingest lists the real traces to ingest, each into datasets/<source>/.
	Ingest []IngestSpec `mapstructure:"ingest" yaml:"ingest" json:"ingest"`
	// IntervalS is the bin length of arrivals tables (google-2011), seconds.
	IntervalS float64 `mapstructure:"interval_s" yaml:"interval_s" json:"interval_s"`
}

// SyntheticPAI is the source name of the seeded PAI-like generator.
const SyntheticPAI = "synthetic-pai"

// SummaryConfig parameterises the jobs summary table.
type SummaryConfig struct {
	// Quantiles of job duration to report, each in (0, 1).
	Quantiles []float64 `mapstructure:"quantiles" yaml:"quantiles" json:"quantiles"`
}

// Bounds of Config's own keys. An arrivals bin shorter than a second
// resolves nothing the traces record (google-2011's times are in
// microseconds but its jobs last minutes) and makes billions of bins over
// a month-long trace; one longer than a week leaves a month-long trace a
// handful of intervals.
const (
	MaxIntervalS = 7 * 24 * 3600
	MaxQuantiles = 100
)

// Validate reports every out-of-range value, naming its key. Numbers must
// be finite: the loader refuses .inf and .nan, and Validate holds a
// Config built in code to the same rule.
func (c *Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	if err := external.Declare(c.External); err != nil {
		errs = append(errs, err)
	}
	if c.Workers < 1 || c.Workers > 256 {
		bad("workers", "must be in [1, 256], got %d", c.Workers)
	}
	if c.Out == "" {
		bad("out", "must name a directory")
	}
	sources := []string{SyntheticPAI}
	seen := map[string]bool{}
	for i, spec := range c.Datasets.Ingest {
		key := fmt.Sprintf("datasets.ingest[%d]", i)
		if _, err := datasets.Lookup(spec.Source); err != nil {
			bad(key+".source", "must be one of %v, got %q", datasets.Sources(), spec.Source)
		}
		if seen[spec.Source] {
			bad(key+".source", "%q is ingested twice", spec.Source)
		}
		seen[spec.Source] = true
		if len(spec.Inputs) == 0 {
			bad(key+".inputs", "must name at least one file or directory")
		}
		if spec.Source != datasets.SourceGoogle2011 {
			sources = append(sources, spec.Source)
		}
	}
	if !slices.Contains(sources, c.Datasets.Source) {
		bad("datasets.source", "must be %s or an ingested source with a jobs table (%v), got %q", SyntheticPAI, sources[1:], c.Datasets.Source)
	}
	if !(c.Datasets.IntervalS >= 1 && c.Datasets.IntervalS <= MaxIntervalS) {
		bad("datasets.interval_s", "must be in [1, %d] seconds, got %v", MaxIntervalS, c.Datasets.IntervalS)
	}
	// An experiment runs in its paper's environment only if the calibrate
	// stage fits it.
	for _, id := range c.Eval.Experiments {
		if e, err := evaluation.Lookup(id); err == nil {
			if env := c.Sim.environmentFor(e.Paper); env != "" && !c.calibrates(env) {
				bad("sim.environment", "%s runs in %s, which this configuration does not calibrate (set eval.calibration.das: true)", id, env)
			}
		}
	}
	// Packages' Validate methods name their keys in full.
	for _, v := range []interface{ Validate() error }{c.Datasets.Synthetic, c.Profile.Synth, c.Fit, c.Sim, c.Eval, c.Train} {
		if err := v.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(c.Summary.Quantiles) == 0 || len(c.Summary.Quantiles) > MaxQuantiles {
		bad("summary.quantiles", "must list 1 to %d quantiles, got %d", MaxQuantiles, len(c.Summary.Quantiles))
	}
	for i, q := range c.Summary.Quantiles {
		if !(q > 0 && q < 1) {
			bad(fmt.Sprintf("summary.quantiles[%d]", i), "must be in (0, 1), got %v", q)
		}
	}
	return errors.Join(errs...)
}

// Hash identifies the configuration by every key that can change an
// output. Where a run writes (out), how many workers it uses, which preset
// named the values and where the traces live (their contents are hashed as
// inputs) change no output byte, so they are left out: two runs that differ
// only in those write identical files. It fails, naming the reason, for a
// configuration JSON cannot encode (a non-finite number, which Validate
// refuses).
func (c *Config) Hash() (string, error) {
	k := *c
	k.Out, k.Workers, k.Preset, k.DataDir, k.History = "", 0, "", "", history.Config{}
	h, err := pipeline.HashJSON(&k)
	if err != nil {
		return "", fmt.Errorf("config hash: %w", err)
	}
	return h, nil
}

// ResolveDataDir returns the directory real traces are read from: the
// configured one, or ../shared/data when that exists, or "".
func (c *Config) ResolveDataDir() string {
	if c.DataDir != "" {
		return c.DataDir
	}
	p := filepath.Join("..", "shared", "data")
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p
	}
	return ""
}
