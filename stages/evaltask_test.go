package stages

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
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
