package datasets

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/schedlab/schedlab/internal/parquettest"
)

func TestElasticFlowFixture(t *testing.T) {
	// The directory holds cluster01.csv, cluster02.csv and a LICENSE that
	// must be skipped; job "abc" is in both clusters.
	got := checkFixture(t, SourceElasticFlow, "testdata/elasticflow", []Job{
		{JobID: "cluster01/abc", Source: SourceElasticFlow, SubmitS: 100, DurationS: 3600, Tasks: []Task{{Role: RoleWorker, Instances: 8, GPU: 1}}},
		{JobID: "cluster01/def", Source: SourceElasticFlow, SubmitS: 150, DurationS: 60, Tasks: []Task{{Role: RoleWorker, Instances: 1, GPU: 1}}},
		{JobID: "cluster02/abc", Source: SourceElasticFlow, SubmitS: 10, DurationS: 5, Tasks: []Task{{Role: RoleWorker, Instances: 2, GPU: 1}}},
	})
	if len(got.rep.PerFile) != 2 {
		t.Errorf("per-file accounting %v", got.rep.PerFile)
	}
}

func TestElasticFlowMalformed(t *testing.T) {
	checkMalformed(t, SourceElasticFlow, "cluster03.csv", "job_id,submission_time,duration,num_gpu", "a,1,2,0", []badRow{
		{"negative duration", "b,1,-2,1", "duration", "negative"},
		{"NaN duration", "c,1,nan,1", "duration", "not finite"},
		{"text time", "d,yesterday,2,1", "submission_time", "not a number"},
		{"fractional gpus", "e,1,2,0.5", "num_gpu", "whole number"},
		{"negative gpus", "f,1,2,-1", "num_gpu", "out of range"},
		{"empty id", ",1,2,1", "job_id", "empty"},
		{"missing gpu field", "g,1,2", "num_gpu", "missing"},
	})
}

func TestElasticFlowNotCSV(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cluster01.csv")
	// A gzip header: the file as a whole is not text.
	if err := os.WriteFile(p, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	refusedFile(t, SourceElasticFlow, p)
	// A CSV of another shape: the missing column is named.
	q := writeFile(t, dir, "cluster02.csv", "id,submit,dur\n1,2,3\n")
	if ie := refusedFile(t, SourceElasticFlow, q); ie.Field != "job_id" {
		t.Fatalf("%v, want an InputError naming job_id", ie)
	}
}

// TestElasticFlowReal ingests all ten ITP clusters: 69,351 jobs, none
// quarantined, ids unique across clusters; the GPU histogram matches the
// data README (57,682 one-GPU jobs, 7,009 eight-GPU jobs). The jobs table
// is then read back with Arrow's own Parquet reader (pqarrow). Skipped
// under the race detector (make test-norace runs it): the reader's paths
// run there on the fixtures (TestElasticFlowFixture and its neighbours).
func TestElasticFlowReal(t *testing.T) {
	if raceEnabled {
		t.Skip("69,351 real rows; the fixtures cover the reader under the detector")
	}
	got, dir := ingestReal(t, SourceElasticFlow, "elasticflow")
	if got.rep.Total != (Accounting{Read: 69351, Accepted: 69351}) {
		t.Fatalf("accounting %+v, want 69351 read and accepted", got.rep.Total)
	}
	if len(got.rep.PerFile) != 10 || got.rep.PerFile[filepath.Join(dir, "cluster04.csv")].Read != 15802 {
		t.Errorf("per-file accounting %+v", got.rep.PerFile)
	}
	ids := make(map[string]bool, len(got.jobs))
	gpus := map[float64]int{}
	for _, j := range got.jobs {
		ids[j.JobID] = true
		gpus[j.TotalGPU()]++
	}
	if len(ids) != 69351 {
		t.Errorf("%d distinct ids, want 69351", len(ids))
	}
	if gpus[1] != 57682 || gpus[8] != 7009 {
		t.Errorf("GPU histogram %v", gpus)
	}

	// Re-read with pqarrow the file parquet-go read.
	kv, tbl := parquettest.ReadTableMeta(t, filepath.Join(got.out, JobsFile))
	if v := kv.FindValue(MetaSource); v == nil || *v != SourceElasticFlow {
		t.Errorf("source metadata %v", v)
	}
	tr := array.NewTableReader(tbl, -1)
	defer tr.Release()
	var fromArrow []Job
	for tr.Next() {
		fromArrow = decodeLoose(t, fromArrow, tr.Record())
	}
	if len(fromArrow) != len(got.jobs) {
		t.Fatalf("pqarrow read %d jobs, parquet-go %d", len(fromArrow), len(got.jobs))
	}
	for i := range fromArrow {
		if !reflect.DeepEqual(fromArrow[i], got.jobs[i]) {
			t.Fatalf("job %d: pqarrow %+v, parquet-go %+v", i, fromArrow[i], got.jobs[i])
		}
	}
}

func FuzzElasticFlow(f *testing.F) {
	f.Add([]byte("job_id,submission_time,duration,num_gpu\n965d744f-0445-c1a8-12af-97e4c536c66e,1932025,2429,64\nfb10987f,2000581,1532,1"))
	f.Add([]byte("num_gpu,duration,submission_time,job_id\r\n1,2,3,x\r\n-1,NaN,\"4\",\n\n"))
	fuzzReader(f, SourceElasticFlow, "cluster01.csv", ingestElasticFlowFile)
}

// BenchmarkElasticFlow ingests all ten ITP clusters (69,351 jobs) and
// reports rows per second.
func BenchmarkElasticFlow(b *testing.B) {
	benchIngest(b, SourceElasticFlow, sharedData(b, "elasticflow"))
}

// benchIngest runs one reader over inputs b.N times into one directory.
func benchIngest(b *testing.B, source string, inputs ...string) {
	r, err := Lookup(source)
	if err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	var rows int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := r.Ingest(context.Background(), Request{Inputs: inputs, OutDir: out})
		if err != nil {
			b.Fatal(err)
		}
		rows += rep.Total.Read
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
