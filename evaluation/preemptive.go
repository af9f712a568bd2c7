package evaluation

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// Preemptive is the experiment of the field's preemptive baselines
// (issue 48, item 5): the Tiresias simulator's policies beside the
// non-preemptive heuristics on real traces, at two restart costs.
const Preemptive = "preemptive"

// PreemptiveSection is eval.preemptive.
var PreemptiveSection = NewSection[PreemptiveConfig](Preemptive)

// PreemptiveConfig parameterises the preemptive experiment.
type PreemptiveConfig struct {
	// Schedulers by registry name: preemptive policies run under their
	// own trigger (schedulers.Info.Trigger), the others under the
	// experiment's (event).
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	// Traces are ingested sources (datasets.ingest), each one column
	// per restart cost; a source the run does not ingest is skipped.
	Traces []string `mapstructure:"traces" yaml:"traces" json:"traces"`
	// MaxJobs keeps the first max_jobs jobs of each trace by submission,
	// after pruning those no cluster holds; all of them are evaluated.
	MaxJobs int `mapstructure:"max_jobs" yaml:"max_jobs" json:"max_jobs"`
	// RestartS are the costs of resuming a preempted job, seconds of
	// standalone time (Tiresias and Blox charge 0, Pollux 30).
	RestartS []float64 `mapstructure:"restart_s" yaml:"restart_s" json:"restart_s"`
	// Clusters, one column group each: a name and a spec, or a preset
	// (small, medium, large: DAS's 8, 16, 32 servers of 8 V100).
	Clusters []Cluster `mapstructure:"clusters" yaml:"clusters" json:"clusters"`
}

// PreemptiveTraces are the sources the preemptive experiment replays by
// default: Philly via Gavel, Microsoft ITP via ElasticFlow, and the PAI
// subset of Alibaba's simulator input.
var PreemptiveTraces = []string{datasets.SourcePhillyGavel, datasets.SourceElasticFlow, datasets.SourcePAISim}

// PreemptiveWorkloadName names the preemptive experiment's workload of a
// trace at a restart cost: philly-gavel-r0, elasticflow-r30.
func PreemptiveWorkloadName(trace string, restartS float64) string {
	return trace + "-r" + strconv.FormatFloat(restartS, 'g', -1, 64)
}

func init() {
	Register(Experiment{
		ID: Preemptive, Reproduces: "Tiresias §6 and the preemptive baselines (issue 48)",
		Defaults: `# The field's preemptive baselines beside non-preemptive heuristics on
# real traces: FIFO-FirstFit and Tetris (never preempt, DAS's rows);
# the Tiresias simulator's fifo (fifo-strict), sjf (smallest-first),
# 2D-LAS (tiresias-las), LAS (tiresias-las-1d) and 2D-Gittins
# (tiresias-gittins, which reads the YARN GPU-time samples under the
# data directory and is left out, as the table says, without them);
# Gandiva's time-slicing (60 s rounds); Gavel's max-min fairness
# (gavel-las) and finish-time fairness (gavel-ftf), in 360 s rounds.
# gavel-ftf-oracle, SRTF and SRSF read true durations: oracles, shown
# apart at the foot. Preemptive rows act at every arrival and completion
# (their own trigger), the others on events. The learned rows join by
# name; the table says why the default leaves them out.
schedulers: [fifo-firstfit, tetris, fifo-strict, smallest-first, tiresias-las, tiresias-las-1d, tiresias-gittins, gandiva, gavel-las, gavel-ftf, gavel-ftf-oracle, srtf, srsf]
# Ingested traces (datasets.ingest) replayed: philly-gavel, elasticflow,
# pai-sim. A trace the run does not ingest is skipped, as the table says.
traces: [philly-gavel, elasticflow, pai-sim]
# The first max_jobs jobs of each trace by submission, all evaluated.
max_jobs: 2000
# Seconds a preempted job pays when it resumes, one column each: 0 as
# Tiresias and Blox charge, 30 as Pollux.
restart_s: [0, 30]
# Clusters, one column group each: {name, spec} as in marl_servers; DAS's
# small, medium and large are flat clusters of 8, 16 and 32 pai-v100
# servers (8 V100 each). The ingested traces merge their clusters (15
# Philly virtual clusters, 10 ITP clusters): on small their first jobs
# queue for days, on large for hours.
clusters:
  - {name: small, spec: {topology: flat, n: 8, servers: pai-v100}}
  - {name: large, spec: {topology: flat, n: 32, servers: pai-v100}}
`,
		Summary: `Preemptive baselines (Tiresias' 2D-LAS, LAS and 2D-Gittins, smallest-GPU-first,
strict FIFO, Gandiva's time-slicing, Gavel's max-min and finish-time
fairness; SRTF, SRSF and finish-time fairness with true durations as
oracles) beside FIFO-FirstFit and Tetris on the
ingested Philly (Gavel), ElasticFlow and PAI-subset traces, each at
restart costs 0 and 30 s; standalone job speeds; mean JCT and fee.`,
		Section: ReportSection{"Preemptive baselines beside non-preemptive heuristics on real traces",
			"Each trace's first jobs replayed at two restart costs (columns -r0, -r30); preemptive rows act at every arrival and completion, Gandiva's and Gavel's in rounds. SRTF, SRSF and Gavel's finish-time fairness (oracle) read true durations."},
		Spec: func() Spec {
			c := preemptiveDefaults()
			s := Spec{Experiment: Preemptive, Seeds: 1}
			configurePreemptive(&c, &s)
			return s
		},
		Configure: func(c *Config, s *Spec) bool {
			p := PreemptiveSection.Get(c)
			configurePreemptive(&p, s)
			return false
		},
		Settings: PreemptiveSection,
		CheckConfig: func(c *Config, listed bool) []error {
			p := PreemptiveSection.Get(c)
			errs := checkSchedulers("eval.preemptive.schedulers", p.Schedulers)
			for i, t := range p.Traces {
				if _, err := datasets.Lookup(t); err != nil {
					errs = append(errs, fmt.Errorf("eval.preemptive.traces[%d]: %w", i, err))
				} else if slices.Index(p.Traces, t) < i {
					errs = append(errs, fmt.Errorf("eval.preemptive.traces[%d]: %q given twice", i, t))
				}
			}
			if listed && (len(p.Traces) == 0 || len(p.RestartS) == 0 || len(p.Clusters) == 0) {
				errs = append(errs, errors.New("eval.preemptive: give at least one of traces, restart_s and clusters"))
			}
			if (listed || p.MaxJobs != 0) && (p.MaxJobs < 1 || p.MaxJobs > MaxJobs) {
				errs = append(errs, fmt.Errorf("eval.preemptive.max_jobs: must be in [1, %d], got %d", MaxJobs, p.MaxJobs))
			}
			for i, r := range p.RestartS {
				if !(r >= 0) || math.IsInf(r, 0) || slices.Index(p.RestartS, r) < i {
					errs = append(errs, fmt.Errorf("eval.preemptive.restart_s[%d]: want distinct seconds >= 0, got %v", i, r))
				}
			}
			for i, cl := range p.Clusters {
				if err := checkName(cl.Name); err != nil {
					errs = append(errs, fmt.Errorf("eval.preemptive.clusters[%d].name: %w", i, err))
				}
				if err := cl.Spec.Validate(); err != nil {
					errs = append(errs, fmt.Errorf("eval.preemptive.clusters[%d] (%s): %w", i, cl.Name, err))
				}
			}
			return errs
		},
	})
}

// preemptiveDefaults is the section the registration's Defaults declare,
// for the documented spec.
func preemptiveDefaults() PreemptiveConfig {
	small, _ := sim.Preset("small")
	large, _ := sim.Preset("large")
	return PreemptiveConfig{
		Schedulers: []string{"fifo-firstfit", "tetris", "fifo-strict", "smallest-first", "tiresias-las", "tiresias-las-1d", "tiresias-gittins",
			"gandiva", "gavel-las", "gavel-ftf", "gavel-ftf-oracle", "srtf", "srsf"},
		Traces:   slices.Clone(PreemptiveTraces),
		MaxJobs:  2000,
		RestartS: []float64{0, 30},
		Clusters: []Cluster{{Name: "small", Spec: small}, {Name: "large", Spec: large}},
	}
}

// configurePreemptive builds the spec from the section: one trace
// workload per trace and restart cost (its source's jobs, the first
// max_jobs all evaluated), event triggers for the rows without their own,
// standalone speeds (the Tiresias simulator's: a job runs at its
// duration's pace wherever it is placed, so the table compares queueing
// and preemption, not placement).
func configurePreemptive(c *PreemptiveConfig, s *Spec) {
	s.Schedulers = slices.Clone(c.Schedulers)
	s.Clusters = slices.Clone(c.Clusters)
	s.Workloads = nil
	for _, t := range c.Traces {
		for _, r := range c.RestartS {
			s.Workloads = append(s.Workloads, Workload{Name: PreemptiveWorkloadName(t, r), Kind: KindTrace, Source: t,
				MaxJobs: c.MaxJobs, TestFraction: 1, RestartS: r})
		}
	}
	s.Sim = sim.DefaultConfig()
	s.Sim.Speed = sim.SpeedStandalone
	s.Notes = nil // rebuilt like the rest: the documented spec was configured once already
	if !slices.ContainsFunc(c.Schedulers, func(n string) bool { return schedulers.Name(n).Learned() }) {
		s.Notes = append(s.Notes, noLearnedNote)
	}
}

// noLearnedNote says why the preemptive experiment's default list has no
// learned row.
const noLearnedNote = "No learned row: the learned schedulers (das, rifling, dl2 and their forms) are trained on datasets.source's trace (PAI) and never preempt, " +
	"so on the Philly and ElasticFlow columns they would run outside what they learned, and each would add trainings to the run; " +
	"eval.preemptive.schedulers takes them by name."
