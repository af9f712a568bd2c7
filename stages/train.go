package stages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/training"
	_ "github.com/schedlab/schedlab/training/families" // every learned family
)

// trainStages returns the run's plan (runPlan), a training stage for
// every model its experiments' learned schedulers need, each once (the
// first experiment naming a model sets its simulator configuration and
// interference model), and the artifacts evaluation reads from each (by
// plan.Config.ModelKey): models holds the first model's (replicate 0),
// replicas every replicate's, in order, for the keys that train.seeds
// replicates. The DAG and the report both take them from here.
func (c *Config) trainStages() (*plan.Plan, []pipeline.Stage, map[string][]string, map[string][][]string, error) {
	p, err := c.runPlan()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	pc, jobs := p.Config, p.Config.Jobs
	var stages []pipeline.Stage
	models := map[string][]string{}
	replicas := map[string][][]string{}
	plans := map[string]*plan.Training{}
	for _, pe := range p.Experiments {
		spec, fitted, id := plan.WithoutArrivals(pe.Spec), pe.Fitted, pe.Spec.Experiment
		names, err := spec.SchedulerNames()
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("eval (%s): %w", id, err)
		}
		for _, canon := range names {
			if !canon.Learned() {
				continue
			}
			for _, cl := range spec.Clusters {
				key := pc.ModelKey(canon, cl.Spec)
				mt, err := pc.TrainingOf(canon, spec, fitted, cl)
				if err != nil {
					return nil, nil, nil, nil, err
				}
				if prev, done := plans[key]; done {
					// One model serves both experiments only if they
					// train alike (a MARL model trains in batches
					// whatever its experiment's placement).
					if prev.Sim != mt.Sim || prev.Fitted != fitted {
						return nil, nil, nil, nil, fmt.Errorf("train %s: experiments %s and %s simulate differently (sim config or fitted interference) but share the model", key, prev.Experiment, id)
					}
					continue
				}
				stages = append(stages, trainStage(mt, jobs))
				models[key], plans[key] = mt.Outputs(), mt
				if n := pc.Replicas(canon, key); n > 1 {
					all := [][]string{mt.Outputs()}
					for r := 1; r < n; r++ {
						rm := mt.Replica(r)
						stages = append(stages, trainStage(rm, jobs))
						all = append(all, rm.Outputs())
					}
					replicas[key] = all
				}
			}
		}
	}
	return p, stages, models, replicas, nil
}

// trainingVersion is a training stage's version: the stages' and, for a
// training.Versioned family, its own ("3/marl-2").
func trainingVersion(f training.Family) string {
	if v := training.Version(f); v != "" {
		return stageVersion + "/" + f.Name() + "-" + v
	}
	return stageVersion
}

// trainStage is the pipeline stage that trains m into models/<key>/.
func trainStage(m *plan.Training, jobsArtifact string) pipeline.Stage {
	var in []string
	if m.Data.ReadsTrace() {
		in = append(in, jobsArtifact)
	}
	if m.Data.ArrivalsFile != "" {
		in = append(in, m.Data.ArrivalsFile)
	}
	in = append(in, m.Speed().Inputs()...)
	outs := m.Outputs()
	return &pipeline.Func{
		StageName: m.StageName(), StageVersion: trainingVersion(m.Family()), In: in, Out: outs, Cfg: m,
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			// On an executor, the training is a task of its own, or, for
			// one that spreads its steps (MARL's rollouts), runs here
			// and each step's pieces are its tasks (trainspread.go).
			// A spread training keeps its resume checkpoints in the
			// stage's task directory: a driver that dies leaves them to
			// the next run of the stage (trainresume.go).
			var spread training.Spread
			var resume *training.Resume
			var resumeDir string
			if env.Executor() != nil && trainSpecHook == nil {
				if !spreads(m) {
					return trainOnExecutor(ctx, m, env, jobsArtifact) // traintask.go
				}
				var err error
				if spread, err = spreadOn(m, env, jobsArtifact); err != nil {
					return err
				}
				resume, resumeDir = stageCheckpoints(env)
			}
			in := m.Inputs(env.Seed)
			in.Meta.ConfigHash = env.ConfigHash
			var err error
			if m.Data.ReadsTrace() {
				if in.Trace, err = datasets.ReadParquet[datasets.Job](env.Input(jobsArtifact)); err != nil {
					return err
				}
			}
			if m.Data.ArrivalsFile != "" {
				if in.Arrivals, err = datasets.ReadArrivals(env.Input(m.Data.ArrivalsFile)); err != nil {
					return err
				}
			}
			speeds, err := m.Speed().Resolve(m.Speed().RunSources(env.Input))
			if err != nil {
				return err
			}
			in.Interference = speeds.Interference
			for _, o := range outs {
				env.Output(o)
			}
			var bar *pipeline.Bar
			in.Progress = func(done, total int) {
				if bar == nil {
					bar = env.Bar("episodes", int64(total))
				}
				bar.Set(int64(done))
			}
			defer func() {
				if bar != nil {
					bar.Done()
				}
			}()
			spec, err := m.Spec(filepath.Dir(env.Output(outs[0])), in)
			if err != nil {
				return err
			}
			if trainSpecHook != nil {
				return trainSpecHook(spec)
			}
			spec.Spread, spec.Resume = spread, resume
			err = Train(ctx, m, spec)
			if errors.Is(err, training.ErrResumeMismatch) {
				return fmt.Errorf("%w (an earlier run's checkpoint, in %s: remove it to train from the first episode)", err, resumeDir)
			}
			return err
		},
	}
}

// trainSpecHook is nil except in tests, which see the spec a training
// stage built (and skip the training) through it.
var trainSpecHook func(training.TrainSpec) error

// Train trains the model of spec (from m.Spec: call it once, it draws the
// workload) into spec.Dir, which it creates.
func Train(ctx context.Context, m *plan.Training, spec training.TrainSpec) error {
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return err
	}
	if err := m.Family().Train(ctx, spec); err != nil {
		return fmt.Errorf("train %s: %w", m.Scheduler, err)
	}
	return nil
}

// Trace is the job trace a run's trace-source training reads: file, or
// (none given) the synthetic trace the run generates (the synthetic-jobs
// stage's stream); a run of an ingested source needs the file.
func (c *Config) Trace(ctx context.Context, file string) ([]datasets.Job, error) {
	if file != "" {
		return datasets.ReadParquet[datasets.Job](file)
	}
	if c.Datasets.Source != SyntheticPAI {
		return nil, fmt.Errorf("datasets.source is %s: give its jobs table (%s of a run)", c.Datasets.Source, c.JobsArtifact())
	}
	return datasets.GeneratePAILikeJobs(ctx, c.Datasets.Synthetic, pipeline.Rand(c.Seed, syntheticJobsStage, syntheticJobsStream))
}
