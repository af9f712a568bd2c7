package evaluation

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/parquettest"
)

// TestReadLegacyTables: a results or metrics table without the replicate
// column (a run from before train.seeds) reads as replicate 0, with every
// other column as written; a table missing another column still fails,
// naming it.
func TestReadLegacyTables(t *testing.T) {
	// The columns metrics tables gained with cells' floors.
	unfloored := []string{"cpu_util", "floor_jct_s", "floor_bound", "best_heuristic", "best_heuristic_jct_s", "headroom", "headroom_share"}
	dir := t.TempDir()
	res := filepath.Join(dir, "results.parquet")
	met := filepath.Join(dir, "metrics.parquet")
	parquettest.WriteWithout(t, res, []ResultRow{{Experiment: "e", Scheduler: "das", Seed: 2, JobID: "j1", JCTS: 42, Machines: 3}}, "replicate")
	parquettest.WriteWithout(t, met, []MetricsRow{{Experiment: "e", Scheduler: "das", Seed: 2, MeanJCTS: 42, Decisions: 7}}, append([]string{"replicate"}, unfloored...)...)
	r, err := ReadResults(res)
	if err != nil {
		t.Fatal(err)
	}
	if want := (ResultRow{Experiment: "e", Scheduler: "das", Seed: 2, JobID: "j1", JCTS: 42, Machines: 3}); len(r) != 1 || r[0] != want {
		t.Errorf("results %+v, want %+v", r, want)
	}
	m, err := ReadMetrics(met)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || !math.IsNaN(m[0].FloorJCTS) || !math.IsNaN(m[0].Headroom) || !math.IsNaN(m[0].Share) || !math.IsNaN(m[0].BestHeuristicJCTS) || !math.IsNaN(m[0].CPUUtil) {
		t.Fatalf("metrics %+v: want the floor and headroom columns NaN (unknown)", m)
	}
	m[0].FloorJCTS, m[0].Headroom, m[0].Share, m[0].BestHeuristicJCTS, m[0].CPUUtil = 0, 0, 0, 0, 0
	if want := (MetricsRow{Experiment: "e", Scheduler: "das", Seed: 2, MeanJCTS: 42, Decisions: 7}); m[0] != want {
		t.Errorf("metrics %+v, want %+v", m, want)
	}
	// A table with the replicate column but no floor (written between
	// the two) reads as well.
	mid := filepath.Join(dir, "unfloored.parquet")
	parquettest.WriteWithout(t, mid, []MetricsRow{{Scheduler: "lif", Replicate: 1, MeanJCTS: 5}}, unfloored...)
	if m, err := ReadMetrics(mid); err != nil || len(m) != 1 || m[0].Replicate != 1 || m[0].MeanJCTS != 5 || !math.IsNaN(m[0].FloorJCTS) {
		t.Errorf("table without the floor: %+v, %v", m, err)
	}
	// A table with the floor but not the bound's name (written before
	// floor_bound) reads with the name "" (unknown), the rest as written.
	unnamed := filepath.Join(dir, "unnamed.parquet")
	parquettest.WriteWithout(t, unnamed, []MetricsRow{{Scheduler: "lif", FloorJCTS: 3, MeanJCTS: 5}}, "floor_bound")
	if m, err := ReadMetrics(unnamed); err != nil || len(m) != 1 || m[0].FloorJCTS != 3 || m[0].FloorBound != "" {
		t.Errorf("table without floor_bound: %+v, %v", m, err)
	}
	// Today's layout reads as written.
	cur := filepath.Join(dir, "current.parquet")
	if err := datasets.WriteParquet(cur, datasets.FileMeta{Source: "t"}, []MetricsRow{{Scheduler: "das", Replicate: 2}}); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadMetrics(cur); err != nil || len(m) != 1 || m[0].Replicate != 2 {
		t.Errorf("current table: %+v, %v", m, err)
	}
	// A metrics table is not a results table: the error names a column.
	if _, err := ReadResults(met); err == nil || !strings.Contains(err.Error(), "job_id: no such column") {
		t.Errorf("metrics read as results: %v", err)
	}
}
