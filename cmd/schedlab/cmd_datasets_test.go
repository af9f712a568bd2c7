package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
)

func TestDatasetsList(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := schedlab(t, nil, "datasets", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, src := range []string{"pai-sim", "elasticflow", "philly-gavel", "alibaba-v2023"} {
		if !strings.Contains(stdout, src+" ") {
			t.Errorf("list lacks %s:\n%s", src, stdout)
		}
	}
}

func TestDatasetsDescribe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, stderr, code := schedlab(t, nil, "ingest", "--source", "elasticflow", "--input", "../../datasets/testdata/elasticflow", "--out", dir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := schedlab(t, nil, "datasets", "describe", filepath.Join(dir, "jobs.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"jobs table, 3 rows", "| jobs | 3 |", "elasticflow (3)", "| p50 duration (s) | 60.0 |", "| (4, 8] | 1 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("describe lacks %q:\n%s", want, stdout)
		}
	}

	type arrival struct {
		Interval int64   `parquet:"interval"`
		StartS   float64 `parquet:"start_s"`
		Jobs     int64   `parquet:"jobs"`
	}
	arr := filepath.Join(dir, "arrivals.parquet")
	if err := datasets.WriteParquet(arr, datasets.FileMeta{Source: "test"}, []arrival{{0, 600, 5}, {1, 2400, 0}, {3, 6000, 10}}); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = schedlab(t, nil, "datasets", "describe", arr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| intervals | 3 |", "| total jobs | 15 |", "| min jobs per interval | 0 |", "| mean jobs per interval | 5.00 |", "| max jobs per interval | 10 |", "| interval numbers missing | 1 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("describe lacks %q:\n%s", want, stdout)
		}
	}

	// Neither jobs nor arrivals: exit 1 naming the file.
	_, stderr, code = schedlab(t, nil, "datasets", "describe", filepath.Join(dir, "quarantine.parquet"))
	if code != 1 || !strings.Contains(stderr, "quarantine.parquet") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, _, code = schedlab(t, nil, "datasets", "describe")
	if code != 2 {
		t.Fatalf("no file: exit %d, want 2", code)
	}
}
