package stages

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/sim"
)

// TaskEvalCell is the task kind of one evaluation cell: the bulk of an
// evaluation stage's work, handed to the run's executor when it has one.
const TaskEvalCell = "eval.cell"

func init() { pipeline.RegisterTask(TaskEvalCell, runCellTask) }

// cellTask is an evaluation cell's spec. Every file it names is one of
// the task's inputs, with its hash; Jobs is the cell's workload, drawn or
// read by the driver once and shared by every cell of it.
type cellTask struct {
	Spec evaluation.Spec `json:"spec"`
	Cell evaluation.Cell `json:"cell"`
	Jobs string          `json:"jobs"` // gob of []datasets.Job
	// Results is where the task leaves the cell's per-job results
	// (evaluation.WriteJobs), in the batch's directory: they stay out of
	// the result it returns, which the executor hands back with every
	// other cell's at once.
	Results string `json:"results"`
	// FitModel and Environment are the speed model's sources
	// (plan.Sources), "" for none.
	FitModel    string `json:"fit_model,omitempty"`
	Environment string `json:"environment,omitempty"`
	// Model is a learned scheduler's model directory.
	Model string `json:"model,omitempty"`
	// Data maps the data files the schedulers read to their paths
	// (evaluation.Options.Data).
	Data map[string]string `json:"data,omitempty"`
	// External is the declared policy of an external:NAME cell, with the
	// digest of its files: a worker runs it from here, having read no
	// configuration.
	External *external.Row `json:"external,omitempty"`
}

// cellOutput is what a cell task returns, gob-encoded: gob carries
// float64s bit for bit, NaN and ±Inf included, where JSON cannot. The
// per-job results are in cellTask.Results.
type cellOutput struct {
	Metrics   sim.Metrics
	Decisions int
	Timing    sim.Timing
	// Failed is the error of a cell whose scheduler's failure stops its
	// row only (evaluation.RowFailure): the task succeeds, and the driver
	// drops the row.
	Failed string
}

func runCellTask(ctx context.Context, t pipeline.Task, _ pipeline.TaskEnv) ([]byte, error) {
	var ct cellTask
	if err := json.Unmarshal(t.Spec, &ct); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	var jobs []datasets.Job
	if err := pipeline.ReadGob(ct.Jobs, &jobs); err != nil {
		return nil, err
	}
	speeds, err := plan.SpeedOf(ct.Spec.Sim, ct.FitModel != "").Resolve(plan.Sources{Fit: ct.FitModel, Environment: ct.Environment})
	if err != nil {
		return nil, err
	}
	opt := evaluation.Options{Interference: speeds.Interference, Data: ct.Data, NewScheduler: func(c evaluation.Cell, seed uint64) (sim.Scheduler, error) {
		if ct.External != nil && string(c.Scheduler) == external.Prefix+ct.External.Spec.Name {
			return ct.External.Spec.Policy(seed)
		}
		if !c.Scheduler.Learned() {
			return nil, nil
		}
		if ct.Model == "" {
			return nil, fmt.Errorf("no trained model of %s for cluster %s", c.Scheduler, c.Cluster)
		}
		return schedulers.New(c.Scheduler, schedulers.Options{Model: ct.Model, Seed: seed})
	}}
	cr, err := evaluation.RunCell(ctx, ct.Spec, t.Seed, ct.Cell, jobs, opt)
	var co cellOutput
	switch {
	case err != nil && evaluation.RowOnly(err) && ctx.Err() == nil:
		co.Failed = err.Error()
	case err != nil:
		return nil, err
	default:
		if err := evaluation.WriteJobs(ct.Results, cr.Jobs); err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		co = cellOutput{Metrics: cr.Metrics, Decisions: cr.Decisions, Timing: cr.Timing}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(co); err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	return buf.Bytes(), nil
}

// cellTasks runs an evaluation stage's cells on the run's executor: the
// driver writes each workload's jobs once into the stage's task directory,
// hands out one task per cell, and decodes the results in cell order;
// each cell's per-job results stay in the file its task wrote there.
func (s *evalStage) cellTasks(env *pipeline.Env, spec evaluation.Spec) func(context.Context, []evaluation.PreparedCell) ([]evaluation.CellResult, error) {
	return func(ctx context.Context, cells []evaluation.PreparedCell) ([]evaluation.CellResult, error) {
		b, err := env.Batch(nil)
		if err != nil {
			return nil, err
		}
		var common []pipeline.InputRef
		base := cellTask{Spec: spec}
		src := plan.SpeedOf(spec.Sim, s.fitted).RunSources(func(a string) string {
			ref := env.InputRef(a)
			common = append(common, ref)
			return ref.Path
		})
		base.FitModel, base.Environment = src.Fit, src.Environment
		base.Data = s.dataPaths(func(in string) string {
			ref := env.InputRef(in)
			common = append(common, ref)
			return ref.Path
		})
		workloads := map[string]pipeline.InputRef{}
		var results []string // each task's ct.Results
		for _, pc := range cells {
			c := pc.Cell
			wk := c.Cluster + "/" + c.Workload + "/" + strconv.Itoa(c.Seed)
			jobs, ok := workloads[wk]
			if !ok {
				p := filepath.Join(b.Dir, fmt.Sprintf("jobs-%03d.gob", len(workloads)))
				if jobs, err = writeGob(p, pc.Jobs); err != nil {
					return nil, fmt.Errorf("cell %s: %w", c.Key(), err)
				}
				workloads[wk] = jobs
			}
			ct := base
			ct.Cell, ct.Jobs = c, jobs.Path
			ct.Results = filepath.Join(b.Dir, fmt.Sprintf("results-%05d.gob", len(b.Tasks)))
			results = append(results, ct.Results)
			inputs := append(append([]pipeline.InputRef{}, common...), jobs)
			if rows := external.Rows([]string{string(c.Scheduler)}); len(rows) == 1 {
				ct.External = &rows[0]
			}
			if c.Scheduler.Learned() {
				// The cell's replicate's model, as in the driver (eval.go).
				files := s.models[cellModel(c)]
				if len(files) == 0 {
					return nil, fmt.Errorf("cell %s: no trained model of %s for cluster %s (replicate %d)", c.Key(), c.Scheduler, c.Cluster, c.Replicate)
				}
				for _, f := range files {
					inputs = append(inputs, env.InputRef(f))
				}
				ct.Model = filepath.Dir(env.InputRef(files[0]).Path)
			}
			js, err := json.Marshal(ct)
			if err != nil {
				return nil, fmt.Errorf("cell %s: %w", c.Key(), err)
			}
			b.Tasks = append(b.Tasks, pipeline.Task{Kind: TaskEvalCell, Name: c.Key(), Spec: js, Inputs: inputs, Seed: env.Seed})
		}
		outs, err := env.Executor().Run(ctx, b)
		if err != nil {
			return nil, err
		}
		res := make([]evaluation.CellResult, len(outs))
		for i, o := range outs {
			var co cellOutput
			if err := gob.NewDecoder(bytes.NewReader(o)).Decode(&co); err != nil {
				return nil, fmt.Errorf("cell %s: result: %w", cells[i].Cell.Key(), err)
			}
			res[i] = evaluation.CellResult{Cell: cells[i].Cell, JobsFile: results[i], Metrics: co.Metrics, Decisions: co.Decisions, Timing: co.Timing, Failed: co.Failed}
			if co.Failed != "" {
				res[i].JobsFile = "" // the task wrote none
			}
		}
		return res, nil
	}
}

// writeGob writes v to path atomically and returns its reference.
func writeGob(path string, v any) (pipeline.InputRef, error) {
	if err := pipeline.WriteGobAtomic(path, v); err != nil {
		return pipeline.InputRef{}, err
	}
	sum, _, err := pipeline.HashFile(path)
	if err != nil {
		return pipeline.InputRef{}, err
	}
	return pipeline.InputRef{Path: path, SHA256: sum}, nil
}
