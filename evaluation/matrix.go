package evaluation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/sourcegraph/conc/pool"
)

// Options are how a matrix runs; none of them changes its results.
type Options struct {
	// Seed is the run seed; every random stream of the run is derived from
	// it and a cell or workload key.
	Seed uint64
	// Workers bounds the cells simulated at once (≤ 0 means 1).
	Workers int
	// Progress reports one step per finished cell; nil reports nothing.
	Progress *pipeline.Progress
	// Log receives skipped workloads and per-cell summaries; nil discards.
	Log *slog.Logger
	// NewScheduler builds a cell's scheduler (c.Scheduler is the canonical
	// name; c.Cluster says which cluster's trained model a learned one
	// loads) from the cell's seed. It may return nil, nil for names it
	// leaves to the default, schedulers.New, which knows every heuristic
	// and meta-heuristic but no learned scheduler.
	NewScheduler func(c Cell, seed uint64) (sim.Scheduler, error)
	// Interference is the job-slowdown model of every cell (the fitted
	// one, in the DAG); nil means sim.DefaultInterference.
	Interference sim.Interference
	// Data maps the data files the schedulers read (schedulers.Info.Data)
	// to their paths: schedulers.Options.Data of every cell.
	Data map[string]string
	// Cells, when set, runs the prepared cells in place of the pool
	// (through a pipeline.Executor, see RunCell): one result per cell, in
	// order. Cell and Metrics.Pruned of its results are filled in here. A
	// result may hand its jobs over in a file (CellResult.JobsFile), which
	// stays the caller's.
	Cells func(ctx context.Context, cells []PreparedCell) ([]CellResult, error)
	// ScratchDir, when set, is a directory where Run leaves each finished
	// cell's per-job results, in a file of their own, rather than keep
	// them in memory (at the paper's scale an experiment evaluates
	// millions of jobs); Report.Write reads them back and Report.Close
	// removes them.
	ScratchDir string
}

// PreparedCell is a cell with its workload's jobs, ready to simulate.
type PreparedCell struct {
	Cell Cell
	Jobs []datasets.Job
}

// CellResult is what one cell produced.
type CellResult struct {
	Cell Cell
	// Jobs are the evaluated jobs' results, in job order; nil when they
	// are in JobsFile.
	Jobs []sim.JobResult
	// JobsFile, when set, is the file that holds Jobs (WriteJobs): see
	// Options.ScratchDir and Options.Cells.
	JobsFile string
	// Metrics cover Jobs; Metrics.Pruned adds the workload's pruned jobs.
	Metrics   sim.Metrics
	Decisions int
	// Timing is wall clock: it goes to the timings table only.
	Timing sim.Timing
	// Failed, from Options.Cells only, is the error of a cell whose
	// scheduler's failure stops its row (RowFailure): the cell has no
	// results, and Run drops its row as when it runs the cell itself.
	Failed string

	paired *jobPairs // the pairs of a cell whose jobs are in JobsFile
}

// Report is a finished matrix: every cell in spec order (cluster,
// workload, scheduler, seed), whatever the number of workers.
type Report struct {
	Spec Spec
	Seed uint64
	// Names are the canonical names of Spec.Schedulers, in order.
	Names []schedulers.Name
	// Cells that ran.
	Cells []CellResult
	// Workloads accounts for every (cluster, workload, seed), in spec
	// order, including skipped ones.
	Workloads []WorkloadInfo
	// TotalGPU of each cluster, by spec index.
	TotalGPU []float64

	// Failed are the rows stopped by an error that stops its row only
	// (RowFailure), one per row: its first failing cell and the error.
	// Their cells are not in Cells: the row's values are empty.
	Failed []FailedRow

	scratch string // the directory of the cells' JobsFiles that Run made
}

// FailedRow is a scheduler's row stopped by an error (Report.Failed).
type FailedRow struct {
	Scheduler schedulers.Name
	Cell      Cell // the cell that failed first, in spec order
	Err       string
}

// RowFailure is an error that stops its scheduler's row and not the run:
// what an external policy declared with on_error: row returns. Any other
// error of a cell stops the run.
type RowFailure interface {
	error
	RowOnly() bool
}

// RowOnly reports whether err stops its row only (a RowFailure).
func RowOnly(err error) bool { return rowOnly(err) }

func rowOnly(err error) bool {
	rf, ok := errors.AsType[RowFailure](err)
	return ok && rf.RowOnly()
}

// Run runs the matrix of spec. Workloads are prepared first (each trace
// read once, each synthetic workload drawn from its own stream); then the
// cells run in a pool of opt.Workers goroutines, each writing only its own
// slot of the result, so the report does not depend on scheduling. The
// first failing cell cancels the others; its error names the cell. With
// opt.ScratchDir the caller closes the report when done with it.
func Run(ctx context.Context, spec Spec, opt Options) (_ *Report, err error) {
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("evaluation: %w", err)
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	newSched := opt.newScheduler(spec)
	names, err := spec.SchedulerNames()
	if err != nil {
		return nil, fmt.Errorf("evaluation: %w", err)
	}
	rep := &Report{Spec: spec, Seed: opt.Seed, Names: names}
	speed, err := opt.gpuSpeed()
	if err != nil {
		return nil, fmt.Errorf("evaluation: %w", err)
	}
	clusters := make([]*sim.Cluster, len(spec.Clusters))
	for i, c := range spec.Clusters {
		built, err := c.Spec.Build()
		if err != nil {
			return nil, fmt.Errorf("evaluation: cluster %s: %w", c.Name, err)
		}
		built.Name, built.GPUSpeed = c.Name, speed
		clusters[i] = built
		rep.TotalGPU = append(rep.TotalGPU, built.TotalGPU())
	}

	// jobs[ci][wi][seed]; nil when skipped.
	jobs := make([][][][]datasets.Job, len(clusters))
	for ci := range clusters {
		jobs[ci] = make([][][]datasets.Job, len(spec.Workloads))
		for wi := range spec.Workloads {
			jobs[ci][wi] = make([][]datasets.Job, spec.Seeds)
		}
	}
	for wi, w := range spec.Workloads {
		if err := prepare(ctx, spec, opt.Seed, wi, w, clusters, jobs, rep, log); err != nil {
			return nil, fmt.Errorf("evaluation: %w", err)
		}
	}

	var todo []Cell
	for _, c := range spec.cells(rep.Names) {
		if jobs[c.ci][c.wi][c.Seed] != nil {
			todo = append(todo, c)
		}
	}
	if opt.ScratchDir != "" {
		if rep.scratch, err = pipeline.MkdirScratch(opt.ScratchDir, "cells"); err != nil {
			return nil, fmt.Errorf("evaluation: scratch directory: %w", err)
		}
		defer func() {
			if err != nil {
				rep.Close()
			}
		}()
	}
	bar := opt.Progress.Start("eval "+spec.Experiment, int64(len(todo)))
	defer bar.Done()
	if opt.Cells != nil {
		prepared := make([]PreparedCell, len(todo))
		for i, c := range todo {
			prepared[i] = PreparedCell{Cell: c, Jobs: jobs[c.ci][c.wi][c.Seed]}
		}
		results, err := opt.Cells(ctx, prepared)
		if err != nil {
			return nil, fmt.Errorf("evaluation: %w", err)
		}
		if len(results) != len(todo) {
			return nil, fmt.Errorf("evaluation: %d results for %d cells", len(results), len(todo))
		}
		failed := make([]error, len(todo))
		for i, c := range todo {
			results[i].Cell = c
			if results[i].Failed != "" {
				failed[i] = errors.New(results[i].Failed)
				continue
			}
			results[i].Metrics.Pruned += rep.workload(c).Pruned
			if err := rep.keep(i, &results[i]); err != nil {
				return nil, fmt.Errorf("evaluation: cell %s: %w", c.Key(), err)
			}
		}
		bar.Add(int64(len(todo)))
		rep.Cells, rep.Failed = dropFailedRows(todo, results, failed)
		return rep, nil
	}
	results := make([]CellResult, len(todo))
	failed := make([]error, len(todo)) // a cell's error that stops its row only
	p := pool.New().WithContext(ctx).WithMaxGoroutines(max(opt.Workers, 1)).WithCancelOnError().WithFirstError()
	for i, c := range todo {
		p.Go(func(ctx context.Context) error {
			cr, err := runCell(ctx, spec, opt.Seed, c, clusters[c.ci], jobs[c.ci][c.wi][c.Seed], newSched, opt.Interference)
			if err != nil && rowOnly(err) && ctx.Err() == nil {
				failed[i] = err
				bar.Add(1)
				log.Warn("row failed", "cell", c.Key(), "scheduler", c.Scheduler, "err", err)
				return nil
			}
			if err != nil {
				return fmt.Errorf("evaluation: cell %s: %w", c.Key(), err)
			}
			cr.Metrics.Pruned += rep.workload(c).Pruned
			if err := rep.keep(i, &cr); err != nil {
				return fmt.Errorf("evaluation: cell %s: %w", c.Key(), err)
			}
			results[i] = cr
			bar.Add(1)
			log.Debug("cell done", "cell", c.Key(), "jobs", cr.Metrics.Jobs, "mean_jct_min", cr.Metrics.MeanJCTS/60, "wall", time.Duration(cr.Timing.WallS*float64(time.Second)).Round(time.Millisecond))
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	rep.Cells, rep.Failed = dropFailedRows(todo, results, failed)
	return rep, nil
}

// dropFailedRows keeps the cells of the rows where no cell failed, and
// names each failed row's first failure in spec order (whatever the
// order the cells ran in).
func dropFailedRows(todo []Cell, results []CellResult, failed []error) ([]CellResult, []FailedRow) {
	var rows []FailedRow
	for i, err := range failed {
		if err != nil && !slices.ContainsFunc(rows, func(f FailedRow) bool { return f.Scheduler == todo[i].Scheduler }) {
			// One line: it goes into a table's notes.
			msg := strings.Join(strings.Fields(err.Error()), " ")
			if n := 600; len(msg) > n {
				for n > 0 && !utf8.RuneStart(msg[n]) {
					n--
				}
				msg = msg[:n] + "…"
			}
			rows = append(rows, FailedRow{Scheduler: todo[i].Scheduler, Cell: todo[i], Err: msg})
		}
	}
	if rows == nil {
		return results, nil
	}
	kept := results[:0:0]
	for i, cr := range results {
		if !slices.ContainsFunc(rows, func(f FailedRow) bool { return f.Scheduler == todo[i].Scheduler }) {
			kept = append(kept, cr)
		}
	}
	return kept, rows
}

// newScheduler is the scheduler factory of a cell: opt.NewScheduler,
// then schedulers.New for every name but a learned one.
func (opt Options) newScheduler(spec Spec) func(Cell, uint64) (sim.Scheduler, error) {
	return func(c Cell, seed uint64) (sim.Scheduler, error) {
		if opt.NewScheduler != nil {
			if s, err := opt.NewScheduler(c, seed); s != nil || err != nil {
				return s, err
			}
		}
		if c.Scheduler.Learned() {
			return nil, fmt.Errorf("learned scheduler %s has no trained model for cluster %s: schedlab run trains it in its DAG", c.Scheduler, c.Cluster)
		}
		return schedulers.New(c.Scheduler, schedulers.Options{Seed: seed, PriceGPUHour: spec.Sim.PriceGPUHour, Data: opt.Data, Params: spec.Params})
	}
}

// gpuSpeed is the cells' GPU-type speeds: Gavel's measured throughputs
// where Data holds them (a run's plan puts them there for a cluster of
// GPU-type servers, sim.GPUTyped), nil otherwise. On servers of no
// measured type every job runs at its recorded pace.
func (opt Options) gpuSpeed() (sim.GPUSpeed, error) {
	thr, err := schedulers.GavelThroughputsAt(opt.Data[schedulers.GavelThroughputsFile])
	if err != nil || thr == nil {
		return nil, err
	}
	return sim.GPUSpeed(thr), nil
}

// RunCell simulates one cell of spec on jobs, as Run's pool does: the
// function of an evaluation-cell task on a worker. The result's Cell is c;
// Metrics.Pruned counts only the simulated jobs (Run adds the workload's).
func RunCell(ctx context.Context, spec Spec, seed uint64, c Cell, jobs []datasets.Job, opt Options) (CellResult, error) {
	ci := slices.IndexFunc(spec.Clusters, func(cl Cluster) bool { return cl.Name == c.Cluster })
	if ci < 0 {
		return CellResult{}, fmt.Errorf("evaluation: cell %s: no cluster %q in the spec", c.Key(), c.Cluster)
	}
	cluster, err := spec.Clusters[ci].Spec.Build()
	if err != nil {
		return CellResult{}, fmt.Errorf("evaluation: cell %s: cluster %s: %w", c.Key(), c.Cluster, err)
	}
	cluster.Name = c.Cluster
	if cluster.GPUSpeed, err = opt.gpuSpeed(); err != nil {
		return CellResult{}, fmt.Errorf("evaluation: cell %s: %w", c.Key(), err)
	}
	cr, err := runCell(ctx, spec, seed, c, cluster, jobs, opt.newScheduler(spec), opt.Interference)
	if err != nil {
		return CellResult{}, fmt.Errorf("evaluation: cell %s: %w", c.Key(), err)
	}
	return cr, nil
}

// workload finds the accounting of c's workload.
func (r *Report) workload(c Cell) WorkloadInfo {
	for _, w := range r.Workloads {
		if w.Cluster == c.Cluster && w.Workload == c.Workload && w.Seed == c.Seed {
			return w
		}
	}
	return WorkloadInfo{}
}

// prepare fills jobs[*][wi][*] and appends the accounting to rep.
func prepare(ctx context.Context, spec Spec, seed uint64, wi int, w Workload, clusters []*sim.Cluster, jobs [][][][]datasets.Job, rep *Report, log *slog.Logger) error {
	var arrivals []datasets.Arrival
	skip := ""
	if w.Kind == KindGoogle {
		if w.ArrivalsFile == "" {
			skip = "no arrivals table given (interval,start_s,jobs; e.g. Google 2011 submissions per 30 min)"
			// The default presets have no Google arrivals table: an
			// expected skip, said in the tables and claims, not a warning.
			log.Info("workload skipped", "experiment", spec.Experiment, "workload", w.Name, "reason", skip)
		} else {
			var err error
			if arrivals, err = datasets.ReadArrivals(w.ArrivalsFile); err != nil {
				return fmt.Errorf("workload %s: %w", w.Name, err)
			}
		}
	}
	if w.Kind == KindTrace && w.Source != "" && w.JobsFile == "" {
		// A named trace the run did not ingest: said, not replaced by
		// the generator's jobs.
		skip = fmt.Sprintf("trace %s not ingested by this run (datasets.ingest)", w.Source)
		log.Info("workload skipped", "experiment", spec.Experiment, "workload", w.Name, "reason", skip)
	}
	var traceSource string
	for r := 0; r < spec.Seeds; r++ {
		var test []datasets.Job
		var info WorkloadInfo
		if w.Kind == KindTrace && skip == "" {
			// One trace serves every cluster: it is pruned against all.
			raw, src, err := loadTrace(ctx, w, seed, spec.Experiment, r)
			if err != nil {
				return err
			}
			traceSource = src
			if test, info, err = splitTrace(raw, clusters, spec.Sim, w); err != nil {
				return err
			}
			info.Source = traceSource
		}
		for ci, c := range clusters {
			switch {
			case skip != "":
				rep.Workloads = append(rep.Workloads, WorkloadInfo{Cluster: c.Name, Workload: w.Name, Seed: r, Skipped: skip})
				continue
			case w.Kind == KindTrace:
				jobs[ci][wi][r] = scaleArrivals(test, w.ArrivalRate)
				info.Cluster, info.Seed = c.Name, r
				rep.Workloads = append(rep.Workloads, info)
			default:
				jpp := w.JobsPerPod
				if jpp == 0 {
					jpp = MARLPaperLoad(c)
				}
				mw := datasets.MARLWorkload{Kind: w.Kind, Pods: max(c.Pods, 1), JobsPerPod: jpp, Intervals: w.Intervals, IntervalS: spec.Sim.IntervalS, Arrivals: arrivals, Shape: w.Shape}
				rng := pipeline.Rand(seed, StreamEval, pipeline.Key(spec.Experiment), keyWorkload, pipeline.Key(w.Name), pipeline.Key(c.Name), pipeline.Index(r))
				js, err := datasets.GenerateMARL(mw, rng)
				if err != nil {
					return fmt.Errorf("workload %s on %s: %w", w.Name, c.Name, err)
				}
				if len(js) == 0 {
					return fmt.Errorf("workload %s on %s: no jobs drawn", w.Name, c.Name)
				}
				jobs[ci][wi][r] = js
				src := "synthetic-marl-" + w.Kind
				if w.Kind == KindGoogle {
					// By base name: where the run lives changes no output byte.
					src += ":" + filepath.Base(w.ArrivalsFile)
				}
				rep.Workloads = append(rep.Workloads, WorkloadInfo{Cluster: c.Name, Workload: w.Name, Seed: r, Source: src, Read: len(js), Test: len(js)})
			}
		}
	}
	return nil
}

// Streams of the evaluation: every cell's workload and scheduler draw
// from StreamEval under the cell's key, the tables' bootstrap intervals
// from StreamCI.
const (
	StreamEval pipeline.Stream = "eval"
	StreamCI   pipeline.Stream = "ci"
)

// The fixed key parts under StreamEval: a cell's generated workload, a
// replicate's number (a cell's scheduler key with a replicate > 0) and
// the column's socket draws.
const (
	keyWorkload  pipeline.Key = "workload"
	keyReplicate pipeline.Key = "replicate"
	keySocket    pipeline.Key = "socket"
)

// runCell simulates one cell. The scheduler's seed is derived from the
// run seed and the cell key (with its replicate), so a randomised scheduler draws the same
// stream in the cell whichever goroutine runs it.
func runCell(ctx context.Context, spec Spec, seed uint64, c Cell, cluster *sim.Cluster, jobs []datasets.Job, newSched func(Cell, uint64) (sim.Scheduler, error), model sim.Interference) (CellResult, error) {
	key := []pipeline.Key{pipeline.Key(c.Experiment), pipeline.Key(c.Cluster), pipeline.Key(c.Workload), pipeline.Key(c.Scheduler), pipeline.Index(c.Seed)}
	if c.Replicate > 0 {
		// Replicate 0 keeps the key it had before replicates existed, so
		// that a run with one model per scheduler is unchanged.
		key = append(key, keyReplicate, pipeline.Index(c.Replicate))
	}
	s1, _ := pipeline.Seed(seed, StreamEval, key...)
	sched, err := newSched(c, s1)
	if err != nil {
		return CellResult{}, err
	}
	cfg := spec.Sim
	if info, ok := schedulers.Lookup(string(c.Scheduler)); ok && info.Trigger != "" {
		// A policy defined with its own trigger (Tiresias' at every
		// arrival and completion) runs with it, whatever the experiment's:
		// preemptive rows sit beside the others with nothing set by hand.
		cfg.Trigger = info.Trigger
	}
	if wi := slices.IndexFunc(spec.Workloads, func(w Workload) bool { return w.Name == c.Workload }); wi >= 0 && spec.Workloads[wi].RestartS > 0 {
		cfg.RestartS = sim.RestartFixed(spec.Workloads[wi].RestartS)
	}
	if cfg.Socket == sim.SocketRandom {
		// The column's stream: every scheduler of a (cluster, workload,
		// seed) draws from the same one.
		cfg.SocketSeed, _ = pipeline.Seed(seed, StreamEval, pipeline.Key(c.Experiment), pipeline.Key(c.Cluster), pipeline.Key(c.Workload), pipeline.Index(c.Seed), keySocket)
	}
	res, err := sim.Run(ctx, cluster, jobs, sched, cfg, model)
	// A scheduler that holds a process (an external policy) ends it.
	if cl, ok := sched.(io.Closer); ok {
		err = errors.Join(err, cl.Close())
	}
	if err != nil {
		return CellResult{}, err
	}
	return CellResult{Cell: c, Jobs: res.Jobs, Metrics: res.Metrics, Decisions: res.Decisions, Timing: res.Timing}, nil
}
