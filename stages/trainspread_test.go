package stages

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training/marl"
)

// kindCounter is a local executor that counts the tasks of each kind it
// runs.
type kindCounter struct {
	pipeline.Local
	mu sync.Mutex
	n  map[string]int
}

func (k *kindCounter) Run(ctx context.Context, b pipeline.Batch) ([][]byte, error) {
	k.mu.Lock()
	for _, t := range b.Tasks {
		k.n[t.Kind]++
	}
	k.mu.Unlock()
	return k.Local.Run(ctx, b)
}

// TestSpreadRolloutsRun runs marl-arrivals with two MARL rollouts per
// update in process and through the local executor on two workers, where
// the training runs in the driver and each rollout's step from one
// decision point to the next is a task (train.step): every output is the
// same bytes.
func TestSpreadRolloutsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model twice")
	}
	run := func(ex pipeline.Executor) string {
		cfg := quickConfig()
		cfg.Eval.Experiments = []string{evaluation.MARLArrivals}
		evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) {
			s.Schedulers = []string{"lb", "marl-device"}
			s.FittedInterference = false
		})
		marl.Section.Edit(&cfg.Train.Sections, func(m *marl.Settings) { m.Episodes, m.Rollouts = 3, 2 })
		cfg.Out, cfg.Workers = t.TempDir(), 2
		withUpstream(t, cfg.Out, 4)
		if err := runStages(t, cfg, 4, 2, ex, false); err != nil {
			t.Fatal(err)
		}
		return cfg.Out
	}
	ex := &kindCounter{Local: pipeline.Local{Workers: 2}, n: map[string]int{}}
	d1, d2 := run(nil), run(ex)
	if n := sameRun(t, d1, d2, "in process and with each rollout's steps as tasks"); n < 10 {
		t.Errorf("compared %d files", n)
	}
	// Two episodes of an iteration, then one alone (which does not
	// spread): at least a step per decision point of the first two.
	if ex.n[TaskTrainStep] < 4 || ex.n[TaskTrain] != 0 {
		t.Errorf("tasks run: %v; want train.step tasks and no whole training", ex.n)
	}
}

// A step task whose spec is not one, whose model's family does not
// spread, or whose piece names the wrong parameters is refused with an
// error naming the task, never a panic.
func TestStepTaskRefuses(t *testing.T) {
	model := func(name string) []byte {
		m, err := quickConfig().Plan().Training(name, "", "")
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	marlModel, dasModel := model("marl-device"), model("rifling")
	spec := func(model []byte, piece string) []byte {
		b, err := json.Marshal(stepTask{Train: trainTask{Model: model, Stage: "train-x"}, Key: "k", Piece: []byte(piece), Blobs: map[string]string{}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		name string
		spec []byte
		want string
	}{
		{"not json", []byte("{"), "spec:"},
		{"das", spec(dasModel, `{"episode":0,"step":0,"params":["p"]}`), "does not spread"},
		{"piece not json", spec(marlModel, `{`), "marl: step"},
		{"params short", spec(marlModel, `{"episode":0,"step":3,"params":["p"]}`), "names 1 parameter sets, want 4"},
		{"blob missing", spec(marlModel, `{"episode":0,"step":0,"params":["p"]}`), `blob "p" is not among the task's inputs`},
	} {
		_, err := pipeline.RunTask(context.Background(), pipeline.Task{Kind: TaskTrainStep, Name: "step-" + c.name, Spec: c.spec}, pipeline.TaskEnv{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "step-"+c.name) || strings.Contains(err.Error(), "panic") {
			t.Errorf("%s: %v, want an error with %q naming the task", c.name, err, c.want)
		}
	}
}

// stepRecorder is a local executor that records the episodes of the
// train.step pieces it runs and, with failFrom ≥ 0, fails the first
// batch holding a piece of episode failFrom or later, as a driver that
// dies there would leave its run.
type stepRecorder struct {
	pipeline.Local
	failFrom int
	mu       sync.Mutex
	episodes map[int]bool
}

var errDriverDied = errors.New("the driver died")

func (s *stepRecorder) Run(ctx context.Context, b pipeline.Batch) ([][]byte, error) {
	s.mu.Lock()
	for _, t := range b.Tasks {
		if t.Kind != TaskTrainStep {
			continue
		}
		var st stepTask
		var piece struct {
			Episode int `json:"episode"`
		}
		if err := json.Unmarshal(t.Spec, &st); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(st.Piece, &piece); err != nil {
			return nil, err
		}
		if s.failFrom >= 0 && piece.Episode >= s.failFrom {
			s.failFrom = -1
			s.mu.Unlock()
			return nil, errDriverDied
		}
		s.episodes[piece.Episode] = true
	}
	s.mu.Unlock()
	return s.Local.Run(ctx, b)
}

// TestSpreadTrainingResumes: a training of two rollouts per update whose
// driver dies in its second iteration continues, at the next run into
// the same directory, from the checkpoint it kept after its first (the
// rerun steps episodes 2 and 3 only), and writes the model of a training
// in process. Both runs are of the training and what it needs.
func TestSpreadTrainingResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model twice")
	}
	run := func(ex pipeline.Executor, dir string) error {
		cfg := quickConfig()
		cfg.Eval.Experiments = []string{evaluation.MARLArrivals}
		evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) {
			s.Schedulers = []string{"marl-device"}
			s.FittedInterference = false
		})
		marl.Section.Edit(&cfg.Train.Sections, func(m *marl.Settings) { m.Episodes, m.Rollouts = 4, 2 })
		cfg.Out, cfg.Workers = dir, 2
		return runStages(t, cfg, 4, 2, ex, true)
	}
	base, dir := t.TempDir(), t.TempDir()
	withUpstream(t, base, 4)
	withUpstream(t, dir, 4)
	if err := run(nil, base); err != nil {
		t.Fatal(err)
	}
	died := &stepRecorder{Local: pipeline.Local{Workers: 2}, failFrom: 2, episodes: map[int]bool{}}
	if err := run(died, dir); !errors.Is(err, errDriverDied) {
		t.Fatalf("the run whose driver dies: %v, want %v", err, errDriverDied)
	}
	if !died.episodes[0] || !died.episodes[1] || died.episodes[2] {
		t.Fatalf("the first run stepped episodes %v, want 0 and 1", died.episodes)
	}
	again := &stepRecorder{Local: pipeline.Local{Workers: 2}, failFrom: -1, episodes: map[int]bool{}}
	if err := run(again, dir); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(again.episodes, map[int]bool{2: true, 3: true}) {
		t.Errorf("the rerun stepped episodes %v, want 2 and 3 (resumed after 1)", again.episodes)
	}
	if n := sameRun(t, base, dir, "in process and resumed by a second driver"); n < 3 {
		t.Errorf("compared %d files", n)
	}
}
