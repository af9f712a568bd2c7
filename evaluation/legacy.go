package evaluation

import (
	"math"

	"github.com/schedlab/schedlab/datasets"
)

// Runs written before the replicate column existed (train.seeds) have
// results and metrics tables without it; every cell of such a run is
// replicate 0. Metrics written before cells had a floor lack the CPU
// utilisation, floor and headroom columns; they read as NaN (and no best
// heuristic): unknown, not zero. Metrics written before the floor named
// its bound lack floor_bound, which reads as "" (unknown). ReadResults and ReadMetrics read every
// layout, so that `schedlab diff` and the history compare a run with an
// older one.

// ReadResults reads a results table (ResultsFile, or an experiment's
// eval/<id>/results.parquet), also one written before the replicate
// column existed (every row replicate 0).
func ReadResults(path string) ([]ResultRow, error) {
	return datasets.ReadParquetDefaults(path, datasets.Defaults[ResultRow]{"replicate": func(*ResultRow) {}})
}

// ReadMetrics reads a metrics table as ReadResults reads a results table,
// also one written before the CPU utilisation, floor and headroom columns
// existed (those read as NaN).
func ReadMetrics(path string) ([]MetricsRow, error) {
	return datasets.ReadParquetDefaults(path, metricsDefaults)
}

// metricsDefaults are the metrics columns older runs lack.
var metricsDefaults = func() datasets.Defaults[MetricsRow] {
	unknown := HeadroomOf(math.NaN(), "", 0, 0)
	d := datasets.Defaults[MetricsRow]{
		"replicate": func(*MetricsRow) {},
		"cpu_util":  func(r *MetricsRow) { r.CPUUtil = math.NaN() },
		// The bound's name reads as "", unknown, like a cell without a
		// floor's.
		"floor_bound": func(*MetricsRow) {},
	}
	for _, c := range []struct {
		name string
		set  func(*MetricsRow)
	}{
		{"floor_jct_s", func(r *MetricsRow) { r.FloorJCTS = unknown.FloorJCTS }},
		{"best_heuristic", func(r *MetricsRow) { r.BestHeuristic = unknown.BestHeuristic }},
		{"best_heuristic_jct_s", func(r *MetricsRow) { r.BestHeuristicJCTS = unknown.BestHeuristicJCTS }},
		{"headroom", func(r *MetricsRow) { r.Headroom = unknown.Headroom }},
		{"headroom_share", func(r *MetricsRow) { r.Share = unknown.Share }},
	} {
		d[c.name] = c.set
	}
	return d
}()
