package rundiff

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path"
	"slices"

	"github.com/schedlab/schedlab/evaluation"
)

// CellKey names a cell of an experiment; its seeds, and a learned row's
// trained models (the replicate column, train.seeds), are its replicates.
type CellKey struct {
	Experiment, Cluster, Workload, Scheduler string
}

func (k CellKey) String() string { return k.Cluster + " / " + k.Workload + " / " + k.Scheduler }

func compareKeys(a, b CellKey) int {
	return cmp.Or(cmp.Compare(a.Experiment, b.Experiment), cmp.Compare(a.Cluster, b.Cluster),
		cmp.Compare(a.Workload, b.Workload), cmp.Compare(a.Scheduler, b.Scheduler))
}

// Method is how a metric's difference was tested.
type Method string

const (
	// MethodPaired: Wilcoxon signed-rank test on per-job values of the
	// jobs both runs replayed.
	MethodPaired Method = "paired Wilcoxon"
	// MethodSeeds: Welch t test on per-seed values, with its interval.
	MethodSeeds Method = "between seeds"
	// MethodSingle: one seed on a side and no matching jobs (or no
	// per-job value): nothing to test against.
	MethodSingle Method = "single sample"
)

// MetricDiff is one metric of a cell: the mean over seeds in each run.
type MetricDiff struct {
	Metric string // the metrics.parquet column
	A, B   float64
	// Delta is B − A; Rel is Delta/|A| (±Inf when A is 0).
	Delta, Rel float64
	Method     Method
	// N is the number of pairs tested (paired: those with a non-zero
	// difference) or of seeds in A plus B (between seeds).
	N int
	// P is the test's two-sided p-value and PAdj its Holm adjustment;
	// both NaN for a single sample.
	P, PAdj float64
	// Lo and Hi bound Delta's (1−Alpha) confidence interval between
	// seeds; NaN otherwise.
	Lo, Hi float64
	// Significant: tested, with PAdj below Alpha and |Rel| at least
	// MinDelta; or, unless Options.AllowUntested, a per-job metric of a
	// single-sample cell with |Rel| at least MinDelta.
	Significant bool

	perJob bool // the metric is the mean of a per-job value
	// void: the test's data hold no difference at all (every pair equal,
	// or one value in every seed of both runs), so it cannot reject at
	// any level; it stays out of Holm's count (Tarone's argument), which
	// would otherwise grow with every constant column.
	void bool
}

// Tested says whether the metric had a test.
func (m MetricDiff) Tested() bool { return m.Method != MethodSingle }

// CellDiff is one cell of an experiment in the two runs.
type CellDiff struct {
	Key CellKey
	// InA and InB say which runs have the cell.
	InA, InB       bool
	SeedsA, SeedsB int
	// Paired is the number of jobs matched between the runs (same seed,
	// job id, submit time, duration and GPUs) out of JobsA and JobsB.
	Paired, JobsA, JobsB int
	// ConstantSeeds: several seeds a side, but each gave the same value
	// of a metric that differs between the runs: the seeds are not
	// replicates of this cell, and that metric counts as a single sample.
	ConstantSeeds bool
	Metrics       []MetricDiff
}

// Significant: in one run only, or a metric differs beyond the thresholds
// (MetricDiff.Significant).
func (c CellDiff) Significant() bool {
	if !c.InA || !c.InB {
		return true
	}
	return slices.ContainsFunc(c.Metrics, func(m MetricDiff) bool { return m.Significant })
}

// Identical: in both runs with every metric equal.
func (c CellDiff) Identical() bool {
	return c.InA && c.InB && !slices.ContainsFunc(c.Metrics, func(m MetricDiff) bool { return m.Delta != 0 })
}

// metric is a column of metrics.parquet, with the results.parquet column
// it is the mean of, where there is one (quantiles, makespan and
// utilisation have no per-job value and are tested between seeds only).
type metric struct {
	name string
	cell func(*evaluation.MetricsRow) float64
	job  func(*evaluation.ResultRow) float64
}

var metrics = []metric{
	{"mean_jct_s", func(r *evaluation.MetricsRow) float64 { return r.MeanJCTS }, func(r *evaluation.ResultRow) float64 { return r.JCTS }},
	{"p50_jct_s", func(r *evaluation.MetricsRow) float64 { return r.P50JCTS }, nil},
	{"p95_jct_s", func(r *evaluation.MetricsRow) float64 { return r.P95JCTS }, nil},
	{"mean_fee_usd", func(r *evaluation.MetricsRow) float64 { return r.MeanFeeUSD }, func(r *evaluation.ResultRow) float64 { return r.FeeUSD }},
	{"mean_queue_s", func(r *evaluation.MetricsRow) float64 { return r.MeanQueueS }, func(r *evaluation.ResultRow) float64 { return r.QueueS }},
	{"mean_slowdown", func(r *evaluation.MetricsRow) float64 { return r.MeanSlowdown }, func(r *evaluation.ResultRow) float64 { return r.Slowdown }},
	{"makespan_s", func(r *evaluation.MetricsRow) float64 { return r.MakespanS }, nil},
	{"gpu_util", func(r *evaluation.MetricsRow) float64 { return r.GPUUtil }, nil},
	{"jobs", func(r *evaluation.MetricsRow) float64 { return float64(r.Jobs) }, nil},
	{"pruned", func(r *evaluation.MetricsRow) float64 { return float64(r.Pruned) }, nil},
}

// cellData is one cell of one run: its metrics rows (one per seed and
// replicate) and its jobs keyed by seed, replicate and job id.
type cellData struct {
	rows []evaluation.MetricsRow
	jobs map[jobKey]*evaluation.ResultRow
}

// jobKey is a job of a cell's replicate: its seed, its trained model
// (replicate: 0 for heuristics and for runs before train.seeds) and id.
// Replicate r of a run pairs with replicate r of the other.
type jobKey struct {
	seed, replicate int32
	id              string
}

// readExperiment reads an experiment's metrics and, when the run has
// them, its results, grouped by cell.
func readExperiment(r *run, id string) (map[CellKey]*cellData, error) {
	cells := map[CellKey]*cellData{}
	if _, ok := r.artifacts[path.Join("eval", id, "metrics.parquet")]; !ok {
		return cells, nil
	}
	get := func(e, c, w, s string) *cellData {
		k := CellKey{e, c, w, s}
		if cells[k] == nil {
			cells[k] = &cellData{jobs: map[jobKey]*evaluation.ResultRow{}}
		}
		return cells[k]
	}
	p, err := r.path(path.Join("eval", id, "metrics.parquet"))
	if err != nil {
		return nil, err
	}
	rows, err := evaluation.ReadMetrics(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for _, m := range rows {
		c := get(id, m.Cluster, m.Workload, m.Scheduler)
		c.rows = append(c.rows, m)
	}
	name := path.Join("eval", id, "results.parquet")
	if _, ok := r.artifacts[name]; !ok {
		return cells, nil
	}
	if p, err = r.path(name); err != nil {
		return nil, err
	}
	res, err := evaluation.ReadResults(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for i := range res {
		j := &res[i]
		c := get(id, j.Cluster, j.Workload, j.Scheduler)
		c.jobs[jobKey{j.Seed, j.Replicate, j.JobID}] = j
	}
	return cells, nil
}

func (d *Diff) compareCells(ctx context.Context, a, b *run) error {
	ids := append(a.experiments(), b.experiments()...)
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		if err := ctx.Err(); err != nil {
			return err
		}
		ca, err := readExperiment(a, id)
		if err != nil {
			return err
		}
		cb, err := readExperiment(b, id)
		if err != nil {
			return err
		}
		keys := map[CellKey]bool{}
		for k := range ca {
			keys[k] = true
		}
		for k := range cb {
			keys[k] = true
		}
		var cells []CellDiff
		for k := range keys {
			c, err := compareCell(k, ca[k], cb[k], d.Thresholds.Alpha)
			if err != nil {
				return err
			}
			cells = append(cells, c)
		}
		slices.SortFunc(cells, func(x, y CellDiff) int { return compareKeys(x.Key, y.Key) })
		d.Cells = append(d.Cells, cells...)
	}
	d.judge()
	return nil
}

// compareCell compares one cell; a or b is nil when that run lacks it.
func compareCell(k CellKey, a, b *cellData, alpha float64) (CellDiff, error) {
	c := CellDiff{Key: k, InA: a != nil && len(a.rows) > 0, InB: b != nil && len(b.rows) > 0}
	if !c.InA || !c.InB {
		return c, nil
	}
	c.SeedsA, c.SeedsB = len(a.rows), len(b.rows)
	c.JobsA, c.JobsB = len(a.jobs), len(b.jobs)
	var pairs []jobKey
	for jk, ja := range a.jobs {
		if jb, ok := b.jobs[jk]; ok && ja.SubmitS == jb.SubmitS && ja.DurationS == jb.DurationS && ja.GPUs == jb.GPUs {
			pairs = append(pairs, jk)
		}
	}
	// Pair only when the common jobs are at least half of each side's:
	// then a test on them speaks for the cell; fewer means the runs
	// replayed different workloads (another seed or trace).
	paired := len(pairs) > 0 && 2*len(pairs) >= max(c.JobsA, c.JobsB)
	if paired {
		c.Paired = len(pairs)
		slices.SortFunc(pairs, func(x, y jobKey) int {
			return cmp.Or(cmp.Compare(x.seed, y.seed), cmp.Compare(x.replicate, y.replicate), cmp.Compare(x.id, y.id))
		})
	}
	for _, m := range metrics {
		va, vb := cellValues(a.rows, m), cellValues(b.rows, m)
		md := MetricDiff{Metric: m.name, A: mean(va), B: mean(vb), P: math.NaN(), PAdj: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), perJob: m.job != nil}
		md.Delta, md.Rel = md.B-md.A, relative(md.A, md.B)
		switch {
		case paired && m.job != nil:
			xa, xb := make([]float64, len(pairs)), make([]float64, len(pairs))
			for i, jk := range pairs {
				xa[i], xb[i] = m.job(a.jobs[jk]), m.job(b.jobs[jk])
			}
			w, err := evaluation.WilcoxonSignedRank(xb, xa)
			if err != nil {
				return c, fmt.Errorf("%s %s %s: %w", k.Experiment, k, m.name, err)
			}
			md.Method, md.N, md.P, md.void = MethodPaired, w.N, w.P, w.N == 0
		case len(va) >= 2 && len(vb) >= 2 && constant(va) && constant(vb) && md.Delta != 0:
			// Every seed gave the same value in each run: the seeds vary
			// nothing in this cell, so they are not replicates and the
			// difference has no spread to be weighed against.
			md.Method = MethodSingle
			c.ConstantSeeds = true
		case len(va) >= 2 && len(vb) >= 2:
			md.Method, md.N = MethodSeeds, len(va)+len(vb)
			md.P, md.Lo, md.Hi = welch(va, vb, alpha)
			md.void = md.Delta == 0 && constant(va) && constant(vb)
		default:
			md.Method = MethodSingle
		}
		c.Metrics = append(c.Metrics, md)
	}
	return c, nil
}

func constant(v []float64) bool {
	return !slices.ContainsFunc(v, func(x float64) bool { return x != v[0] })
}

func cellValues(rows []evaluation.MetricsRow, m metric) []float64 {
	v := make([]float64, len(rows))
	for i := range rows {
		v[i] = m.cell(&rows[i])
	}
	return v
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// judge adjusts every p-value over the comparison's tests and marks the
// significant differences.
func (d *Diff) judge() {
	var ps []float64
	var at []*MetricDiff
	for i := range d.Cells {
		for j := range d.Cells[i].Metrics {
			m := &d.Cells[i].Metrics[j]
			switch {
			case m.void:
				m.PAdj = m.P
			case m.Tested():
				ps, at = append(ps, m.P), append(at, m)
			case m.perJob && !d.AllowUntested:
				// A per-job metric untested: the cell is unpaired.
				m.Significant = m.Delta != 0 && math.Abs(m.Rel) >= d.Thresholds.MinDelta
			}
		}
	}
	d.Tests = len(ps)
	for i, p := range holm(ps) {
		m := at[i]
		m.PAdj = p
		m.Significant = p < d.Thresholds.Alpha && math.Abs(m.Rel) >= d.Thresholds.MinDelta
	}
}
