package datasets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestIngestJobsCopiesAcceptedJobs accepts 2,500 jobs (three batches, the
// last one partial) through one reused Job whose Tasks slice is reused too,
// as the PAI join does: every job must reach jobs.parquet as it was when
// accepted, in order, with no batch's memory overwritten by the next.
func TestIngestJobsCopiesAcceptedJobs(t *testing.T) {
	const n = 2*JobsBatchRows + 452
	dir := t.TempDir()
	file := filepath.Join(dir, "in.csv")
	req := Request{Inputs: []string{file}, OutDir: filepath.Join(dir, "out")}
	rep, err := IngestJobs(context.Background(), req, "test", []string{file}, func(ji *JobsIngest) error {
		var j Job
		tasks := make([]Task, 0, 2)
		for i := range n {
			tasks = append(tasks[:0], Task{Role: RoleWorker, Instances: int32(i + 1), GPU: 1})
			if i%3 == 0 {
				tasks = append(tasks, Task{Role: RolePS, Instances: 1, CPU: float64(i)})
			}
			j = Job{JobID: fmt.Sprint(i), SubmitS: float64(i), Tasks: tasks}
			if ok, err := ji.AcceptRow(file, CSVRow{Line: int64(i + 1)}, &j); !ok || err != nil {
				return fmt.Errorf("job %d: accepted %v, %v", i, ok, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total.Accepted != n || rep.Outputs[0].Rows != n {
		t.Fatalf("report %+v, want %d accepted and written", rep, n)
	}
	got, err := ReadParquet[Job](req.OutPath(JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("read %d jobs, want %d", len(got), n)
	}
	for i, j := range got {
		wantTasks := 1 + btoi(i%3 == 0)
		if j.JobID != fmt.Sprint(i) || j.Source != "test" || len(j.Tasks) != wantTasks || j.Tasks[0].Instances != int32(i+1) ||
			(wantTasks == 2 && j.Tasks[1].CPU != float64(i)) {
			t.Fatalf("job %d read back as %+v", i, j)
		}
	}
}

// TestIngestJobsFailureLeavesNothing checks that a parse error after some
// batches were written commits neither table.
func TestIngestJobsFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	req := Request{OutDir: dir}
	_, err := IngestJobs(context.Background(), req, "test", nil, func(ji *JobsIngest) error {
		for i := range 3 * JobsBatchRows {
			if _, err := ji.AcceptRow("f", CSVRow{Line: int64(i + 1)}, &Job{JobID: fmt.Sprint(i), Tasks: []Task{{Instances: 1}}}); err != nil {
				return err
			}
		}
		return os.ErrInvalid
	})
	if err == nil {
		t.Fatal("ingest succeeded, want the parse error")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		t.Errorf("failed ingest left %s", e.Name())
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
