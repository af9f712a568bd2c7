package datasets

import (
	"context"
	"math"
	"path/filepath"
	"sort"
	"testing"

	"github.com/schedlab/schedlab/internal/duckdbtest"
	"github.com/schedlab/schedlab/internal/stats"
)

func TestPAISimFixture(t *testing.T) {
	got := checkFixture(t, SourcePAISim, "testdata/pai-sim", []Job{
		{JobID: "1", Source: SourcePAISim, SubmitS: 3, DurationS: 15748, User: "d4d51aca8806",
			Tasks: []Task{{Role: RoleWorker, Instances: 12, GPU: 0.25, CPU: 6}}},
		{JobID: "2", Source: SourcePAISim, SubmitS: 5, DurationS: 84, User: "a8192d6b0ae9",
			Tasks: []Task{{Role: RoleWorker, Instances: 1, GPU: 1, CPU: 6}}},
		{JobID: "5", Source: SourcePAISim, SubmitS: 21, DurationS: 46, User: "c7152ce0fec1",
			Tasks: []Task{{Role: RoleWorker, Instances: 2, GPU: 4, CPU: 9}}},
	})
	if got.rep.Total != (Accounting{Read: 3, Accepted: 3}) {
		t.Errorf("accounting %+v", got.rep.Total)
	}
}

func TestPAISimMalformed(t *testing.T) {
	header := "job_id,submit_time,duration,num_gpu,num_cpu,num_inst,user"
	checkMalformed(t, SourcePAISim, "jobs.csv", header, "7,1.0,10.0,2.0,12.0,2.0,u", []badRow{
		{"duration not a number", "8,1,ten,1,6,1,u", "duration", "not a number"},
		{"negative duration", "9,1,-5,1,6,1,u", "duration", "negative"},
		{"NaN duration", "10,1,NaN,1,6,1,u", "duration", "not finite"},
		{"infinite submit", "11,+Inf,5,1,6,1,u", "submit_time", "not finite"},
		{"fractional instances", "12,1,5,1,6,1.5,u", "num_inst", "whole number"},
		{"zero instances", "13,1,5,1,6,0,u", "num_inst", "out of range"},
		{"negative gpu", "14,1,5,-1,6,1,u", "num_gpu", "negative"},
		{"empty id", ",1,5,1,6,1,u", "job_id", "empty"},
		{"short row", "15,1,5", "num_inst", "missing"},
		{"open quote", `16,"1,5,1,6,1,u`, "", "quoting"},
	})
}

func TestPAISimMissingColumn(t *testing.T) {
	p := writeFile(t, t.TempDir(), "jobs.csv", "job_id,submit_time,duration,num_gpu,num_cpu\n1,2,3,4,5\n")
	if ie := refusedFile(t, SourcePAISim, p); ie.Field != "num_inst" {
		t.Fatalf("%v, want an InputError naming num_inst", ie)
	}
}

// TestPAISimReal reads the 6,000-job subset: every row accepted, and the
// same interpretation as the schedulers package's test-only readPAISim
// (instances = num_inst, per-instance GPU and CPU = job totals / num_inst).
func TestPAISimReal(t *testing.T) {
	got, _ := ingestReal(t, SourcePAISim, "pai-v2020/operate_simulator_jobs_6000.csv")
	if got.rep.Total != (Accounting{Read: 6000, Accepted: 6000}) {
		t.Fatalf("accounting %+v, want 6000 read and accepted", got.rep.Total)
	}
	first := got.jobs[0]
	if first.JobID != "1" || first.SubmitS != 3 || first.DurationS != 15748 || first.Tasks[0].Instances != 12 ||
		first.Tasks[0].GPU != 0.25 || first.Tasks[0].CPU != 6 || first.TotalGPU() != 3 {
		t.Errorf("first job %+v", first)
	}
	ids := map[string]bool{}
	for _, j := range got.jobs {
		ids[j.JobID] = true
	}
	if len(ids) != 6000 {
		t.Errorf("%d distinct job ids", len(ids))
	}
}

func FuzzPAISim(f *testing.F) {
	f.Add([]byte("job_id,submit_time,duration,num_gpu,num_cpu,num_inst\n1,3.0,15748.0,3.0,72.0,12.0\n"))
	f.Add([]byte("num_inst,num_cpu,num_gpu,duration,submit_time,job_id\n1,1,1,1,1,x\n2,\"3\",-1,NaN,1e400,\n"))
	fuzzReader(f, SourcePAISim, "jobs.csv", ingestPAISimFile)
}

// TestPAISimDuckDB ingests the 6,000-job subset and checks our Parquet with
// DuckDB, an independent reader: row and id counts, total GPUs over the
// repeated tasks group, and the median duration agree with what parquet-go
// reads back.
func TestPAISimDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("DuckDB check skipped in -short mode")
	}
	path := sharedData(t, "pai-v2020/operate_simulator_jobs_6000.csv")
	out := t.TempDir()
	if _, err := (PAISimReader{}).Ingest(context.Background(), Request{Inputs: []string{path}, OutDir: out}); err != nil {
		t.Fatal(err)
	}
	jobsPath := filepath.Join(out, JobsFile)
	jobs, err := ReadParquet[Job](jobsPath)
	if err != nil {
		t.Fatal(err)
	}
	var gpus float64
	dur := make([]float64, len(jobs))
	for i, j := range jobs {
		gpus += j.TotalGPU()
		dur[i] = j.DurationS
	}
	sort.Float64s(dur)
	res := duckdbtest.Query(t, `SELECT count(*) AS n, count(DISTINCT job_id) AS ids,
		(SELECT sum(t.instances * t.gpu) FROM (SELECT unnest(tasks) AS t FROM read_parquet(`+duckdbtest.Literal(jobsPath)+`))) AS gpus,
		quantile_cont(duration_s, 0.5) AS p50, min(source) AS src
		FROM read_parquet(`+duckdbtest.Literal(jobsPath)+`)`)
	row := res.Rows[0]
	if n := duckdbtest.Float(t, row[0]); n != 6000 {
		t.Errorf("duckdb counts %v rows", n)
	}
	if ids := duckdbtest.Float(t, row[1]); ids != 6000 {
		t.Errorf("duckdb counts %v distinct ids", ids)
	}
	if g := duckdbtest.Float(t, row[2]); math.Abs(g-gpus) > 1e-9*gpus {
		t.Errorf("duckdb total GPUs %v, parquet-go %v", g, gpus)
	}
	if p := duckdbtest.Float(t, row[3]); p != stats.Quantile(dur, 0.5) {
		t.Errorf("duckdb median duration %v, ours %v", p, stats.Quantile(dur, 0.5))
	}
	if row[4] != SourcePAISim {
		t.Errorf("duckdb source %v", row[4])
	}
}

// BenchmarkPAISim ingests the 6,000-job PAI subset and reports rows per
// second.
func BenchmarkPAISim(b *testing.B) {
	benchIngest(b, SourcePAISim, sharedData(b, "pai-v2020/operate_simulator_jobs_6000.csv"))
}
