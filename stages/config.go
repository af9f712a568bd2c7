package stages

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/calibration"
	"github.com/schedlab/schedlab/evaluation"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/history"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
)

// Config is the whole configuration of a run. Its zero value is not useful:
// start from the embedded defaults (cmd/schedlab decodes them) or from
// Default. Every key is documented where the defaults are.
type Config struct {
	Preset   string           `mapstructure:"preset" yaml:"preset" json:"preset"`
	Seed     uint64           `mapstructure:"seed" yaml:"seed" json:"seed"`
	Workers  int              `mapstructure:"workers" yaml:"workers" json:"workers"`
	Out      string           `mapstructure:"out" yaml:"out" json:"out"`
	DataDir  string           `mapstructure:"data_dir" yaml:"data_dir" json:"data_dir"`
	Datasets DatasetsConfig   `mapstructure:"datasets" yaml:"datasets" json:"datasets"`
	Summary  SummaryConfig    `mapstructure:"summary" yaml:"summary" json:"summary"`
	Profile  ProfileConfig    `mapstructure:"profile" yaml:"profile" json:"profile"`
	Fit      fitting.Config   `mapstructure:"fit" yaml:"fit" json:"fit"`
	Sim      plan.SimConfig   `mapstructure:"sim" yaml:"sim" json:"sim"`
	Eval     EvalConfig       `mapstructure:"eval" yaml:"eval" json:"eval"`
	Train    plan.TrainConfig `mapstructure:"train" yaml:"train" json:"train"`
	// Sched are the heuristics' parameters, sched.<name>, each section
	// declared beside its scheduler (schedulers.DeclareParams). Omitted
	// from the recorded configuration while every one is at its default,
	// so that it hashes as before.
	Sched schedulers.Params `mapstructure:"sched" yaml:"sched" json:"sched,omitzero"`
	// History: where a finished run is added (history.Add); omitted from
	// the recorded configuration when off, so that it hashes as before.
	History history.Config `mapstructure:"history" yaml:"history" json:"history,omitzero"`
	// External declares policy processes that experiments name as
	// schedulers external:NAME (docs/policy-protocol.md); Validate
	// declares them (external.Declare) before it checks the experiments'
	// scheduler lists. Omitted when empty, so that it hashes as before.
	External []external.Spec `mapstructure:"external" yaml:"external" json:"external,omitempty"`
}

// calibrates says whether the calibrate stage fits the named environment,
// as the environment's declaration says (calibration.Environments).
func (c *Config) calibrates(name string) bool {
	e, ok := calibration.Environments[name]
	return ok && e.Fitted(&c.Eval)
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
	if err := c.Sched.Validate(); err != nil {
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
		if slices.Contains(sourceTables(spec.Source, nil), datasets.JobsFile) {
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
			if env := c.Sim.EnvironmentFor(e.Paper); env != "" && !c.calibrates(env) {
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

// Plan is the part of c that a plan reads (plan.New): taken once, and
// passed.
func (c *Config) Plan() plan.Config {
	return plan.Config{Sim: c.Sim, Eval: c.Eval, Train: c.Train, Sched: c.Sched, Jobs: c.JobsArtifact(),
		Source: c.Datasets.Source, Synthetic: c.Datasets.Source == SyntheticPAI, SyntheticJobs: c.Datasets.Synthetic.Jobs,
		Calibrated: slices.DeleteFunc(slices.Sorted(maps.Keys(plan.Environments)), func(n string) bool { return !c.calibrates(n) }),
		Ingested:   c.ingestedJobs(), DataDir: c.ResolveDataDir()}
}

// ingestedJobs maps each source the run ingests to its jobs table's run
// artifact.
func (c *Config) ingestedJobs() map[string]string {
	m := map[string]string{}
	for _, s := range c.Datasets.Ingest {
		m[s.Source] = path.Join(IngestDir(s.Source), datasets.JobsFile)
	}
	return m
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
