package stages

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training"
)

// trainHeartbeat is a training task's heartbeat: its progress and its
// last resume checkpoint, by path and sha256 (the checkpoint itself lies
// on the shared filesystem: heartbeats travel through the executor,
// whose payloads are small).
type trainHeartbeat struct {
	Done       int                `json:"done"`
	Total      int                `json:"total"`
	Checkpoint *pipeline.InputRef `json:"checkpoint,omitempty"`
}

// keepCheckpoints is how long a checkpoint is kept after a newer one is
// written. The executor may not yet have the heartbeat naming the newer
// one (Temporal's SDK sends a task's heartbeats at most once per 0.8 ×
// its heartbeat timeout, and never less often than once a minute), and a
// retry resumes from the one it has, so a checkpoint goes only when its
// successor is older than any heartbeat that can still be under way.
const keepCheckpoints = 5 * time.Minute

// checkpoints saves a training task's resume checkpoints in dir, one
// file per episode, heartbeating each; it is the task's training.Resume.
type checkpoints struct {
	task, dir string
	heartbeat func([]byte)
	resume    []byte // the previous attempt's last heartbeat
	last      trainHeartbeat
	written   []writtenCheckpoint
}

type writtenCheckpoint struct {
	path string
	at   time.Time
}

func (c *checkpoints) training() *training.Resume {
	return &training.Resume{Load: c.load, Save: c.save}
}

// progress heartbeats the training's progress with the last checkpoint.
func (c *checkpoints) progress(done, total int) {
	c.last.Done, c.last.Total = done, total
	c.send()
}

func (c *checkpoints) send() {
	b, err := json.Marshal(c.last)
	if err != nil { // a struct of ints and strings
		panic(err)
	}
	c.heartbeat(b)
}

// save writes the state after done of total episodes, heartbeats it,
// and removes the checkpoints no retry can need any longer.
func (c *checkpoints) save(done, total int, state []byte) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("resume checkpoint: %w", err)
	}
	name := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r == '@' || r == '+' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			return r
		}
		return '_'
	}, c.task)
	path := filepath.Join(c.dir, fmt.Sprintf("%s.%06d.state", name, done))
	if err := pipeline.WriteFileAtomic(path, state); err != nil {
		return fmt.Errorf("resume checkpoint: %w", err)
	}
	c.last = trainHeartbeat{Done: done, Total: total, Checkpoint: &pipeline.InputRef{Path: path, SHA256: pipeline.HashBytes(state)}}
	c.send()
	slog.Debug("training checkpoint saved", "task", c.task, "episodes_done", done, "of", total, "checkpoint", path)
	now := time.Now()
	c.written = append(c.written, writtenCheckpoint{path, now})
	for len(c.written) > 1 && now.Sub(c.written[1].at) > keepCheckpoints {
		os.Remove(c.written[0].path)
		c.written = c.written[1:]
	}
	return nil
}

// load reads the checkpoint the previous attempt's last heartbeat names.
// A checkpoint whose bytes are not those recorded is an error
// (pipeline.ErrCheckpointChanged). One that is gone (the run directory
// was cleaned) restarts the training from its first episode, with a
// warning: a training depends on its spec, inputs and seed only, so the
// restart writes the same bytes, later.
func (c *checkpoints) load() ([]byte, error) {
	if c.resume == nil {
		return nil, nil
	}
	var hb trainHeartbeat
	if err := json.Unmarshal(c.resume, &hb); err != nil || hb.Checkpoint == nil {
		return nil, nil // progress only (or a heartbeat of an older build): nothing to resume from
	}
	c.last = hb
	b, err := os.ReadFile(hb.Checkpoint.Path)
	if errors.Is(err, os.ErrNotExist) {
		slog.Warn("resume checkpoint is gone: training from the first episode", "task", c.task, "checkpoint", hb.Checkpoint.Path, "episodes_done", hb.Done)
		c.last = trainHeartbeat{}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("resume checkpoint %s: %w", hb.Checkpoint.Path, err)
	}
	if sum := pipeline.HashBytes(b); sum != hb.Checkpoint.SHA256 {
		return nil, fmt.Errorf("resume checkpoint %s after episode %d: %w: sha256 %s, the previous attempt recorded %s", hb.Checkpoint.Path, hb.Done, pipeline.ErrCheckpointChanged, sum, hb.Checkpoint.SHA256)
	}
	slog.Info("training resumed from its checkpoint", "task", c.task, "episodes_done", hb.Done, "of", hb.Total, "checkpoint", hb.Checkpoint.Path)
	return b, nil
}

// clean removes the checkpoints of a finished training.
func (c *checkpoints) clean() {
	for _, w := range c.written {
		os.Remove(w.path)
	}
}

// stageCheckpoints is the training.Resume of a training the driver runs
// itself (one that spreads its steps over the executor): its checkpoints
// lie in the stage's task directory, which outlives a failed or killed
// run and goes when the stage commits, named by the stage's cache key,
// so that the next run of the stage with the same key (configuration,
// inputs and seed) continues from the last one, and no other does.
// It returns the directory too.
func stageCheckpoints(env *pipeline.Env) (*training.Resume, string) {
	c := runCheckpoints{dir: filepath.Join(env.TaskDir(), "resume"), key: env.Key(), stage: env.Stage()}
	return &training.Resume{Load: c.load, Save: c.save}, c.dir
}

type runCheckpoints struct{ dir, key, stage string }

const stateExt = ".state"

// save writes the state after done of total episodes and removes every
// other checkpoint of the directory (earlier ones, and those of another
// key, which no run can continue from).
func (c runCheckpoints) save(done, total int, state []byte) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("resume checkpoint: %w", err)
	}
	name := fmt.Sprintf("%s.%06d%s", c.key, done, stateExt)
	if err := pipeline.WriteFileAtomic(filepath.Join(c.dir, name), state); err != nil {
		return fmt.Errorf("resume checkpoint: %w", err)
	}
	slog.Debug("training checkpoint saved", "stage", c.stage, "episodes_done", done, "of", total, "checkpoint", filepath.Join(c.dir, name))
	old, err := os.ReadDir(c.dir)
	if err != nil {
		return fmt.Errorf("resume checkpoint: %w", err)
	}
	for _, e := range old {
		if e.Name() != name && strings.HasSuffix(e.Name(), stateExt) {
			os.Remove(filepath.Join(c.dir, e.Name()))
		}
	}
	return nil
}

// load reads the checkpoint of the stage's key after the most episodes,
// nil if there is none.
func (c runCheckpoints) load() ([]byte, error) {
	entries, err := os.ReadDir(c.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("resume checkpoints: %w", err)
	}
	best, done := "", -1
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), c.key+".")
		if !ok {
			continue
		}
		n, ok = strings.CutSuffix(n, stateExt)
		if d, err := strconv.Atoi(n); ok && err == nil && d > done {
			best, done = e.Name(), d
		}
	}
	if best == "" {
		return nil, nil
	}
	p := filepath.Join(c.dir, best)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("resume checkpoint %s: %w", p, err)
	}
	slog.Info("training resumed from an earlier run's checkpoint", "stage", c.stage, "episodes_done", done, "checkpoint", p)
	return b, nil
}
