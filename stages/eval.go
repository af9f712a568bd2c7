package stages

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// EvalConfig selects the evaluation experiments of a run (DESIGN.md §6)
// and the knobs that make a preset quick or faithful.
type EvalConfig struct {
	// Experiments to run, by id; [] runs none.
	Experiments []string `mapstructure:"experiments" yaml:"experiments" json:"experiments"`
	// Seeds is the number of replicates per cell.
	Seeds          int                `mapstructure:"seeds" yaml:"seeds" json:"seeds"`
	DASTable1      DASTable1Config    `mapstructure:"das_table1" yaml:"das_table1" json:"das_table1"`
	DASLoad        DASLoadConfig      `mapstructure:"das_load" yaml:"das_load" json:"das_load"`
	DASTuning      DASTuningConfig    `mapstructure:"das_tuning" yaml:"das_tuning" json:"das_tuning"`
	MARLArrivals   MARLArrivalsConfig `mapstructure:"marl_arrivals" yaml:"marl_arrivals" json:"marl_arrivals"`
	MARLServers    MARLGridConfig     `mapstructure:"marl_servers" yaml:"marl_servers" json:"marl_servers"`
	MARLTopologies MARLGridConfig     `mapstructure:"marl_topologies" yaml:"marl_topologies" json:"marl_topologies"`
	MARLVsSingle   MARLGridConfig     `mapstructure:"marl_vs_single" yaml:"marl_vs_single" json:"marl_vs_single"`
}

// DASTable1Config parameterises das-table1 on the run's job trace. Its
// trace settings (max_jobs, test_fraction) serve das-load and das-tuning
// too, so that the three experiments evaluate the same jobs with the
// same models.
type DASTable1Config struct {
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	// MaxJobs keeps the first MaxJobs jobs by submission (20,000 in the
	// paper); TestFraction of them, the last, are evaluated.
	MaxJobs      int     `mapstructure:"max_jobs" yaml:"max_jobs" json:"max_jobs"`
	TestFraction float64 `mapstructure:"test_fraction" yaml:"test_fraction" json:"test_fraction"`
	// FittedInterference simulates job speeds with the fitted model
	// (fit/model.json) instead of the simulator's per-socket default.
	FittedInterference bool `mapstructure:"fitted_interference" yaml:"fitted_interference" json:"fitted_interference"`
}

// DASLoadConfig parameterises das-load (DAS Fig. 7).
type DASLoadConfig struct {
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	// Rates multiply the trace's arrival rate (the paper: 0.5, 1, 2); each
	// is a workload named x<rate>.
	Rates []float64 `mapstructure:"rates" yaml:"rates" json:"rates"`
}

// DASTuningConfig parameterises das-tuning (DAS Fig. 5).
type DASTuningConfig struct {
	// Schedulers: baselines (the paper: rifling) and DAS rows das-h<h>
	// (τ = 8) and das-tau<τ> (h = 4), each trained by its own stage.
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
}

// MARLArrivalsConfig parameterises marl-arrivals.
type MARLArrivalsConfig struct {
	Schedulers []string `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	// K of the fat-tree of power8 servers (the paper: 20).
	K int `mapstructure:"k" yaml:"k" json:"k"`
	// JobsPerPod per 30-minute interval; 0 means the paper's 15 per pod of
	// 100 servers scaled to the pod size (evaluation.MARLPaperLoad).
	JobsPerPod float64 `mapstructure:"jobs_per_pod" yaml:"jobs_per_pod" json:"jobs_per_pod"`
	Intervals  int     `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
	// FittedInterference: as for das-table1. It holds for every MARL
	// experiment and the training of their models.
	FittedInterference bool `mapstructure:"fitted_interference" yaml:"fitted_interference" json:"fitted_interference"`
}

// MARLGridConfig parameterises marl-servers, marl-topologies and
// marl-vs-single: their clusters (one column group each) at the paper's
// load per pod (evaluation.MARLPaperLoad).
type MARLGridConfig struct {
	Schedulers []string             `mapstructure:"schedulers" yaml:"schedulers" json:"schedulers"`
	Clusters   []evaluation.Cluster `mapstructure:"clusters" yaml:"clusters" json:"clusters"`
	Intervals  int                  `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
}

// Validate names the bad key in full.
func (c EvalConfig) Validate() error {
	var errs []error
	for i, id := range c.Experiments {
		if !slices.Contains(evaluation.Experiments(), id) {
			errs = append(errs, fmt.Errorf("eval.experiments[%d]: unknown %q (known: %v)", i, id, evaluation.Experiments()))
		}
	}
	if c.Seeds < 1 {
		errs = append(errs, fmt.Errorf("eval.seeds: must be >= 1, got %d", c.Seeds))
	}
	for _, e := range []struct {
		key   string
		names []string
	}{
		{"eval.das_table1.schedulers", c.DASTable1.Schedulers}, {"eval.das_load.schedulers", c.DASLoad.Schedulers},
		{"eval.das_tuning.schedulers", c.DASTuning.Schedulers}, {"eval.marl_arrivals.schedulers", c.MARLArrivals.Schedulers},
		{"eval.marl_servers.schedulers", c.MARLServers.Schedulers}, {"eval.marl_topologies.schedulers", c.MARLTopologies.Schedulers},
		{"eval.marl_vs_single.schedulers", c.MARLVsSingle.Schedulers},
	} {
		for i, n := range e.names {
			if _, err := evaluation.CanonicalScheduler(n); err != nil {
				errs = append(errs, fmt.Errorf("%s[%d]: %w", e.key, i, err))
			}
		}
	}
	if c.DASTable1.MaxJobs < 1 {
		errs = append(errs, fmt.Errorf("eval.das_table1.max_jobs: must be >= 1, got %d", c.DASTable1.MaxJobs))
	}
	if !(c.DASTable1.TestFraction > 0 && c.DASTable1.TestFraction <= 1) {
		errs = append(errs, fmt.Errorf("eval.das_table1.test_fraction: must be in (0, 1], got %v", c.DASTable1.TestFraction))
	}
	listed := func(id string) bool { return slices.Contains(c.Experiments, id) }
	if listed(evaluation.DASLoad) && len(c.DASLoad.Rates) == 0 {
		errs = append(errs, errors.New("eval.das_load.rates: give at least one arrival-rate factor"))
	}
	for i, r := range c.DASLoad.Rates {
		if !(r > 0) || math.IsInf(r, 0) {
			errs = append(errs, fmt.Errorf("eval.das_load.rates[%d]: must be > 0 and finite, got %v", i, r))
		}
	}
	if c.MARLArrivals.K < 2 || c.MARLArrivals.K%2 != 0 {
		errs = append(errs, fmt.Errorf("eval.marl_arrivals.k: must be even and >= 2, got %d", c.MARLArrivals.K))
	}
	if c.MARLArrivals.JobsPerPod < 0 {
		errs = append(errs, fmt.Errorf("eval.marl_arrivals.jobs_per_pod: must be >= 0, got %v", c.MARLArrivals.JobsPerPod))
	}
	if c.MARLArrivals.Intervals < 1 {
		errs = append(errs, fmt.Errorf("eval.marl_arrivals.intervals: must be >= 1, got %d", c.MARLArrivals.Intervals))
	}
	for _, g := range []struct {
		id, key string
		cfg     MARLGridConfig
	}{{evaluation.MARLServers, "eval.marl_servers", c.MARLServers}, {evaluation.MARLTopologies, "eval.marl_topologies", c.MARLTopologies},
		{evaluation.MARLVsSingle, "eval.marl_vs_single", c.MARLVsSingle}} {
		if listed(g.id) && g.cfg.Intervals < 1 {
			errs = append(errs, fmt.Errorf("%s.intervals: must be >= 1, got %d", g.key, g.cfg.Intervals))
		}
		for i, cl := range g.cfg.Clusters {
			if err := cl.Spec.Validate(); err != nil {
				errs = append(errs, fmt.Errorf("%s.clusters[%d] (%s): %w", g.key, i, cl.Name, err))
			} else if cl.Spec.Topology == "flat" || cl.Spec.Servers == "pai-v100" {
				errs = append(errs, fmt.Errorf("%s.clusters[%d] (%s): want a fattree, vl2 or bcube of power8, dgx1, hetero-cpu or mixed servers", g.key, i, cl.Name))
			}
		}
	}
	return errors.Join(errs...)
}

// Artifacts of the evaluation stages.
const (
	EvalResults = evaluation.ResultsFile
	EvalMetrics = evaluation.MetricsFile
	EvalTimings = evaluation.TimingsFile
)

// evalDir is where one experiment's Parquet tables go before they are
// collected into eval/*.parquet.
func evalDir(id string) string { return "eval/" + id }

// evalStage runs one experiment: its spec from the preset's knobs, its job
// trace or arrivals table as inputs (artifacts of this run), its outputs
// the experiment's Parquet tables, tables/<id>.{md,csv,tex} and
// plots/<id>.{svg,png}.
type evalStage struct {
	spec    evaluation.Spec
	inputs  []string
	workers int
	fitted  bool // speeds from fit/model.json
	// models maps "scheduler@cluster" (the cluster's name in the spec) to
	// the learned scheduler's model files there (artifacts of this run).
	models map[string][]string
}

// experimentSpec is the spec of one configured experiment, with the run
// artifacts it reads (a job trace or arrivals table, resolved when the
// stage runs) and whether its speeds come from the fitted model.
func (c *Config) experimentSpec(id, arrivals string) (spec evaluation.Spec, inputs []string, fitted bool, err error) {
	spec, err = evaluation.DefaultSpec(id)
	if err != nil {
		return spec, nil, false, err
	}
	spec.Seeds = c.Eval.Seeds
	switch id {
	case evaluation.DASTable1, evaluation.DASLoad, evaluation.DASTuning:
		t1 := c.Eval.DASTable1
		fitted = t1.FittedInterference
		switch id {
		case evaluation.DASTable1:
			spec.Schedulers = t1.Schedulers
		case evaluation.DASLoad:
			spec.Schedulers = c.Eval.DASLoad.Schedulers
			base := spec.Workloads[0]
			spec.Workloads = nil
			for _, r := range c.Eval.DASLoad.Rates {
				w := base
				w.Name, w.ArrivalRate = evaluation.LoadWorkloadName(r), r
				spec.Workloads = append(spec.Workloads, w)
			}
		case evaluation.DASTuning:
			spec.Schedulers = c.Eval.DASTuning.Schedulers
		}
		for i := range spec.Workloads {
			w := &spec.Workloads[i]
			w.MaxJobs, w.TestFraction = t1.MaxJobs, t1.TestFraction
			w.JobsFile = c.JobsArtifact() // resolved to the run's file when the stage runs
		}
		inputs = []string{c.JobsArtifact()}
	default: // the MARL experiments
		fitted = c.Eval.MARLArrivals.FittedInterference
		intervals := 0
		switch id {
		case evaluation.MARLArrivals:
			e := c.Eval.MARLArrivals
			spec.Schedulers, intervals = e.Schedulers, e.Intervals
			spec.Clusters[0].Name = fmt.Sprintf("fattree-k%d", e.K)
			spec.Clusters[0].Spec.K = e.K
			for i := range spec.Workloads {
				spec.Workloads[i].JobsPerPod = e.JobsPerPod
			}
		default:
			g := map[string]MARLGridConfig{evaluation.MARLServers: c.Eval.MARLServers, evaluation.MARLTopologies: c.Eval.MARLTopologies,
				evaluation.MARLVsSingle: c.Eval.MARLVsSingle}[id]
			spec.Schedulers, intervals = g.Schedulers, g.Intervals
			if len(g.Clusters) > 0 {
				spec.Clusters = g.Clusters
			}
		}
		for i := range spec.Workloads {
			w := &spec.Workloads[i]
			w.Intervals = intervals
			if w.Kind == evaluation.KindGoogle && arrivals != "" {
				w.ArrivalsFile = arrivals
				inputs = append(inputs, arrivals)
			}
		}
	}
	if err := spec.Validate(); err != nil {
		return spec, nil, false, fmt.Errorf("eval (%s): %w", id, err)
	}
	if fitted {
		inputs = append(inputs, FitModel)
	}
	return spec, inputs, fitted, nil
}

// evalStages builds the stage of every configured experiment; learned
// schedulers load the models of models (keyed by modelKey).
func (c *Config) evalStages(arrivals string, models map[string][]string) ([]pipeline.Stage, error) {
	var out []pipeline.Stage
	for _, id := range c.Eval.Experiments {
		spec, inputs, fitted, err := c.experimentSpec(id, arrivals)
		if err != nil {
			return nil, err
		}
		mine := map[string][]string{}
		for _, name := range spec.Schedulers {
			canon, _ := evaluation.CanonicalScheduler(name)
			if !evaluation.IsLearned(canon) {
				continue
			}
			for _, cl := range spec.Clusters {
				files, ok := models[c.modelKey(canon, cl.Spec)]
				if !ok {
					return nil, fmt.Errorf("eval (%s): learned scheduler %s is not trained by this DAG (no training stage for it)", id, canon)
				}
				mine[canon+"@"+cl.Name] = files
				inputs = append(inputs, files...)
			}
		}
		slices.Sort(inputs)
		out = append(out, &evalStage{spec: spec, inputs: slices.Compact(inputs), workers: c.Workers, models: mine, fitted: fitted})
	}
	return out, nil
}

func (s *evalStage) Name() string     { return "eval-" + s.spec.Experiment }
func (s *evalStage) Version() string  { return stageVersion }
func (s *evalStage) Inputs() []string { return s.inputs }
func (s *evalStage) Config() any      { return s.spec }

func (s *evalStage) Outputs() []string {
	id := s.spec.Experiment
	outs := []string{}
	for _, f := range []string{EvalResults, EvalMetrics, EvalTimings} {
		outs = append(outs, path.Join(evalDir(id), path.Base(f)))
	}
	for _, ext := range []string{"md", "csv", "tex"} {
		outs = append(outs, "tables/"+id+"."+ext)
	}
	return append(outs, "plots/"+id+".svg", "plots/"+id+".png")
}

func (s *evalStage) Run(ctx context.Context, env *pipeline.Env) error {
	spec := s.spec
	spec.Workloads = slices.Clone(spec.Workloads)
	for i := range spec.Workloads {
		w := &spec.Workloads[i]
		if w.JobsFile != "" {
			w.JobsFile = env.Input(w.JobsFile)
		}
		if w.ArrivalsFile != "" {
			w.ArrivalsFile = env.Input(w.ArrivalsFile)
		}
	}
	var model sim.Interference
	if s.fitted {
		var err error
		if model, err = FittedInterference(env.Input(FitModel)); err != nil {
			return err
		}
	}
	newSched := func(c evaluation.Cell, seed uint64) (sim.Scheduler, error) {
		if !evaluation.IsLearned(c.Scheduler) {
			return nil, nil
		}
		files := s.models[c.Scheduler+"@"+c.Cluster]
		if len(files) == 0 {
			return nil, fmt.Errorf("no trained model of %s for cluster %s", c.Scheduler, c.Cluster)
		}
		return schedulers.New(schedulers.Name(c.Scheduler), schedulers.Options{Model: filepath.Dir(env.Input(files[0])), Seed: seed})
	}
	rep, err := evaluation.Run(ctx, spec, evaluation.Options{Seed: env.Seed, Workers: s.workers, Progress: env.Progress(), Log: env.Log,
		NewScheduler: newSched, Interference: model})
	if err != nil {
		return err
	}
	// The report names its files relative to a run directory; write them
	// into a scratch directory of the staging area and move each to its
	// declared output.
	scratch := filepath.Join(filepath.Dir(env.Output(s.Outputs()[0])), ".write")
	defer os.RemoveAll(scratch)
	written, err := rep.Write(ctx, scratch)
	if err != nil {
		return err
	}
	for _, rel := range written {
		dst := filepath.ToSlash(rel)
		if slices.Contains([]string{EvalResults, EvalMetrics, EvalTimings}, dst) {
			dst = path.Join(evalDir(spec.Experiment), path.Base(dst))
		}
		if err := os.Rename(filepath.Join(scratch, rel), env.Output(dst)); err != nil {
			return err
		}
	}
	return nil
}

// EvalCurves is the learning curves of every model the run trained.
const EvalCurves = "eval/curves.parquet"

// EvalCollect gathers every experiment's tables into eval/results.parquet,
// eval/metrics.parquet and eval/timings.parquet (DESIGN.md §7), in the
// order of the experiments, and the learning curves of the trained models
// into eval/curves.parquet, in model order.
func EvalCollect(ids []string, models map[string][]string) pipeline.Stage {
	var in, curves []string
	for _, id := range ids {
		for _, f := range []string{EvalResults, EvalMetrics, EvalTimings} {
			in = append(in, path.Join(evalDir(id), path.Base(f)))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(models)) {
		for _, f := range models[key] {
			if path.Base(f) == training.CurvesFile {
				curves = append(curves, f)
			}
		}
	}
	return &pipeline.Func{
		StageName: "eval-collect", StageVersion: stageVersion, In: append(in, curves...),
		Out: []string{EvalResults, EvalMetrics, EvalTimings, EvalCurves}, Cfg: ids,
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			meta := datasets.FileMeta{Source: "eval", ConfigHash: env.ConfigHash}
			if err := collect[evaluation.ResultRow](env, experimentFiles(ids, EvalResults), EvalResults, meta); err != nil {
				return err
			}
			if err := collect[evaluation.MetricsRow](env, experimentFiles(ids, EvalMetrics), EvalMetrics, meta); err != nil {
				return err
			}
			if err := collect[evaluation.TimingRow](env, experimentFiles(ids, EvalTimings), EvalTimings, meta); err != nil {
				return err
			}
			return collect[training.Curve](env, curves, EvalCurves, meta)
		},
	}
}

func experimentFiles(ids []string, file string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, path.Join(evalDir(id), path.Base(file)))
	}
	return out
}

func collect[T any](env *pipeline.Env, inputs []string, file string, meta datasets.FileMeta) error {
	all := []T{}
	for _, in := range inputs {
		rows, err := datasets.ReadParquet[T](env.Input(in))
		if err != nil {
			return err
		}
		all = append(all, rows...)
	}
	return datasets.WriteParquet(env.Output(file), meta, all)
}
