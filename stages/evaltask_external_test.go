package stages

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
)

// TestCellTaskExternal: a cell of an external:NAME row runs from its task
// alone, on a worker that declared no policy (NAME is declared nowhere in
// this process): the task carries the policy's spec.
func TestCellTaskExternal(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3:", err)
	}
	script, _ := filepath.Abs(filepath.Join("..", "python", "examples", "fifo_firstfit.py"))
	spec, err := evaluation.DefaultSpec(evaluation.DASTable1)
	if err != nil {
		t.Fatal(err)
	}
	spec.Clusters = spec.Clusters[:1]
	name := "undeclared-on-this-worker"
	spec.Schedulers = []string{"fifo-firstfit", "external:" + name}
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.gob")
	if err := pipeline.WriteGobAtomic(jobs, schedulerstest.PAILike(40, 0.02, 1)); err != nil {
		t.Fatal(err)
	}
	row := external.Row{Spec: external.Spec{Name: name, Command: py + " " + script}}
	ct := cellTask{Spec: spec, Jobs: jobs, Results: filepath.Join(dir, "results.gob"), External: &row,
		Cell: evaluation.Cell{Experiment: spec.Experiment, Cluster: spec.Clusters[0].Name, Workload: spec.Workloads[0].Name, Scheduler: schedulers.Name("external:" + name)}}
	js, err := json.Marshal(ct)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pipeline.RunTask(context.Background(), pipeline.Task{Kind: TaskEvalCell, Name: "cell", Spec: js, Seed: 1}, pipeline.TaskEnv{})
	if err != nil {
		t.Fatalf("the cell's task: %v", err)
	}
	if len(out) == 0 {
		t.Error("no result")
	}
	// Without the spec, the worker cannot know the policy.
	ct.External = nil
	js, _ = json.Marshal(ct)
	if _, err := pipeline.RunTask(context.Background(), pipeline.Task{Kind: TaskEvalCell, Name: "cell", Spec: js, Seed: 1}, pipeline.TaskEnv{}); err == nil {
		t.Error("a task without the policy's spec ran it")
	}
}
