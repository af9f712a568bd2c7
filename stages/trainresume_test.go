package stages

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/marl"
)

// killingExecutor runs tasks in this process, one at a time. A training
// task's first attempt is killed (its context cancelled) right after it
// heartbeats the checkpoint of episode k, and the task is retried with
// that heartbeat, as Temporal retries a task whose worker died; tamper,
// if set, changes the checkpoint file before the retry.
type killingExecutor struct {
	k      int
	tamper func(path string)
	mu     sync.Mutex
	first  map[string]int // task → the first episode its retry reported
}

func (e *killingExecutor) Run(ctx context.Context, b pipeline.Batch) ([][]byte, error) {
	out := make([][]byte, len(b.Tasks))
	for i, t := range b.Tasks {
		if t.Kind != TaskTrain {
			res, err := pipeline.RunTask(ctx, t, pipeline.TaskEnv{Retried: true})
			if err != nil {
				return nil, err
			}
			out[i] = res
			continue
		}
		actx, kill := context.WithCancel(ctx)
		var last []byte
		var ck string
		_, err := pipeline.RunTask(actx, t, pipeline.TaskEnv{Retried: true, Heartbeat: func(d []byte) {
			var hb trainHeartbeat
			json.Unmarshal(d, &hb)
			if hb.Checkpoint != nil && hb.Done == e.k {
				last, ck = d, hb.Checkpoint.Path
				kill()
			}
		}})
		kill()
		if !errors.Is(err, context.Canceled) {
			return nil, errors.New("task " + t.Name + " was not killed after episode checkpoint: " + errString(err))
		}
		if e.tamper != nil {
			e.tamper(ck)
		}
		first := -1
		res, err := pipeline.RunTask(ctx, t, pipeline.TaskEnv{Retried: true, Resume: last, Heartbeat: func(d []byte) {
			var hb trainHeartbeat
			json.Unmarshal(d, &hb)
			if first < 0 {
				first = hb.Done
			}
		}})
		if err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.first[t.Name] = first
		e.mu.Unlock()
		out[i] = res
	}
	return out, nil
}

func errString(err error) string {
	if err == nil {
		return "it finished"
	}
	return err.Error()
}

// resumeConfig trains RIFLING (das-table1) and the device-level MARL
// policy (marl-arrivals) for three episodes each.
func resumeConfig() *Config {
	cfg := dasAndMARLConfig([]string{"fifo-ff", "rifling"}, []string{"lb", "marl-device"})
	daspaper.Section.Edit(&cfg.Train.Sections, func(d *daspaper.Settings) { d.Episodes = 3 })
	marl.Section.Edit(&cfg.Train.Sections, func(m *marl.Settings) { m.Episodes = 3 })
	return cfg
}

// runWith runs resumeConfig's DAG through executor ex into a new
// directory, which it returns; with trainsOnly, only its training stages
// and the stages they need.
func runWith(t *testing.T, ex pipeline.Executor, trainsOnly bool) (string, error) {
	t.Helper()
	cfg := resumeConfig()
	cfg.Out = t.TempDir()
	withUpstream(t, cfg.Out, 1)
	return cfg.Out, runStages(t, cfg, 1, 1, ex, trainsOnly)
}

// TestTrainingResumesOnRetry: trainings killed after their first episode's
// checkpoint and retried continue from the second episode, and the run
// writes the same bytes as one without executor. A checkpoint changed
// before the retry is an error naming the task; one that is gone restarts
// the training from its first episode, to the same models. (The runs with
// the checkpoint gone or changed are of the trainings and what they need:
// the run before them evaluated these models through this executor.)
// Under the race detector every run is of the trainings and what they
// need (calibration, evaluations and tables are 70 % of a whole run's CPU
// there, and evaluations run as an executor's tasks in
// TestEvalStageScratch); make test-norace runs the first two runs whole.
func TestTrainingResumesOnRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four models")
	}
	base, err := runWith(t, nil, raceEnabled)
	if err != nil {
		t.Fatal(err)
	}
	ex := &killingExecutor{k: 1, first: map[string]int{}}
	dir, err := runWith(t, ex, raceEnabled)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.first) != 2 || ex.first["rifling@"+daspaper.Section.Get(resumeConfig().Train.Sections).Cluster] != 2 {
		t.Errorf("first episode of each retried training: %v, want 2 for both", ex.first)
	}
	for name, first := range ex.first {
		if first != 2 {
			t.Errorf("%s: the retry reported episode %d first, want 2 (resumed after episode 1)", name, first)
		}
	}
	if n := sameRun(t, base, dir, "from the run without executor"); n < map[bool]int{false: 20, true: 6}[raceEnabled] {
		t.Errorf("compared %d files", n)
	}

	gone := &killingExecutor{k: 1, first: map[string]int{}, tamper: func(p string) { os.Remove(p) }}
	dir, err = runWith(t, gone, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(gone.first) != 2 {
		t.Errorf("checkpoint gone: retried trainings %v, want 2", gone.first)
	}
	for name, first := range gone.first {
		if first != 1 {
			t.Errorf("%s, checkpoint gone: the retry reported episode %d first, want 1 (a restart)", name, first)
		}
	}
	if n := sameRun(t, dir, base, "from the run without executor"); n < 6 {
		t.Errorf("compared %d files, want the trace and both models' (6)", n)
	}

	changed := &killingExecutor{k: 1, first: map[string]int{}, tamper: func(p string) {
		b, _ := os.ReadFile(p)
		b[len(b)-1] ^= 1
		os.WriteFile(p, b, 0o644)
	}}
	_, err = runWith(t, changed, true)
	if !errors.Is(err, pipeline.ErrCheckpointChanged) || !strings.Contains(err.Error(), "task rifling@") {
		t.Fatalf("changed checkpoint: %v, want ErrCheckpointChanged naming the task", err)
	}
}

// sameRun compares every file of run directory a with b's, but the
// wall-clock ones (timings, manifest, report) and the runner's state, and
// returns how many it compared; a file that differs is an error naming
// it and how the runs differ (between).
func sameRun(t *testing.T, a, b, between string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(a, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		if strings.HasPrefix(rel, ".schedlab") || strings.Contains(rel, "timings") || rel == "manifest.json" || strings.HasPrefix(rel, "report") {
			return nil
		}
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs %s (%v)", rel, between, err)
		}
		n++
		return nil
	})
	return n
}
