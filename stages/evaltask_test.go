package stages

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/pythontest"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
)

// TestEvalStageScratch runs heuristic experiments in the stage's own pool
// and as tasks on the local executor: both leave every cell's per-job
// results in scratch files of the stage's task directory, which write the
// same outputs byte for byte and are gone once the stages are done.
func TestEvalStageScratch(t *testing.T) {
	run := func(ex pipeline.Executor) string {
		cfg := quickConfig()
		cfg.Out = t.TempDir()
		withUpstream(t, cfg.Out, 1)
		cfg.Eval.Experiments = []string{"das-table1", "marl-topologies"}
		cfg.Eval.Seeds = 2
		evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) { s.Schedulers = []string{"fifo-ff", "tetris", "drf-lb"} })
		if err := runStages(t, cfg, 1, 2, ex, false); err != nil {
			t.Fatal(err)
		}
		return cfg.Out
	}
	pooled, tasks := run(nil), run(pipeline.Local{Workers: 2})

	for _, dir := range []string{pooled, tasks} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if strings.HasSuffix(rel, ".gob") || strings.Contains(rel, ".cells.tmp-") || strings.HasPrefix(filepath.ToSlash(rel), ".schedlab/tasks/eval-") {
				t.Errorf("%s: left behind", p)
			}
			return nil
		})
	}
	compared := sameRun(t, pooled, tasks, "between the stage's pool and the executor's tasks")
	md, _ := os.ReadFile(filepath.Join(pooled, "tables", "das-table1.md"))
	if compared < 10 || !bytes.Contains(md, []byte("Wilcoxon")) {
		t.Errorf("compared %d files; das-table1's Wilcoxon note: %v", compared, bytes.Contains(md, []byte("Wilcoxon")))
	}
}

// TestCellTaskExternal: a cell of an external:NAME row runs from its task
// alone, on a worker that declared no policy (NAME is declared nowhere in
// this process): the task carries the policy's spec.
func TestCellTaskExternal(t *testing.T) {
	py := pythontest.Interpreter(t)
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
	// A policy declared on_error: row that fails: the task succeeds and
	// says so, for the driver to drop the row; declared run, it fails.
	for _, onError := range []string{external.OnErrorRow, external.OnErrorRun} {
		failing := external.Row{Spec: external.Spec{Name: name, Command: py + " -c 'import sys; sys.exit(3)'", OnError: onError}}
		ct.External = &failing
		js, _ = json.Marshal(ct)
		out, err := pipeline.RunTask(context.Background(), pipeline.Task{Kind: TaskEvalCell, Name: "cell", Spec: js, Seed: 1}, pipeline.TaskEnv{})
		if onError == external.OnErrorRun {
			if err == nil {
				t.Error("on_error run: the failing policy's task succeeded")
			}
			continue
		}
		var co cellOutput
		if err != nil {
			t.Fatalf("on_error row: the task failed: %v", err)
		}
		if err := gob.NewDecoder(bytes.NewReader(out)).Decode(&co); err != nil || !strings.Contains(co.Failed, "exit status 3") {
			t.Errorf("on_error row: output %+v (%v), want the failure", co, err)
		}
	}
	// Without the spec, the worker cannot know the policy.
	ct.External = nil
	js, _ = json.Marshal(ct)
	if _, err := pipeline.RunTask(context.Background(), pipeline.Task{Kind: TaskEvalCell, Name: "cell", Spec: js, Seed: 1}, pipeline.TaskEnv{}); err == nil {
		t.Error("a task without the policy's spec ran it")
	}
}
