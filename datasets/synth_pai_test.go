package datasets

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/schedlab/schedlab/pipeline"
)

func generate(t *testing.T, n int, seed uint64) []Job {
	t.Helper()
	ch := make(chan arrow.Record, 64)
	if err := GeneratePAILike(context.Background(), PAILikeConfig{Jobs: n}, pipeline.Rand(seed, "test"), ch); err != nil {
		t.Fatal(err)
	}
	close(ch)
	var jobs []Job
	for rec := range ch {
		var err error
		if jobs, err = JobsFromRecord(jobs, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	return jobs
}

func TestGeneratePAILike(t *testing.T) {
	jobs := generate(t, 5000, 1)
	if len(jobs) != 5000 {
		t.Fatalf("%d jobs", len(jobs))
	}
	again := generate(t, 5000, 1)
	for i := range jobs {
		if jobs[i].JobID != again[i].JobID || jobs[i].SubmitS != again[i].SubmitS || jobs[i].DurationS != again[i].DurationS {
			t.Fatalf("job %d differs between two runs with one seed", i)
		}
	}
	dur := make([]float64, len(jobs))
	single := 0
	for i, j := range jobs {
		if i > 0 && j.SubmitS < jobs[i-1].SubmitS {
			t.Fatalf("job %d submitted before job %d", i, i-1)
		}
		if j.DurationS < 1 || j.TotalGPU() <= 0 || len(j.Tasks) != 1 {
			t.Fatalf("job %+v", j)
		}
		dur[i] = j.DurationS
		if j.Instances() == 1 {
			single++
		}
	}
	sort.Float64s(dur)
	// The PAI subset: median 846 s, 79 % single-instance jobs, mean gap
	// 12.7 s. With 5000 draws the sampling error is a few per cent; the
	// bounds are loose enough for any seed and tight enough to catch a
	// wrong unit or distribution.
	if med := dur[len(dur)/2]; med < 600 || med > 1300 {
		t.Errorf("median duration %v s, PAI subset 846 s", med)
	}
	if f := float64(single) / float64(len(jobs)); math.Abs(f-0.792) > 0.03 {
		t.Errorf("single-instance share %.3f, PAI subset 0.792", f)
	}
	if gap := jobs[len(jobs)-1].SubmitS / float64(len(jobs)); gap < 10 || gap > 16 {
		t.Errorf("mean gap %.1f s, PAI subset 12.7 s", gap)
	}
}

func TestPAILikeValidate(t *testing.T) {
	if err := (PAILikeConfig{Jobs: 0}).Validate(); err == nil {
		t.Fatal("0 jobs accepted")
	}
}
