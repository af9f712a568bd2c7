package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/profiling/profilingtest"
)

// TestFitRefusesSamplesWithoutSlowdown: schedlab fit on a samples table
// without slowdown, or with it all null, used to exit 0 having fitted a
// zero model. It must exit 1 naming the file and the column, and write no
// model.
func TestFitRefusesSamplesWithoutSlowdown(t *testing.T) {
	t.Parallel()
	// The slowdown column missing, and present but null in every row.
	var samples []profiling.Sample
	for i := range 40 {
		co := []profiling.CoRunner{{Socket: "same", Model: "m", CPUCores: float64(1 + i%4), PCIeGbps: float64(i % 7)}}
		samples = append(samples, profiling.Sample{SampleID: "s" + strconv.Itoa(i), Source: "synthetic", CPUCores: float64(1 + i%5), PCIeGbps: float64(i % 9), CoresPerSocket: 8, CoRunners: co, Repetitions: 1})
	}
	missing, nulls, _ := profilingtest.Damaged(samples)
	dir := t.TempDir()
	for name, write := range map[string]func(string) error{
		"null.parquet":    func(p string) error { return datasets.WriteParquet(p, datasets.FileMeta{}, nulls) },
		"missing.parquet": func(p string) error { return datasets.WriteParquet(p, datasets.FileMeta{}, missing) },
	} {
		path := filepath.Join(dir, name)
		if err := write(path); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "fit-"+name)
		_, stderr, code := schedlab(t, nil, "fit", "--samples", path, "--out", out)
		if code != 1 || !strings.Contains(stderr, path) || !strings.Contains(stderr, "slowdown") {
			t.Errorf("%s: exit %d, want 1 naming the file and slowdown: %s", name, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "model.json")); err == nil {
			t.Errorf("%s: a model was written", name)
		}
	}
}

// TestCorruptParquetInputs runs every command that reads a user's Parquet
// file on corrupt files from the fuzz targets' committed corpora. Files
// whose footers made the previous reader panic (exit 2 and a stack trace,
// in parquet-go's ReadPageIndex) damage only the page index, which
// schedlab does not read: they are read, or the command fails on what is
// in them, but nothing panics. Truncated files are refused naming the file.
func TestCorruptParquetInputs(t *testing.T) {
	t.Parallel()
	corpus := func(dir, name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", dir, "testdata", "fuzz", name))
		if err != nil {
			t.Fatal(err)
		}
		// go test fuzz v1\n[]byte("...")\n
		lit := strings.TrimSpace(strings.TrimPrefix(string(b), "go test fuzz v1\n"))
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := filepath.Join(t.TempDir(), filepath.Base(name)+".parquet")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := t.TempDir()
	for _, tc := range []struct {
		dir, target string
		args        func(file string) []string
	}{
		{"datasets", "FuzzDescribe", func(f string) []string { return []string{"datasets", "describe", f} }},
		{"datasets", "FuzzReadJobs", func(f string) []string {
			return []string{"eval", "--experiment", "das-table1", "--jobs", f, "--out", filepath.Join(out, "eval")}
		}},
		{"datasets", "FuzzReadJobs", func(f string) []string {
			return []string{"train", "--family", "das", "--jobs", f, "--out", filepath.Join(out, "train")}
		}},
		{"profiling", "FuzzReadSamples", func(f string) []string {
			return []string{"fit", "--samples", f, "--out", filepath.Join(out, "fit")}
		}},
	} {
		for _, name := range []string{"panic-readpageindex-0", "truncated"} {
			file := corpus(tc.dir, tc.target+"/"+name)
			args := tc.args(file)
			_, stderr, code := schedlab(t, nil, args...)
			// Exit 2 is also a usage error (train reports a bad --jobs so),
			// so a crash is told by its trace.
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic:") || strings.Contains(stderr, "fatal error") {
				t.Errorf("schedlab %s: exit %d, a crash:\n%s", strings.Join(args, " "), code, stderr)
			}
			if name == "truncated" && (code == 0 || !strings.Contains(stderr, file)) {
				t.Errorf("schedlab %s: exit %d, want an error naming the file:\n%s", strings.Join(args, " "), code, stderr)
			}
		}
	}
}
