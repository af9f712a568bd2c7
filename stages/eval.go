package stages

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// EvalConfig selects the evaluation experiments of a run (DESIGN.md §6)
// and each one's knobs; it is the experiments' own configuration, kept
// with their registry in evaluation.
type EvalConfig = evaluation.Config

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
	// models maps a learned scheduler's model on a cluster of the spec
	// (each replicate's) to its files (artifacts of this run).
	models map[modelRef][]string
	// data maps the data files its schedulers read to their inputs
	// (plan.Experiment.Data).
	data map[string]string
}

// evalStages builds the stage of every configured experiment; learned
// schedulers load the models of models (keyed by plan.Config.ModelKey), and every
// replicate of replicas' keys (trainStages).
func (c *Config) evalStages(p *plan.Plan, models map[string][]string, replicas map[string][][]string) ([]pipeline.Stage, error) {
	var out []pipeline.Stage
	for _, pe := range p.Experiments {
		spec, inputs, fitted, id := pe.Spec, slices.Clone(pe.Inputs), pe.Fitted, pe.Spec.Experiment
		names, err := spec.SchedulerNames()
		if err != nil {
			return nil, fmt.Errorf("eval (%s): %w", id, err)
		}
		mine := map[modelRef][]string{}
		for _, canon := range names {
			if !canon.Learned() {
				continue
			}
			for _, cl := range spec.Clusters {
				key := p.Config.ModelKey(canon, cl.Spec)
				files, ok := models[key]
				if !ok {
					return nil, fmt.Errorf("eval (%s): learned scheduler %s is not trained by this DAG (no training stage for it)", id, canon)
				}
				mine[modelRef{canon, cl.Name, 0}] = files
				inputs = append(inputs, files...)
				if reps := replicas[key]; len(reps) > 1 {
					if spec.Replicates == nil {
						spec.Replicates = map[string]int{}
					}
					spec.Replicates[evaluation.ReplicateKey(canon, cl.Name)] = len(reps)
					for r := 1; r < len(reps); r++ {
						mine[modelRef{canon, cl.Name, r}] = reps[r]
						inputs = append(inputs, reps[r]...)
					}
				}
			}
		}
		slices.Sort(inputs)
		out = append(out, &evalStage{spec: spec, inputs: slices.Compact(inputs), workers: c.Workers, models: mine, fitted: fitted, data: pe.Data})
	}
	return out, nil
}

// modelRef names one trained model an experiment evaluates: a learned
// scheduler's replicate on a cluster of the spec (by its name there).
type modelRef struct {
	Scheduler schedulers.Name
	Cluster   string
	Replicate int
}

// dataPaths maps the data files the schedulers read to where the stage
// reads them: path of each input; nil when there are none.
func (s *evalStage) dataPaths(path func(string) string) map[string]string {
	if len(s.data) == 0 {
		return nil
	}
	out := make(map[string]string, len(s.data))
	for _, rel := range slices.Sorted(maps.Keys(s.data)) { // path may record its calls
		out[rel] = path(s.data[rel])
	}
	return out
}

// cellModel is the model a cell of a learned scheduler evaluates.
func cellModel(c evaluation.Cell) modelRef { return modelRef{c.Scheduler, c.Cluster, c.Replicate} }

func (s *evalStage) Name() string     { return "eval-" + s.spec.Experiment }
func (s *evalStage) Version() string  { return evalStageVersion }
func (s *evalStage) Inputs() []string { return s.inputs }
func (s *evalStage) Config() any {
	// A row of an external policy is its command and script as much as
	// its name: they join the cache key (and only then, so that other
	// stages' keys are as before).
	if rows := external.Rows(s.spec.Schedulers); rows != nil {
		return struct {
			Spec     evaluation.Spec
			External []external.Row
		}{s.spec, rows}
	}
	return s.spec
}

// outputs are the stage's declared outputs: the experiment's Parquet
// tables under eval/<id>/ (collected by EvalCollect), its table and plot.
func (s *evalStage) outputs() evaluation.OutputPaths {
	dir := evalDir(s.spec.Experiment)
	e, err := evaluation.Lookup(s.spec.Experiment)
	if err != nil { // not registered: a spec built by hand names its files by its id
		e = evaluation.Experiment{ID: s.spec.Experiment}
	}
	t, p := e.TableFiles(), e.PlotFiles()
	return evaluation.OutputPaths{
		Results: path.Join(dir, path.Base(EvalResults)), Metrics: path.Join(dir, path.Base(EvalMetrics)), Timings: path.Join(dir, path.Base(EvalTimings)),
		Markdown: t[0], CSV: t[1], LaTeX: t[2], SVG: p[0], PNG: p[1],
		Failed: s.failedRows(),
	}
}

// failedRows is the experiment's FailedRowsFile when one of its rows is
// an external policy that may fail alone (on_error: row), "" otherwise:
// the other experiments' outputs are as before.
func (s *evalStage) failedRows() string {
	for _, r := range external.Rows(s.spec.Schedulers) {
		if r.Spec.OnError == external.OnErrorRow {
			return path.Join(evalDir(s.spec.Experiment), evaluation.FailedRowsFile)
		}
	}
	return ""
}

// FailedRows lists the failed rows that the run in dir recorded for the
// configured experiments (evaluation.FailedRowsFile), in their order.
func (c *Config) FailedRows(dir string) ([]evaluation.FailedRowRecord, error) {
	var out []evaluation.FailedRowRecord
	for _, id := range c.Eval.Experiments {
		rows, err := evaluation.ReadFailedRows(filepath.Join(dir, filepath.FromSlash(evalDir(id)), evaluation.FailedRowsFile))
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

func (s *evalStage) Outputs() []string { return s.outputs().List() }

func (s *evalStage) Run(ctx context.Context, env *pipeline.Env) error {
	spec := s.spec.WithFiles(env.Input)
	speed := plan.SpeedOf(spec.Sim, s.fitted)
	speeds, err := speed.Resolve(speed.RunSources(env.Input))
	if err != nil {
		return err
	}
	newSched := func(c evaluation.Cell, seed uint64) (sim.Scheduler, error) {
		if !c.Scheduler.Learned() {
			return nil, nil
		}
		files := s.models[cellModel(c)]
		if len(files) == 0 {
			return nil, fmt.Errorf("no trained model of %s for cluster %s (replicate %d)", c.Scheduler, c.Cluster, c.Replicate)
		}
		return schedulers.New(c.Scheduler, schedulers.Options{Model: filepath.Dir(env.Input(files[0])), Seed: seed})
	}
	// The cells' per-job results wait in the task directory, never among
	// the outputs, until the results table is written.
	opt := evaluation.Options{Seed: env.Seed, Workers: s.workers, Progress: env.Progress(), Log: env.Log,
		NewScheduler: newSched, Interference: speeds.Interference, ScratchDir: env.TaskDir(), Data: s.dataPaths(env.Input)}
	if env.Executor() != nil {
		opt.Cells = s.cellTasks(env, spec) // evaltask.go
	}
	rep, err := evaluation.Run(ctx, spec, opt)
	if err != nil {
		return err
	}
	o := s.outputs()
	for _, p := range []*string{&o.Results, &o.Metrics, &o.Timings, &o.Markdown, &o.CSV, &o.LaTeX, &o.SVG, &o.PNG, &o.Failed} {
		if *p != "" {
			*p = env.Output(*p)
		}
	}
	return errors.Join(rep.Write(ctx, o), rep.Close())
}

// EvalCurves is the learning curves of every model the run trained.
const EvalCurves = "eval/curves.parquet"

// EvalCollect gathers every experiment's tables into eval/results.parquet,
// eval/metrics.parquet and eval/timings.parquet (DESIGN.md §7), in the
// order of the experiments, and the learning curves of the trained models
// into eval/curves.parquet, in model order. models holds each model's
// first replicate only: curves have no replicate column, and the others'
// curves stay in their models/<key>/replicate-<r>/ directories.
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
			if err := collect[evaluation.ResultRow](ctx, env, experimentFiles(ids, EvalResults), EvalResults, meta); err != nil {
				return err
			}
			if err := collect[evaluation.MetricsRow](ctx, env, experimentFiles(ids, EvalMetrics), EvalMetrics, meta); err != nil {
				return err
			}
			if err := collect[evaluation.TimingRow](ctx, env, experimentFiles(ids, EvalTimings), EvalTimings, meta); err != nil {
				return err
			}
			return collect[training.Curve](ctx, env, curves, EvalCurves, meta)
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

// collect concatenates the experiments' files of one table; it holds a
// batch of rows at a time, not the table (at the paper's scale the
// results table was 2.7 million rows, and holding it took eval-collect
// to 3.2 GB).
func collect[T any](ctx context.Context, env *pipeline.Env, inputs []string, file string, meta datasets.FileMeta) error {
	paths := make([]string, len(inputs))
	for i, in := range inputs {
		paths[i] = env.Input(in)
	}
	return datasets.ConcatParquet[T](ctx, env.Output(file), meta, paths)
}
