package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/training"
)

// TaskTrainStep is the task kind of one piece of a spread training's
// step (training.Spread): for MARL with train.marl.rollouts > 1, one
// rollout from one decision point to the next.
const TaskTrainStep = "train.step"

func init() { pipeline.RegisterTask(TaskTrainStep, runStepTask) }

// stepTask is a piece's spec: the training's (as its whole-training
// task's), the key its worker keeps the training's state under, the
// family's piece, and the blobs it may read, by name (each an input).
type stepTask struct {
	Train trainTask         `json:"train"`
	Key   string            `json:"key"`
	Piece []byte            `json:"piece"`
	Blobs map[string]string `json:"blobs"`
}

func runStepTask(ctx context.Context, t pipeline.Task, _ pipeline.TaskEnv) ([]byte, error) {
	var st stepTask
	if err := json.Unmarshal(t.Spec, &st); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	mt, err := st.Train.model()
	if err != nil {
		return nil, err
	}
	sp, ok := mt.Family().(training.Spreader)
	if !ok {
		return nil, fmt.Errorf("spec: family %s does not spread its trainings", mt.Family().Name())
	}
	// The training's inputs are read only when the worker must rebuild
	// its state; the spec's Dir stays empty: a piece writes no model.
	build := func() (training.TrainSpec, error) {
		mt, in, err := st.Train.inputs(t.Seed)
		if err != nil {
			return training.TrainSpec{}, err
		}
		return mt.Spec("", in)
	}
	read := func(name string) ([]byte, error) {
		p, ok := st.Blobs[name]
		if !ok {
			return nil, fmt.Errorf("blob %q is not among the task's inputs", name)
		}
		return os.ReadFile(p)
	}
	return sp.RunPiece(ctx, st.Key, build, read, st.Piece)
}

// spreads says whether the model's training runs its steps' pieces as
// tasks of the run's executor, in the driver, rather than as one task.
func spreads(m *plan.Training) bool {
	sp, ok := m.Family().(training.Spreader)
	return ok && sp.Spreads(m.Config)
}

// spreadOn is the training.Spread that runs each step's pieces as a batch
// of TaskTrainStep tasks on env's executor. A step's blob is written
// once, into the stage's task directory, and travels by path and hash;
// blobs no piece of a step reads are removed after it, and so is the
// step's own directory (its tasks and results), once read.
func spreadOn(m *plan.Training, env *pipeline.Env, jobsArtifact string) (training.Spread, error) {
	tt, inputs, err := trainTaskOf(m, env, jobsArtifact)
	if err != nil {
		return nil, err
	}
	key, err := pipeline.HashJSON(struct {
		Train trainTask
		Seed  uint64
	}{tt, env.Seed})
	if err != nil {
		return nil, err
	}
	// A directory of this attempt's own: the workflows a distributed
	// executor starts are named by their batch's directory, and a driver
	// that runs the stage again trains afresh rather than re-attach to a
	// step of an earlier attempt.
	dir, err := filepath.Abs(filepath.Join(env.TaskDir(), "steps-"+strconv.FormatInt(time.Now().UnixNano(), 36)))
	if err != nil {
		return nil, err
	}
	blobs := map[string]pipeline.InputRef{}
	step := 0
	return func(ctx context.Context, blob training.Blob, pieces []training.Piece) ([][]byte, error) {
		if blob.Name == "" || filepath.Base(blob.Name) != blob.Name || blob.Name == "." || blob.Name == ".." {
			return nil, fmt.Errorf("train %s: blob name %q is not a file name", m.Scheduler, blob.Name)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		// A new file, read only by this step's tasks and later ones, and
		// only after this write returns: it needs no rename, nor a sync
		// (it outlives no crash of the driver that would read it again).
		p := filepath.Join(dir, blob.Name)
		if err := os.WriteFile(p, blob.Data, 0o644); err != nil {
			return nil, err
		}
		blobs[blob.Name] = pipeline.InputRef{Path: p, SHA256: pipeline.HashBytes(blob.Data)}
		read := map[string]bool{}
		tasks := make([]pipeline.Task, len(pieces))
		for i, pc := range pieces {
			st := stepTask{Train: tt, Key: key, Piece: pc.Spec, Blobs: map[string]string{}}
			in := append([]pipeline.InputRef(nil), inputs...)
			for _, name := range pc.Reads {
				ref, ok := blobs[name]
				if !ok {
					return nil, fmt.Errorf("train %s: a piece reads blob %q, never shared", m.Scheduler, name)
				}
				st.Blobs[name], in, read[name] = ref.Path, append(in, ref), true
			}
			spec, err := json.Marshal(st)
			if err != nil {
				return nil, err
			}
			tasks[i] = pipeline.Task{Kind: TaskTrainStep, Name: fmt.Sprintf("%s@%s step %d piece %d", m.Scheduler, m.Cluster, step, i),
				Spec: spec, Inputs: in, Seed: env.Seed}
			if pc.Affinity != "" {
				tasks[i].Affinity = key + "/" + pc.Affinity
			}
		}
		b, err := env.Batch(tasks)
		if err != nil {
			return nil, err
		}
		b.Dir = filepath.Join(dir, fmt.Sprintf("step-%06d", step))
		step++
		if err := os.MkdirAll(b.Dir, 0o755); err != nil {
			return nil, err
		}
		defer os.RemoveAll(b.Dir)
		res, err := env.Executor().Run(ctx, b)
		if err != nil {
			return nil, err
		}
		for name, ref := range blobs {
			if !read[name] {
				if err := os.Remove(ref.Path); err != nil {
					return nil, err
				}
				delete(blobs, name)
			}
		}
		return res, nil
	}, nil
}
