package datasets

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// benchJobs is the 100 000-job PAI-like table the read benchmarks use.
func benchJobs(b *testing.B) []Job {
	b.Helper()
	jobs, err := GeneratePAILikeJobs(context.Background(), PAILikeConfig{Jobs: 100_000}, rand.New(rand.NewPCG(16, 6)))
	if err != nil {
		b.Fatal(err)
	}
	return jobs
}

// BenchmarkReadParquetJobs reads a 100 000-job table as eval --jobs and
// train --jobs do: the schema check, the null scan (nothing to scan in a
// file schedlab wrote) and the guarded open are inside the timing.
func BenchmarkReadParquetJobs(b *testing.B) {
	jobs := benchJobs(b)
	path := filepath.Join(b.TempDir(), "jobs.parquet")
	if err := WriteParquet(path, FileMeta{Source: "bench"}, jobs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := ReadParquet[Job](path)
		if err != nil || len(got) != len(jobs) {
			b.Fatalf("%d jobs, %v", len(got), err)
		}
	}
}

// BenchmarkCheckJobsTable is the bounds check ReadParquet adds to a read
// of a 100 000-job table (BenchmarkReadParquetJobs holds both).
func BenchmarkCheckJobsTable(b *testing.B) {
	jobs := benchJobs(b)
	for b.Loop() {
		c := newTableCheck[Job]()
		if err := c.check("jobs.parquet", jobs, 0); err != nil {
			b.Fatal(err)
		}
		if err := c.done(); err != nil {
			b.Fatal(err)
		}
	}
}
