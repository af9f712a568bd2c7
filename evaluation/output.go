package evaluation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
)

// Output files under the run directory (DESIGN.md §7).
const (
	ResultsFile = "eval/results.parquet"
	MetricsFile = "eval/metrics.parquet"
	TimingsFile = "eval/timings.parquet"
)

// ResultRow is one evaluated job of one cell (DESIGN.md §2 results).
type ResultRow struct {
	Experiment string  `parquet:"experiment"`
	Cluster    string  `parquet:"cluster"`
	Workload   string  `parquet:"workload"`
	Scheduler  string  `parquet:"scheduler"`
	Seed       int32   `parquet:"seed"`
	JobID      string  `parquet:"job_id"`
	SubmitS    float64 `parquet:"submit_s"`
	StartS     float64 `parquet:"start_s"`
	FinishS    float64 `parquet:"finish_s"`
	JCTS       float64 `parquet:"jct_s"`
	FeeUSD     float64 `parquet:"fee_usd"`
	QueueS     float64 `parquet:"queue_s"`
	RunS       float64 `parquet:"run_s"`
	DurationS  float64 `parquet:"duration_s"`
	Slowdown   float64 `parquet:"slowdown"`
	GPUs       float64 `parquet:"gpus"`
	Machines   int32   `parquet:"machines"`
}

// MetricsRow summarises one cell (DESIGN.md §2 metrics).
type MetricsRow struct {
	Experiment   string  `parquet:"experiment"`
	Cluster      string  `parquet:"cluster"`
	Workload     string  `parquet:"workload"`
	Scheduler    string  `parquet:"scheduler"`
	Seed         int32   `parquet:"seed"`
	Jobs         int32   `parquet:"jobs"`
	Pruned       int32   `parquet:"pruned"`
	MeanJCTS     float64 `parquet:"mean_jct_s"`
	P50JCTS      float64 `parquet:"p50_jct_s"`
	P95JCTS      float64 `parquet:"p95_jct_s"`
	MeanFeeUSD   float64 `parquet:"mean_fee_usd"`
	MeanQueueS   float64 `parquet:"mean_queue_s"`
	MeanSlowdown float64 `parquet:"mean_slowdown"`
	MakespanS    float64 `parquet:"makespan_s"`
	GPUUtil      float64 `parquet:"gpu_util"`
	Decisions    int32   `parquet:"decisions"`
}

// TimingRow is the wall-clock cost of one cell. It is the only
// non-deterministic output and lives in its own file.
type TimingRow struct {
	Experiment   string  `parquet:"experiment"`
	Cluster      string  `parquet:"cluster"`
	Workload     string  `parquet:"workload"`
	Scheduler    string  `parquet:"scheduler"`
	Seed         int32   `parquet:"seed"`
	WallS        float64 `parquet:"wall_s"`
	DecisionS    float64 `parquet:"decision_s"`
	MaxDecisionS float64 `parquet:"max_decision_s"`
	Decisions    int32   `parquet:"decisions"`
	JobsPlaced   int32   `parquet:"jobs_placed"`
}

// Results flattens the report into results rows, cell by cell in report
// order, jobs in job order.
func (r *Report) Results() []ResultRow {
	var n int
	for _, c := range r.Cells {
		n += len(c.Jobs)
	}
	rows := make([]ResultRow, 0, n)
	for _, c := range r.Cells {
		for _, j := range c.Jobs {
			rows = append(rows, ResultRow{
				Experiment: c.Cell.Experiment, Cluster: c.Cell.Cluster, Workload: c.Cell.Workload, Scheduler: c.Cell.Scheduler, Seed: int32(c.Cell.Seed),
				JobID: j.JobID, SubmitS: j.SubmitS, StartS: j.StartS, FinishS: j.FinishS, JCTS: j.JCTS, FeeUSD: j.FeeUSD,
				QueueS: j.QueueS, RunS: j.RunS, DurationS: j.DurationS, Slowdown: j.Slowdown, GPUs: j.GPUs, Machines: int32(j.Machines),
			})
		}
	}
	return rows
}

// Metrics is one row per cell, in report order.
func (r *Report) Metrics() []MetricsRow {
	rows := make([]MetricsRow, len(r.Cells))
	for i, c := range r.Cells {
		m := c.Metrics
		rows[i] = MetricsRow{
			Experiment: c.Cell.Experiment, Cluster: c.Cell.Cluster, Workload: c.Cell.Workload, Scheduler: c.Cell.Scheduler, Seed: int32(c.Cell.Seed),
			Jobs: int32(m.Jobs), Pruned: int32(m.Pruned), MeanJCTS: m.MeanJCTS, P50JCTS: m.P50JCTS, P95JCTS: m.P95JCTS,
			MeanFeeUSD: m.MeanFeeUSD, MeanQueueS: m.MeanQueueS, MeanSlowdown: m.MeanSlowdown, MakespanS: m.MakespanS, GPUUtil: m.GPUUtil,
			Decisions: int32(c.Decisions),
		}
	}
	return rows
}

// Timings is one row per cell, in report order.
func (r *Report) Timings() []TimingRow {
	rows := make([]TimingRow, len(r.Cells))
	for i, c := range r.Cells {
		t := c.Timing
		rows[i] = TimingRow{
			Experiment: c.Cell.Experiment, Cluster: c.Cell.Cluster, Workload: c.Cell.Workload, Scheduler: c.Cell.Scheduler, Seed: int32(c.Cell.Seed),
			WallS: t.WallS, DecisionS: t.DecisionS, MaxDecisionS: t.MaxDecisionS, Decisions: int32(t.Decisions), JobsPlaced: int32(t.JobsPlaced),
		}
	}
	return rows
}

// ConfigHash is the hash of what determines the report's content: the
// spec and the run seed (not the worker count). Input files enter by base
// name only, so that where a run directory lives changes no output byte.
func (r *Report) ConfigHash() (string, error) {
	spec := r.Spec
	spec.Workloads = slices.Clone(spec.Workloads)
	for i := range spec.Workloads {
		w := &spec.Workloads[i]
		if w.JobsFile != "" {
			w.JobsFile = filepath.Base(w.JobsFile)
		}
		if w.ArrivalsFile != "" {
			w.ArrivalsFile = filepath.Base(w.ArrivalsFile)
		}
	}
	return pipeline.HashJSON(struct {
		Spec Spec
		Seed uint64
	}{spec, r.Seed})
}

// Write writes the report under dir: the three Parquet tables of
// DESIGN.md §2, tables/<experiment>.{md,csv,tex} and
// plots/<experiment>.{svg,png}. Every file but timings.parquet depends only
// on the report's content; each appears atomically. It returns the paths
// written, relative to dir.
func (r *Report) Write(ctx context.Context, dir string) ([]string, error) {
	hash, err := r.ConfigHash()
	if err != nil {
		return nil, err
	}
	meta := datasets.FileMeta{Source: "eval:" + r.Spec.Experiment, ConfigHash: hash}
	for _, sub := range []string{"eval", "tables", "plots"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	var written []string
	if err := datasets.WriteParquet(filepath.Join(dir, ResultsFile), meta, r.Results()); err != nil {
		return nil, err
	}
	if err := datasets.WriteParquet(filepath.Join(dir, MetricsFile), meta, r.Metrics()); err != nil {
		return nil, err
	}
	if err := datasets.WriteParquet(filepath.Join(dir, TimingsFile), meta, r.Timings()); err != nil {
		return nil, err
	}
	written = append(written, ResultsFile, MetricsFile, TimingsFile)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tab := r.Table()
	base := r.Spec.Experiment
	for _, f := range []struct {
		ext  string
		data []byte
	}{{"md", tab.Markdown()}, {"csv", tab.CSV()}, {"tex", tab.LaTeX()}} {
		rel := filepath.Join("tables", base+"."+f.ext)
		if err := pipeline.WriteFileAtomic(filepath.Join(dir, rel), f.data); err != nil {
			return nil, err
		}
		written = append(written, rel)
	}
	svg, png, err := r.Plot()
	if err != nil {
		return nil, fmt.Errorf("plot %s: %w", base, err)
	}
	for _, f := range []struct {
		ext  string
		data []byte
	}{{"svg", svg}, {"png", png}} {
		rel := filepath.Join("plots", base+"."+f.ext)
		if err := pipeline.WriteFileAtomic(filepath.Join(dir, rel), f.data); err != nil {
			return nil, err
		}
		written = append(written, rel)
	}
	return written, nil
}
