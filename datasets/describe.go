package datasets

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/schedlab/schedlab/internal/stats"
)

// Table kinds TableInfo recognises.
const (
	KindJobs     = "jobs"
	KindArrivals = "arrivals"
)

// TableInfo is what a Parquet file's footer says about it.
type TableInfo struct {
	Path          string
	Kind          string // KindJobs, KindArrivals, or "" for any other table
	Rows          int64
	Source        string // schedlab.source metadata, "" if absent
	SchemaVersion string // schedlab.schema_version metadata, "" if absent
	Columns       []string
}

// InspectTable reads the footer of a Parquet file and tells a canonical jobs
// or arrivals table by its top-level columns (all of the canonical ones
// present; extra columns are allowed). A table so told must then match
// its schema in full (see ReadParquet); a mismatch is an error naming the
// column.
func InspectTable(path string) (info TableInfo, err error) {
	if dir, ok := IsDataset(path); ok {
		// A partitioned dataset: its first partition's footer, all
		// partitions' rows.
		ds, err := ReadDatasetRecord(dir)
		if err != nil {
			return TableInfo{}, err
		}
		if len(ds.Partitions) == 0 {
			return TableInfo{}, fmt.Errorf("dataset %s: no partitions", dir)
		}
		info, err := InspectTable(filepath.Join(dir, filepath.FromSlash(ds.Partitions[0].Files[0].File)))
		if err != nil {
			return TableInfo{}, err
		}
		info.Path, info.Rows = path, 0
		for _, p := range ds.Partitions {
			info.Rows += p.Files[0].Rows
		}
		return info, nil
	}
	f, pf, err := openParquet(path)
	if err != nil {
		return TableInfo{}, err
	}
	defer f.Close()
	defer recoverCorrupt(path, &err)
	info = TableInfo{Path: path, Rows: pf.NumRows()}
	info.Source, _ = pf.Lookup(MetaSource)
	info.SchemaVersion, _ = pf.Lookup(MetaSchemaVersion)
	have := map[string]bool{}
	for _, fl := range pf.Schema().Fields() {
		info.Columns = append(info.Columns, fl.Name())
		have[fl.Name()] = true
	}
	all := func(cols ...string) bool {
		for _, c := range cols {
			if !have[c] {
				return false
			}
		}
		return true
	}
	var want parquet.Node
	switch {
	case all("job_id", "submit_s", "duration_s", "tasks"):
		info.Kind, want = KindJobs, parquet.SchemaOf(new(Job))
	case all("interval", "start_s", "jobs"):
		info.Kind, want = KindArrivals, parquet.SchemaOf(new(arrivalRow))
	default:
		return info, nil
	}
	// A table that looks like one of ours must be one, nested columns and
	// types included, before anything is said about it.
	if _, err := checkParquetSchema(path, want, pf); err != nil {
		return TableInfo{}, err
	}
	return info, nil
}

// arrivalRow is the part of the arrivals table (DESIGN.md §2) that
// SummariseArrivals needs.
type arrivalRow struct {
	Interval int64   `parquet:"interval"`
	StartS   float64 `parquet:"start_s"`
	Jobs     int64   `parquet:"jobs"`
}

// ArrivalsSummary is the statistical summary of an arrivals table.
type ArrivalsSummary struct {
	Intervals          int
	FirstS, LastS      float64 // start of the first and of the last interval
	IntervalS          float64 // median gap between consecutive interval starts
	Total              int64
	Min, Max           int64
	Mean               float64
	P50, P90           float64 // jobs per interval
	EmptyIntervals     int
	MissingIntervalIDs int64 // gaps in the interval numbering
}

// DescribeArrivals reads an arrivals table and summarises it.
func DescribeArrivals(path string) (ArrivalsSummary, error) {
	rows, err := ReadParquet[arrivalRow](path)
	if err != nil {
		return ArrivalsSummary{}, err
	}
	return summariseArrivals(rows), nil
}

// summariseArrivals computes the summary of arrivals rows (in any order).
func summariseArrivals(rows []arrivalRow) ArrivalsSummary {
	var s ArrivalsSummary
	if len(rows) == 0 {
		return s
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Interval < rows[j].Interval })
	s.Intervals = len(rows)
	s.FirstS, s.LastS = rows[0].StartS, rows[len(rows)-1].StartS
	s.Min, s.Max = math.MaxInt64, math.MinInt64
	counts := make([]float64, len(rows))
	var gaps []float64
	for i, r := range rows {
		s.Total += r.Jobs
		s.Min, s.Max = min(s.Min, r.Jobs), max(s.Max, r.Jobs)
		counts[i] = float64(r.Jobs)
		if r.Jobs == 0 {
			s.EmptyIntervals++
		}
		if i > 0 {
			gaps = append(gaps, r.StartS-rows[i-1].StartS)
			if d := r.Interval - rows[i-1].Interval; d > 1 {
				s.MissingIntervalIDs += d - 1
			}
		}
	}
	s.Mean = float64(s.Total) / float64(len(rows))
	sort.Float64s(counts)
	s.P50, s.P90 = stats.Quantile(counts, 0.5), stats.Quantile(counts, 0.9)
	if len(gaps) > 0 {
		sort.Float64s(gaps)
		s.IntervalS = stats.Quantile(gaps, 0.5)
	}
	return s
}

// Markdown renders the summary as a Markdown table.
func (s ArrivalsSummary) Markdown() string {
	var b strings.Builder
	b.WriteString("# Arrivals summary\n\n")
	if s.Intervals == 0 {
		b.WriteString("No intervals.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "| quantity | value |\n|---|---|\n")
	fmt.Fprintf(&b, "| intervals | %d |\n", s.Intervals)
	fmt.Fprintf(&b, "| interval length (s, median gap) | %.1f |\n", s.IntervalS)
	fmt.Fprintf(&b, "| span of interval starts (h) | %.3f |\n", (s.LastS-s.FirstS)/3600)
	fmt.Fprintf(&b, "| total jobs | %d |\n", s.Total)
	fmt.Fprintf(&b, "| min jobs per interval | %d |\n", s.Min)
	fmt.Fprintf(&b, "| mean jobs per interval | %.2f |\n", s.Mean)
	fmt.Fprintf(&b, "| p50 jobs per interval | %.1f |\n", s.P50)
	fmt.Fprintf(&b, "| p90 jobs per interval | %.1f |\n", s.P90)
	fmt.Fprintf(&b, "| max jobs per interval | %d |\n", s.Max)
	fmt.Fprintf(&b, "| empty intervals | %d |\n", s.EmptyIntervals)
	fmt.Fprintf(&b, "| interval numbers missing | %d |\n", s.MissingIntervalIDs)
	return b.String()
}
