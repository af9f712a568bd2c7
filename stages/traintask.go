package stages

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
)

// TaskTrain is the task kind of one model's training: what a training
// stage hands to the run's executor when it has one.
const TaskTrain = "train.model"

func init() { pipeline.RegisterTask(TaskTrain, runTrainTask) }

// trainTask is a training's spec: the plan (plan.Training, whose family
// config decodes into the family's own type), the stage whose name names
// its random streams, and the files it reads (each also an input).
type trainTask struct {
	Model json.RawMessage `json:"model"`
	Stage string          `json:"stage"`
	// Base is replicate 0's stage name, which names a further
	// replicate's streams (ReplicaSeeds).
	Base       string `json:"base,omitempty"`
	ConfigHash string `json:"config_hash"`
	Trace      string `json:"trace,omitempty"`
	FitModel   string `json:"fit_model,omitempty"`
	EnvFile    string `json:"environment,omitempty"`
	// Arrivals is the arrivals table of a google-pattern MARL training.
	Arrivals string `json:"arrivals,omitempty"`
	// Scratch is the directory, in the stage's task directory on the
	// shared filesystem, of the training's resume checkpoints.
	Scratch string `json:"scratch,omitempty"`
}

// trainOutput is a finished training: the model's files, in the family's
// order, by name within the model directory.
type trainOutput struct {
	Names []string
	Data  [][]byte
}

func runTrainTask(ctx context.Context, t pipeline.Task, env pipeline.TaskEnv) ([]byte, error) {
	var tt trainTask
	if err := json.Unmarshal(t.Spec, &tt); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	mt, in, err := tt.inputs(t.Seed)
	if err != nil {
		return nil, err
	}
	// The heartbeat carries the progress and, where the executor retries
	// a task whose worker died, the last resume checkpoint: a family that
	// trains in episodes continues from it (trainresume.go).
	ck := &checkpoints{task: t.Name, dir: tt.Scratch, heartbeat: env.Heartbeat, resume: env.Resume}
	in.Progress = ck.progress
	dir, err := os.MkdirTemp("", "schedlab-train-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	spec, err := mt.Spec(filepath.Join(dir, "model"), in)
	if err != nil {
		return nil, err
	}
	if env.Retried && tt.Scratch != "" {
		spec.Resume = ck.training()
	}
	if err := Train(ctx, mt, spec); err != nil {
		return nil, err
	}
	ck.clean()
	var out trainOutput
	for _, f := range mt.Family().Files(mt.Scheduler) {
		b, err := os.ReadFile(filepath.Join(spec.Dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, fmt.Errorf("train %s: %w", mt.Scheduler, err)
		}
		out.Names, out.Data = append(out.Names, f), append(out.Data, b)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// inputs decodes the plan and reads the files of the training as the
// stage does in the driver (train.go).
func (tt trainTask) inputs(seed uint64) (*plan.Training, plan.TrainInputs, error) {
	mt, err := tt.model()
	if err != nil {
		return nil, plan.TrainInputs{}, err
	}
	in := mt.InputsUnder(seed, tt.Stage)
	in.Meta.ConfigHash = tt.ConfigHash
	if tt.Trace != "" {
		if in.Trace, err = datasets.ReadParquet[datasets.Job](tt.Trace); err != nil {
			return nil, plan.TrainInputs{}, err
		}
	}
	if tt.Arrivals != "" {
		if in.Arrivals, err = datasets.ReadArrivals(tt.Arrivals); err != nil {
			return nil, plan.TrainInputs{}, err
		}
	}
	speeds, err := mt.Speed().Resolve(plan.Sources{Fit: tt.FitModel, Environment: tt.EnvFile})
	if err != nil {
		return nil, plan.TrainInputs{}, err
	}
	in.Interference = speeds.Interference
	return mt, in, nil
}

// model decodes the plan.
func (tt trainTask) model() (*plan.Training, error) { return plan.DecodeTraining(tt.Model, tt.Base) }

// trainOnExecutor runs the training as a task on env's executor and
// writes the model's files to the stage's outputs.
func trainOnExecutor(ctx context.Context, m *plan.Training, env *pipeline.Env, jobsArtifact string) error {
	tt, inputs, err := trainTaskOf(m, env, jobsArtifact)
	if err != nil {
		return err
	}
	scratch, err := filepath.Abs(filepath.Join(env.TaskDir(), "resume"))
	if err != nil {
		return err
	}
	tt.Scratch = scratch
	spec, err := json.Marshal(tt)
	if err != nil {
		return err
	}
	b, err := env.Batch([]pipeline.Task{{Kind: TaskTrain, Name: string(m.Scheduler) + "@" + m.Cluster, Spec: spec, Inputs: inputs, Seed: env.Seed}})
	if err != nil {
		return err
	}
	res, err := env.Executor().Run(ctx, b)
	if err != nil {
		return err
	}
	var out trainOutput
	if err := gob.NewDecoder(bytes.NewReader(res[0])).Decode(&out); err != nil {
		return fmt.Errorf("train %s: result: %w", m.Scheduler, err)
	}
	for i, name := range out.Names {
		if err := pipeline.WriteFileAtomic(env.Output(path.Join(plan.ModelDir(m.Key), name)), out.Data[i]); err != nil {
			return err
		}
	}
	return nil
}

// trainTaskOf is the spec of the training's tasks and the files they read.
func trainTaskOf(m *plan.Training, env *pipeline.Env, jobsArtifact string) (trainTask, []pipeline.InputRef, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return trainTask{}, nil, err
	}
	tt := trainTask{Model: raw, Stage: env.Stage(), ConfigHash: env.ConfigHash, Base: m.Base()}
	var inputs []pipeline.InputRef
	if m.Data.ReadsTrace() {
		ref := env.InputRef(jobsArtifact)
		tt.Trace, inputs = ref.Path, append(inputs, ref)
	}
	if m.Data.ArrivalsFile != "" {
		ref := env.InputRef(m.Data.ArrivalsFile)
		tt.Arrivals, inputs = ref.Path, append(inputs, ref)
	}
	src := m.Speed().RunSources(func(a string) string {
		ref := env.InputRef(a)
		inputs = append(inputs, ref)
		return ref.Path
	})
	tt.FitModel, tt.EnvFile = src.Fit, src.Environment
	return tt, inputs, nil
}
