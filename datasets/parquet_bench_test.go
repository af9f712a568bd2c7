package datasets

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// BenchmarkReadParquetJobs reads a 100 000-job table as eval --jobs and
// train --jobs do: the schema check, the null scan (nothing to scan in a
// file schedlab wrote) and the guarded open are inside the timing.
func BenchmarkReadParquetJobs(b *testing.B) {
	jobs, err := GeneratePAILikeJobs(context.Background(), PAILikeConfig{Jobs: 100_000}, rand.New(rand.NewPCG(16, 6)))
	if err != nil {
		b.Fatal(err)
	}
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
