package datasets

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestInspectTable(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.parquet")
	if err := WriteParquet(jobs, FileMeta{Source: "test"}, sampleJobs()); err != nil {
		t.Fatal(err)
	}
	info, err := InspectTable(jobs)
	if err != nil || info.Kind != KindJobs || info.Rows != 3 || info.Source != "test" || info.SchemaVersion != SchemaVersion {
		t.Fatalf("jobs: %+v %v", info, err)
	}
	arr := filepath.Join(dir, "arrivals.parquet")
	if err := WriteParquet(arr, FileMeta{}, []arrivalRow{{2, 4200, 7}, {0, 600, 1}, {1, 2400, 4}}); err != nil {
		t.Fatal(err)
	}
	if info, err := InspectTable(arr); err != nil || info.Kind != KindArrivals {
		t.Fatalf("arrivals: %+v %v", info, err)
	}
	s, err := DescribeArrivals(arr)
	want := ArrivalsSummary{Intervals: 3, FirstS: 600, LastS: 4200, IntervalS: 1800, Total: 12, Min: 1, Max: 7, Mean: 4, P50: 4, P90: 6.4}
	if err != nil || s != want {
		t.Fatalf("summary %+v, want %+v (%v)", s, want, err)
	}
	q := filepath.Join(dir, "q.parquet")
	if err := WriteParquet(q, FileMeta{}, []Rejected{{Source: "x"}}); err != nil {
		t.Fatal(err)
	}
	if info, err := InspectTable(q); err != nil || info.Kind != "" {
		t.Fatalf("quarantine table: %+v %v", info, err)
	}
	_, err = InspectTable("testdata/elasticflow/cluster01.csv")
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, ErrFormat) {
		t.Fatalf("a CSV: %v", err)
	}
}
