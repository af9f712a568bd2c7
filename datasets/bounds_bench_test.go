package datasets

import (
	"context"
	"math/rand/v2"
	"testing"
)

// BenchmarkCheckJobsTable is the bounds check ReadParquet adds to a read
// of a 100 000-job table (BenchmarkReadParquetJobs holds both).
func BenchmarkCheckJobsTable(b *testing.B) {
	jobs, err := GeneratePAILikeJobs(context.Background(), PAILikeConfig{Jobs: 100_000}, rand.New(rand.NewPCG(16, 6)))
	if err != nil {
		b.Fatal(err)
	}
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
