package evaluation

import (
	"errors"
	"math"

	"github.com/schedlab/schedlab/datasets"
)

// Runs written before the replicate column existed (train.seeds) have
// results and metrics tables without it; every cell of such a run is
// replicate 0. ReadResults and ReadMetrics read both, so that `schedlab
// diff` and the history compare a run with an older one.

// legacyResultRow is ResultRow without Replicate.
type legacyResultRow struct {
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

// legacyMetricsRow is MetricsRow without Replicate.
type legacyMetricsRow struct {
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

// ReadResults reads a results table (ResultsFile, or an experiment's
// eval/<id>/results.parquet), also one written before the replicate
// column existed (every row replicate 0).
func ReadResults(path string) ([]ResultRow, error) {
	return readRows[ResultRow, legacyResultRow](path)
}

// unflooredMetricsRow is MetricsRow without the CPU utilisation, floor
// and headroom columns: runs written before cells had a floor. They read
// with those columns NaN (and no best heuristic): unknown, not zero.
type unflooredMetricsRow struct {
	Experiment   string  `parquet:"experiment"`
	Cluster      string  `parquet:"cluster"`
	Workload     string  `parquet:"workload"`
	Scheduler    string  `parquet:"scheduler"`
	Seed         int32   `parquet:"seed"`
	Replicate    int32   `parquet:"replicate"`
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

// ReadMetrics reads a metrics table as ReadResults reads a results table,
// also one written before the CPU utilisation, floor and headroom columns
// existed (those read as NaN).
func ReadMetrics(path string) ([]MetricsRow, error) {
	rows, err := datasets.ReadParquet[MetricsRow](path)
	var ie *datasets.InputError
	if err == nil || !errors.As(err, &ie) || (ie.Field != "cpu_util" && ie.Field != "replicate") {
		return rows, err
	}
	old, err := readRows[unflooredMetricsRow, legacyMetricsRow](path)
	if err != nil {
		return nil, err
	}
	rows = make([]MetricsRow, len(old))
	unknown := HeadroomOf(math.NaN(), "", 0, 0)
	cpu := struct{ CPUUtil float64 }{math.NaN()}
	for i := range old {
		fillRow(&rows[i], &old[i], &unknown, &cpu)
	}
	return rows, nil
}

func readRows[T, L any](path string) ([]T, error) {
	rows, err := datasets.ReadParquet[T](path)
	var ie *datasets.InputError
	if err == nil || !errors.As(err, &ie) || ie.Field != "replicate" {
		return rows, err
	}
	old, lerr := datasets.ReadParquet[L](path)
	if lerr != nil {
		// Not the legacy layout either: its error names a column that is
		// missing from both (the replicate column is not the news).
		return nil, lerr
	}
	rows = make([]T, len(old))
	zero := struct{ Replicate int }{}
	for i := range old {
		fillRow(&rows[i], &old[i], &zero)
	}
	return rows, nil
}
