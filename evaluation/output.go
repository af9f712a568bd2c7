package evaluation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
)

// Output files under the run directory (DESIGN.md §7).
const (
	ResultsFile = "eval/results.parquet"
	MetricsFile = "eval/metrics.parquet"
	TimingsFile = "eval/timings.parquet"
)

// ResultRow is one evaluated job of one cell (DESIGN.md §2 results). A
// cell is (experiment, cluster, workload, scheduler, seed, replicate):
// replicate numbers the independently trained models of a learned
// scheduler (train.seeds), 0 for a heuristic and for a single model.
type ResultRow struct {
	Experiment string  `parquet:"experiment"`
	Cluster    string  `parquet:"cluster"`
	Workload   string  `parquet:"workload"`
	Scheduler  string  `parquet:"scheduler"`
	Seed       int32   `parquet:"seed"`
	Replicate  int32   `parquet:"replicate"` // the trained model of a learned row (train.seeds); 0 for heuristics
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
	Replicate    int32   `parquet:"replicate"` // as ResultRow.Replicate
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
	// CPUUtil is core-seconds booked / (cores × makespan): with GPUUtil
	// and MeanQueueS, the cell's operating point.
	CPUUtil float64 `parquet:"cpu_util"`
	// The cell's floor and headroom (Headroom, DESIGN.md §4): the mean
	// JCT no scheduler can beat on the cell's jobs; the best heuristic of
	// its column (same cluster, workload and seed; neither learned nor an
	// oracle) and its mean JCT; (best − floor) / floor; and this row's
	// share of that headroom, (best − mean_jct_s) / (best − floor). NaN
	// (and "") where undefined: no heuristic in the column, no headroom.
	// FloorBound names the bound that gives the floor (sim.Floor.Name:
	// "standalone", "capacity/gpu", "mean-busy/gpu", "packing/cpu", …).
	FloorJCTS         float64 `parquet:"floor_jct_s"`
	FloorBound        string  `parquet:"floor_bound"`
	BestHeuristic     string  `parquet:"best_heuristic"`
	BestHeuristicJCTS float64 `parquet:"best_heuristic_jct_s"`
	Headroom          float64 `parquet:"headroom"`
	Share             float64 `parquet:"headroom_share"`
}

// TimingRow is the wall-clock cost of one cell. It is the only
// non-deterministic output and lives in its own file.
type TimingRow struct {
	Experiment   string  `parquet:"experiment"`
	Cluster      string  `parquet:"cluster"`
	Workload     string  `parquet:"workload"`
	Scheduler    string  `parquet:"scheduler"`
	Seed         int32   `parquet:"seed"`
	Replicate    int32   `parquet:"replicate"` // as ResultRow.Replicate
	WallS        float64 `parquet:"wall_s"`
	DecisionS    float64 `parquet:"decision_s"`
	MaxDecisionS float64 `parquet:"max_decision_s"`
	Decisions    int32   `parquet:"decisions"`
	JobsPlaced   int32   `parquet:"jobs_placed"`
}

// The rows of the three tables are built in one place, fillRow, from the
// cell key and the simulator's own types (sim.JobResult, sim.Metrics,
// sim.Timing): a row's column is filled from the first source with a
// field of the same Go name. The row types stay separate from the sim
// types because they fix the files' columns (order, names and int32
// types) independently of the simulator's structs.

// Results flattens the report into results rows, cell by cell in report
// order, jobs in job order.
func (r *Report) Results() ([]ResultRow, error) {
	var rows []ResultRow
	for i := range r.Cells {
		var err error
		if rows, err = r.Cells[i].appendResults(rows); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// appendResults appends the cell's results rows to rows, jobs in job
// order.
func (c *CellResult) appendResults(rows []ResultRow) ([]ResultRow, error) {
	jobs, err := c.jobs()
	if err != nil {
		return rows, err
	}
	key := c.Cell.key()
	for _, j := range jobs {
		var row ResultRow
		fillRow(&row, &key, &j)
		rows = append(rows, row)
	}
	return rows, nil
}

// writeResults writes Results' rows to path a cell at a time: the same
// bytes, holding one cell's rows (at the paper's scale an experiment has
// millions).
func (r *Report) writeResults(ctx context.Context, path string, meta datasets.FileMeta) error {
	return datasets.WriteParquetRows(path, meta, func(emit func([]ResultRow) error) error {
		var rows []ResultRow
		for i := range r.Cells {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			if rows, err = r.Cells[i].appendResults(rows[:0]); err != nil {
				return err
			}
			if err := emit(rows); err != nil {
				return err
			}
		}
		return nil
	})
}

// Metrics is one row per cell, in report order.
func (r *Report) Metrics() []MetricsRow {
	rows := make([]MetricsRow, len(r.Cells))
	hr := r.headrooms()
	for i, c := range r.Cells {
		key := c.Cell.key()
		fillRow(&rows[i], &key, &c.Metrics, &struct{ Decisions int }{c.Decisions}, &hr[i])
	}
	return rows
}

// Timings is one row per cell, in report order.
func (r *Report) Timings() []TimingRow {
	rows := make([]TimingRow, len(r.Cells))
	for i, c := range r.Cells {
		key := c.Cell.key()
		fillRow(&rows[i], &key, &c.Timing)
	}
	return rows
}

// cellKey holds the key columns every row starts with.
type cellKey struct {
	Experiment, Cluster, Workload, Scheduler string
	Seed, Replicate                          int
}

func (c Cell) key() cellKey {
	return cellKey{c.Experiment, c.Cluster, c.Workload, string(c.Scheduler), c.Seed, c.Replicate}
}

// rowPlan says, for every field of a row type, which source (by position)
// and which field of it fills the row's field.
type rowPlan struct {
	src, field []int
}

var rowPlans sync.Map // key: [row type, source types...] as a string

// fillRow sets every field of *row from the first of srcs (pointers to
// structs) that has a field of the same name, converting between numeric
// types (int to int32). A row field that no source has is a programming
// error and panics, so a column cannot silently stay zero.
func fillRow(row any, srcs ...any) {
	rv := reflect.ValueOf(row).Elem()
	sv := make([]reflect.Value, len(srcs))
	key := rv.Type().String()
	for i, s := range srcs {
		sv[i] = reflect.ValueOf(s).Elem()
		key += "," + sv[i].Type().String()
	}
	p, ok := rowPlans.Load(key)
	if !ok {
		p = planRow(rv.Type(), sv)
		rowPlans.Store(key, p)
	}
	plan := p.(rowPlan)
	for i := range plan.src {
		f := sv[plan.src[i]].Field(plan.field[i])
		rv.Field(i).Set(f.Convert(rv.Field(i).Type()))
	}
}

// sameKind: identical types, or two integer types (int to int32: Go's
// simulator counts in int, the files in INT32).
func sameKind(a, b reflect.Type) bool {
	isInt := func(t reflect.Type) bool { return t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64 }
	return a == b || (isInt(a) && isInt(b))
}

func planRow(rt reflect.Type, srcs []reflect.Value) rowPlan {
	var p rowPlan
	for i := 0; i < rt.NumField(); i++ {
		name, found := rt.Field(i).Name, false
		for si, s := range srcs {
			if f, ok := s.Type().FieldByName(name); ok && len(f.Index) == 1 && sameKind(f.Type, rt.Field(i).Type) {
				p.src, p.field, found = append(p.src, si), append(p.field, f.Index[0]), true
				break
			}
		}
		if !found {
			panic(fmt.Sprintf("evaluation: no source fills %s.%s", rt, name))
		}
	}
	return p
}

// ConfigHash is the hash of what determines the report's content: the
// spec and the run seed (not the worker count). Input files enter by base
// name only, so that where a run directory lives changes no output byte.
func (r *Report) ConfigHash() (string, error) {
	return pipeline.HashJSON(struct {
		Spec Spec
		Seed uint64
	}{r.Spec.WithFiles(filepath.Base), r.Seed})
}

// OutputPaths are the files Report.Write writes, each a path of the file
// system; an empty path is not written.
type OutputPaths struct {
	Results, Metrics, Timings string // Parquet tables (DESIGN.md §2)
	Markdown, CSV, LaTeX      string // the summary table
	SVG, PNG                  string // the plot
	// Failed is the FailedRowsFile, for an experiment with a row that may
	// fail alone; "" for the others.
	Failed string
}

// RunLayout is a run directory's layout of an experiment's files
// (DESIGN.md §7): dir/eval/{results,metrics,timings}.parquet,
// dir/tables/<id>.{md,csv,tex} and dir/plots/<id>.{svg,png}.
func RunLayout(dir, id string) OutputPaths {
	j := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	return OutputPaths{
		Results: j(ResultsFile), Metrics: j(MetricsFile), Timings: j(TimingsFile),
		Markdown: j("tables/" + id + ".md"), CSV: j("tables/" + id + ".csv"), LaTeX: j("tables/" + id + ".tex"),
		SVG: j("plots/" + id + ".svg"), PNG: j("plots/" + id + ".png"),
	}
}

// List is the non-empty paths in the order Write writes them.
func (p OutputPaths) List() []string {
	var out []string
	for _, f := range []string{p.Results, p.Metrics, p.Timings, p.Markdown, p.CSV, p.LaTeX, p.SVG, p.PNG, p.Failed} {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Write writes the report to the given paths, creating their directories:
// the three Parquet tables of DESIGN.md §2, the summary table as Markdown,
// CSV and LaTeX, the plot as SVG and PNG, and the failed rows. Every file but the timings
// depends only on the report's content; each appears atomically.
func (r *Report) Write(ctx context.Context, to OutputPaths) error {
	hash, err := r.ConfigHash()
	if err != nil {
		return err
	}
	meta := datasets.FileMeta{Source: "eval:" + r.Spec.Experiment, ConfigHash: hash}
	for _, p := range to.List() {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		path  string
		write func(string) error
	}{
		{to.Results, func(p string) error { return r.writeResults(ctx, p, meta) }},
		{to.Metrics, func(p string) error { return datasets.WriteParquet(p, meta, r.Metrics()) }},
		{to.Timings, func(p string) error { return datasets.WriteParquet(p, meta, r.Timings()) }},
	} {
		if f.path == "" {
			continue
		}
		if err := f.write(f.path); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	tab := r.Table()
	files := []struct {
		path string
		data []byte
	}{{to.Markdown, tab.Markdown()}, {to.CSV, tab.CSV()}, {to.LaTeX, tab.LaTeX()}}
	if to.SVG != "" || to.PNG != "" {
		svg, png, err := r.Plot()
		if err != nil {
			return fmt.Errorf("plot %s: %w", r.Spec.Experiment, err)
		}
		files = append(files, struct {
			path string
			data []byte
		}{to.SVG, svg}, struct {
			path string
			data []byte
		}{to.PNG, png})
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		if err := pipeline.WriteFileAtomic(f.path, f.data); err != nil {
			return err
		}
	}
	if to.Failed != "" {
		return writeFailedRows(to.Failed, r)
	}
	return nil
}
