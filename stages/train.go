package stages

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	_ "github.com/schedlab/schedlab/training/families" // every learned family
	"github.com/schedlab/schedlab/training/marl"
)

// TrainConfig sizes the training of the learned schedulers that the
// evaluation experiments name. Which models are trained follows from the
// experiments' scheduler lists: a learned name there adds its training
// stage to the DAG.
type TrainConfig struct {
	// Seeds is the number of independently trained models (replicates) of
	// each learned scheduler that Replicated selects, on each cluster it is
	// trained for: replicate 0 is the model a single training makes,
	// replicate r ≥ 1 trains into models/<key>/replicate-<r>/ from streams
	// of its own (ReplicaSeeds), and every experiment evaluates each, its
	// tables showing the mean and a confidence interval.
	Seeds int `mapstructure:"seeds" yaml:"seeds" json:"seeds"`
	// Replicated are the learned schedulers that get Seeds models: a name
	// (every model of it) or name@cluster-id (the one trained for that
	// cluster, as in models/<name>/<cluster-id>/: a MARL-workload model,
	// or any with train.das.cluster each); empty means every learned
	// scheduler. A name whose model the run does not train is ignored, so
	// that a preset's list survives a shorter eval.experiments.
	Replicated []string `mapstructure:"replicated" yaml:"replicated" json:"replicated"`

	MARL MARLTrainConfig `mapstructure:"marl" yaml:"marl" json:"marl"`
	DAS  DASTrainConfig  `mapstructure:"das" yaml:"das" json:"das"`
}

// DASTrainConfig is train.das and MARLTrainConfig train.marl: the
// sections the learned families read (training.Sections), declared with
// them.
type (
	DASTrainConfig  = training.DASSection
	MARLTrainConfig = training.MARLSection
)

// Bounds of TrainConfig: MaxTrainEpisodes is a thousand times the paper's
// budgets (tens to hundreds of episodes); MaxTrainJobs is
// datasets.MaxSyntheticJobs, the most jobs a trace may have;
// MaxTrainIntervals is 200 days of 30-minute intervals;
// MaxLearningRates bounds the grid (one training per rate).
const (
	MaxTrainEpisodes  = 100_000
	MaxTrainJobs      = datasets.MaxSyntheticJobs
	MaxTrainIntervals = 10_000
	MaxLearningRates  = 100
)

// Validate names the bad key in full, one message per key.
func (c TrainConfig) Validate() error {
	var errs []error
	inRange := func(key string, v, lo, hi int) {
		if v < lo || v > hi {
			errs = append(errs, fmt.Errorf("%s: must be in [%d, %d], got %d", key, lo, hi, v))
		}
	}
	inRange("train.seeds", c.Seeds, 1, evaluation.MaxReplicates)
	for i, e := range c.Replicated {
		name, cluster, hasCluster := strings.Cut(e, "@")
		canon, err := schedulers.Canonical(name)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("train.replicated[%d]: %w", i, err))
		case !canon.Learned():
			errs = append(errs, fmt.Errorf("train.replicated[%d]: %s is a heuristic: only a learned scheduler has trained models (learned: %v)", i, canon, schedulers.LearnedNames()))
		case hasCluster && (cluster == "" || strings.ContainsAny(cluster, "/\\ ,@")):
			errs = append(errs, fmt.Errorf("train.replicated[%d]: want name or name@cluster-id (e.g. marl-device@fattree-k8-power8), got %q", i, e))
		}
	}
	inRange("train.marl.episodes", c.MARL.Episodes, 0, MaxTrainEpisodes)
	inRange("train.marl.atte_episodes", c.MARL.AtteEpisodes, 0, MaxTrainEpisodes)
	inRange("train.marl.intervals", c.MARL.Intervals, 1, MaxTrainIntervals)
	if err := marl.CheckRollouts(c.MARL.Rollouts); err != nil {
		errs = append(errs, fmt.Errorf("train.marl.rollouts: %w", err))
	}
	if !slices.Contains([]string{"small", "medium", "large", DASEachCluster}, c.DAS.Cluster) {
		errs = append(errs, fmt.Errorf("train.das.cluster: must be small, medium, large or %s, got %q", DASEachCluster, c.DAS.Cluster))
	}
	inRange("train.das.episodes", c.DAS.Episodes, 1, MaxTrainEpisodes)
	inRange("train.das.segment_jobs", c.DAS.SegmentJobs, 1, MaxTrainJobs)
	inRange("train.das.val_jobs", c.DAS.ValJobs, 0, MaxTrainJobs)
	if !(c.DAS.MinNotFIFO >= 0 && c.DAS.MinNotFIFO <= 1) {
		errs = append(errs, fmt.Errorf("train.das.min_not_fifo: must be in [0, 1], got %v", c.DAS.MinNotFIFO))
	}
	if len(c.DAS.LearningRates) == 0 || len(c.DAS.LearningRates) > MaxLearningRates {
		errs = append(errs, fmt.Errorf("train.das.learning_rates: give 1 to %d rates, got %d", MaxLearningRates, len(c.DAS.LearningRates)))
	}
	for i, lr := range c.DAS.LearningRates {
		// Adam's step is about lr per parameter: above 1 it diverges.
		if !(lr > 0 && lr <= 1) {
			errs = append(errs, fmt.Errorf("train.das.learning_rates[%d]: must be in (0, 1], got %v", i, lr))
		}
	}
	return errors.Join(errs...)
}

// DASEachCluster as train.das.cluster trains every model of a trace-source
// family (das, dl2, rifling) once per cluster it is evaluated on.
const DASEachCluster = "each"

// modelKey names the model directory (under models/) a learned scheduler
// uses on a cluster: a trace-source model is trained on train.das.cluster
// and serves every cluster ("das"), or with cluster "each" is trained per
// cluster like a MARL-workload model ("marl-device/fattree-k8-power8").
// das-tuning's das-h4 and das-tau8 use das's model (Variant.Model).
func (c *Config) modelKey(canon schedulers.Name, cluster sim.ClusterSpec) string {
	f, v, ok := training.VariantOf(canon)
	if !ok { // a heuristic: no model (callers look the key up and miss)
		return string(canon) + "/" + plan.ClusterID(cluster)
	}
	m := string(v.ModelName())
	if f.Source() == training.SourceTrace && !c.perCluster(v) {
		return m
	}
	return m + "/" + plan.ClusterID(cluster)
}

// perCluster reports whether a trace-source variant's models are trained
// once per cluster they are evaluated on: all of them under "each", and a
// variant whose model is built for one machine count (Variant.PerCluster)
// always.
func (c *Config) perCluster(v training.Variant) bool {
	return c.Train.DAS.Cluster == DASEachCluster || v.PerCluster
}

// replicas is how many models of canon the run trains under model key
// (modelKey): train.seeds when train.replicated selects it, else 1.
func (c *Config) replicas(canon schedulers.Name, key string) int {
	if c.Train.Seeds <= 1 {
		return 1
	}
	if len(c.Train.Replicated) == 0 {
		return c.Train.Seeds
	}
	_, v, _ := training.VariantOf(canon)
	model := string(v.ModelName())
	for _, e := range c.Train.Replicated {
		name, cluster, hasCluster := strings.Cut(e, "@")
		n, err := schedulers.Canonical(name)
		if err != nil {
			continue // Validate refused it
		}
		if _, ev, ok := training.VariantOf(n); !ok || string(ev.ModelName()) != model {
			continue
		}
		if !hasCluster || key == model+"/"+cluster {
			return c.Train.Seeds
		}
	}
	return 1
}

// trainStages returns a training stage for every model the configured
// experiments' learned schedulers need, each once (the first experiment
// naming a model sets its simulator configuration and interference
// model), and the artifacts evaluation reads from each (by modelKey):
// models holds the first model's (replicate 0), replicas every
// replicate's, in order, for the keys that train.seeds replicates.
func (c *Config) trainStages(plan *runPlan) ([]pipeline.Stage, map[string][]string, map[string][][]string, error) {
	var stages []pipeline.Stage
	models := map[string][]string{}
	replicas := map[string][][]string{}
	plans := map[string]*ModelTraining{}
	for _, pe := range plan.experiments {
		spec, fitted, id := withoutArrivals(pe.spec), pe.fitted, pe.spec.Experiment
		names, err := spec.SchedulerNames()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("eval (%s): %w", id, err)
		}
		for _, canon := range names {
			if !canon.Learned() {
				continue
			}
			for _, cl := range spec.Clusters {
				key := c.modelKey(canon, cl.Spec)
				if p, done := plans[key]; done {
					// One model serves both experiments only if they
					// simulate alike.
					if p.Sim != spec.Sim || p.Fitted != fitted {
						return nil, nil, nil, fmt.Errorf("train %s: experiments %s and %s simulate differently (sim config or fitted interference) but share the model", key, p.Experiment, id)
					}
					continue
				}
				mt, err := c.planTraining(canon, spec, fitted, cl)
				if err != nil {
					return nil, nil, nil, err
				}
				stages = append(stages, mt.stage(c.JobsArtifact()))
				models[key], plans[key] = mt.Outputs(), mt
				if n := c.replicas(canon, key); n > 1 {
					all := [][]string{mt.Outputs()}
					for r := 1; r < n; r++ {
						rm := mt.Replica(r)
						stages = append(stages, rm.stage(c.JobsArtifact()))
						all = append(all, rm.Outputs())
					}
					replicas[key] = all
				}
			}
		}
	}
	return stages, models, replicas, nil
}

// ModelTraining is one model to train: the variant, the cluster, where
// its jobs come from and every setting. Its JSON is the training stage's
// configuration (the cache key); the pipeline's stage and `schedlab
// train` build it with the same function (PlanTraining) and train it with
// the same one (Train), so that the two cannot disagree.
type ModelTraining struct {
	// Scheduler is the model trained (a Variant.ModelName).
	Scheduler schedulers.Name `json:"scheduler"`
	// Experiment whose simulator configuration and interference the
	// model trains under.
	Experiment string `json:"experiment"`
	// Cluster trained on: its label in curves and sidecars, and spec.
	Cluster     string          `json:"cluster"`
	ClusterSpec sim.ClusterSpec `json:"cluster_spec"`
	Sim         sim.Config      `json:"sim"`
	// Fitted: speeds from the fitted interference model (fit/model.json).
	Fitted bool `json:"fitted"`
	// Data says how TrainingData draws the training and validation jobs.
	Data DataSetup `json:"data"`
	// Config is the family's, decoded from train.<section>.
	Config training.Config `json:"config"`
	// Replicate numbers the independently trained models of the same plan
	// (train.seeds); 0, the first, is left out of the JSON so that a run
	// with one model per key keeps its cache keys.
	Replicate int `json:"replicate,omitempty"`
	// Key is the model directory under models/ (modelKey; a replicate
	// r ≥ 1 adds /replicate-<r>).
	Key string `json:"-"`
	// base is replicate 0's stage name, which names a replicate's streams.
	base string

	family training.Family
}

// DataSetup parameterises TrainingData.
type DataSetup struct {
	Source training.Source `json:"source"`
	// SourceTrace: the experiment's trace workload's cut (the kept jobs and
	// the evaluated share) and the clusters it evaluates on (a job that
	// cannot fit one of them is pruned, as evaluation prunes it).
	MaxJobs      int               `json:"max_jobs,omitempty"`
	TestFraction float64           `json:"test_fraction,omitempty"`
	EvalClusters []sim.ClusterSpec `json:"eval_clusters,omitempty"`
	// SourceMARL: the load and length of the uniform arrivals, and the
	// partitions held out per (0: one per pod).
	JobsPerPod float64 `json:"jobs_per_pod,omitempty"`
	Intervals  int     `json:"intervals,omitempty"`
	Parts      int     `json:"parts,omitempty"`
}

// sourceExperiment is the experiment a family trains under when no
// configured experiment names its variant (`schedlab train`).
var sourceExperiment = map[training.Source]string{
	training.SourceTrace: evaluation.DASTable1,
	training.SourceMARL:  evaluation.MARLArrivals,
}

// PlanTraining plans the training of learned scheduler name as run
// would: under experiment (empty: the first configured experiment naming
// it, else its source's default experiment), on the experiment's cluster
// called cluster (empty: the first; a trace-source model trains on
// train.das.cluster unless that is "each").
func (c *Config) PlanTraining(name, experiment, cluster string) (*ModelTraining, error) {
	canon, err := schedulers.Canonical(name)
	if err != nil {
		return nil, err
	}
	f, _, ok := training.VariantOf(canon)
	if !ok {
		return nil, fmt.Errorf("train: %s is not a learned scheduler (learned: %v)", canon, schedulers.LearnedNames())
	}
	plan, err := c.plan("")
	if err != nil {
		return nil, err
	}
	if experiment == "" {
		for _, pe := range plan.experiments {
			names, err := pe.spec.SchedulerNames()
			if err != nil {
				return nil, fmt.Errorf("eval (%s): %w", pe.spec.Experiment, err)
			}
			if slices.Contains(names, canon) {
				experiment = pe.spec.Experiment
				break
			}
		}
	}
	if experiment == "" {
		experiment = sourceExperiment[f.Source()]
	}
	pe, ok := plan.experiment(experiment)
	if !ok { // an experiment the configuration does not list
		spec, inputs, fitted, err := c.experimentSpec(experiment, "")
		if err != nil {
			return nil, err
		}
		pe = plannedExperiment{spec: spec, inputs: inputs, fitted: fitted}
	}
	spec, fitted := pe.spec, pe.fitted
	for _, cl := range spec.Clusters {
		if cluster == "" || cl.Name == cluster {
			return c.planTraining(canon, spec, fitted, cl)
		}
	}
	var names []string
	for _, cl := range spec.Clusters {
		names = append(names, cl.Name)
	}
	return nil, fmt.Errorf("train: experiment %s has no cluster %q (clusters: %s)", experiment, cluster, strings.Join(names, ", "))
}

// planTraining plans the model of canon that spec evaluates on cl.
func (c *Config) planTraining(canon schedulers.Name, spec evaluation.Spec, fitted bool, cl evaluation.Cluster) (*ModelTraining, error) {
	f, v := training.MustVariant(canon)
	mt := &ModelTraining{Scheduler: v.ModelName(), Experiment: spec.Experiment, Sim: spec.Sim, Fitted: fitted,
		Key: c.modelKey(canon, cl.Spec), family: f, Data: DataSetup{Source: f.Source()}}
	switch f.Source() {
	case training.SourceTrace:
		mt.Cluster, mt.ClusterSpec = cl.Name, cl.Spec
		if !c.perCluster(v) {
			mt.Cluster = c.Train.DAS.Cluster
			var err error
			if mt.ClusterSpec, err = sim.Preset(c.Train.DAS.Cluster); err != nil {
				return nil, fmt.Errorf("train.das.cluster: %w", err)
			}
		}
		for _, w := range spec.Workloads {
			if w.Kind == evaluation.KindTrace {
				mt.Data.MaxJobs, mt.Data.TestFraction = w.MaxJobs, w.TestFraction
				break
			}
		}
		for _, ec := range spec.Clusters {
			mt.Data.EvalClusters = append(mt.Data.EvalClusters, ec.Spec)
		}
		if mt.Data.MaxJobs == 0 {
			return nil, fmt.Errorf("train %s: experiment %s has no trace workload to train on", canon, spec.Experiment)
		}
	case training.SourceMARL:
		mt.Cluster, mt.ClusterSpec = plan.ClusterID(cl.Spec), cl.Spec
		built, err := cl.Spec.Build()
		if err != nil {
			return nil, err
		}
		mt.Data.JobsPerPod, mt.Data.Intervals, mt.Data.Parts = evaluation.MARLPaperLoad(built), c.Train.MARL.Intervals, v.Parts
	}
	cfg, err := c.familyConfig(f)
	if err != nil {
		return nil, fmt.Errorf("train %s: %w", canon, err)
	}
	mt.Config = cfg
	return mt, nil
}

// familyConfig is f's config, taken from the train.* sections it reads
// (Family.Configure), validated.
func (c *Config) familyConfig(f training.Family) (training.Config, error) {
	cfg := f.Configure(training.Sections{DAS: c.Train.DAS, MARL: c.Train.MARL})
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("train.%s.%w", f.Section(), err)
	}
	return cfg, nil
}

// Replica is replicate r ≥ 1 of the plan m (replicate 0): the same
// training into models/<key>/replicate-<r>/, from its own streams
// (ReplicaSeeds).
func (m *ModelTraining) Replica(r int) *ModelTraining {
	c := *m
	c.Replicate, c.base = r, m.StageName()
	c.Key = fmt.Sprintf("%s/replicate-%d", m.Key, r)
	return &c
}

// ReplicaSeeds are the random streams of replicate r ≥ 1 of the model
// whose replicate-0 stage is base: its training workload (SourceMARL) is
// pipeline.Rand(seed, base, "workload", "replicate", r) and its model seed
// pipeline.Seed(seed, base, "model", "replicate", r), independent of
// replicate 0's (seed, base, "workload") and (seed, base, "model") and of
// each other.
func ReplicaSeeds(seed uint64, base string, r int) (workload *rand.Rand, model uint64) {
	rs := strconv.Itoa(r)
	model, _ = pipeline.Seed(seed, pipeline.StageStream(base), "model", "replicate", rs)
	return pipeline.Rand(seed, pipeline.StageStream(base), "workload", "replicate", rs), model
}

// Family is the family that trains the model.
func (m *ModelTraining) Family() training.Family { return m.family }

// StageName is the pipeline's name of the training: its random streams
// (workload, model) are named after it.
func (m *ModelTraining) StageName() string { return "train-" + strings.ReplaceAll(m.Key, "/", "-") }

// Outputs are the run-directory paths of the model's files.
func (m *ModelTraining) Outputs() []string {
	var outs []string
	for _, f := range m.family.Files(m.Scheduler) {
		outs = append(outs, path.Join(plan.ModelDir(m.Key), f))
	}
	return outs
}

// trainingVersion is a training stage's version: the stages' and, for a
// training.Versioned family, its own ("3/marl-2").
func trainingVersion(f training.Family) string {
	if v := training.Version(f); v != "" {
		return stageVersion + "/" + f.Name() + "-" + v
	}
	return stageVersion
}

// stage is the pipeline stage that trains the model into models/<key>/.
func (m *ModelTraining) stage(jobsArtifact string) pipeline.Stage {
	var in []string
	if m.Data.Source == training.SourceTrace {
		in = append(in, jobsArtifact)
	}
	in = append(in, m.speed().Inputs()...)
	outs := m.Outputs()
	return &pipeline.Func{
		StageName: m.StageName(), StageVersion: trainingVersion(m.family), In: in, Out: outs, Cfg: m,
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
				if !m.spreads() {
					return m.trainOnExecutor(ctx, env, jobsArtifact) // traintask.go
				}
				var err error
				if spread, err = m.spreadOn(env, jobsArtifact); err != nil {
					return err
				}
				resume, resumeDir = stageCheckpoints(env)
			}
			in := m.Inputs(env.Seed)
			in.Meta.ConfigHash = env.ConfigHash
			var err error
			if m.Data.Source == training.SourceTrace {
				if in.Trace, err = datasets.ReadParquet[datasets.Job](env.Input(jobsArtifact)); err != nil {
					return err
				}
			}
			speeds, err := m.speed().Resolve(m.speed().RunSources(env.Input))
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
			err = m.Train(ctx, spec)
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

// TrainInputs are what a training reads besides its plan: the run's
// trace, interference model, random streams and labels.
type TrainInputs struct {
	// Trace is the experiment's whole job trace (SourceTrace).
	Trace []datasets.Job
	// Interference: the fitted model when Fitted; nil otherwise.
	Interference sim.Interference
	// Workload draws the synthetic jobs (SourceMARL):
	// pipeline.Rand(seed, StageName(), "workload").
	Workload *rand.Rand
	// Seed seeds the model: pipeline.Seed(seed, StageName(), "model").
	Seed     uint64
	Meta     datasets.FileMeta
	Progress func(done, total int)
	Curve    func(training.Curve)
}

// Spec builds the family's TrainSpec: the cluster, the jobs from
// TrainingData, the experiment's simulator configuration.
func (m *ModelTraining) Spec(dir string, in TrainInputs) (training.TrainSpec, error) {
	cluster, err := m.ClusterSpec.Build()
	if err != nil {
		return training.TrainSpec{}, err
	}
	if m.Data.Source == training.SourceTrace {
		cluster.Name = m.Cluster
	}
	data, err := TrainingData(m.Data, cluster, m.Sim, in.Trace, in.Workload)
	if err != nil {
		return training.TrainSpec{}, fmt.Errorf("train %s: %w", m.Scheduler, err)
	}
	return training.TrainSpec{Variant: m.Scheduler, Dir: dir, Cluster: cluster, ClusterName: m.Cluster, Data: data,
		Sim: m.Sim, Interference: in.Interference, Seed: in.Seed, Config: m.Config, Meta: in.Meta, Progress: in.Progress, Curve: in.Curve}, nil
}

// Train trains the model of spec (from Spec: call it once, it draws the
// workload) into spec.Dir, which it creates.
func (m *ModelTraining) Train(ctx context.Context, spec training.TrainSpec) error {
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return err
	}
	if err := m.family.Train(ctx, spec); err != nil {
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

// trainValFraction is the share of a trace's training part (the jobs
// before the evaluated ones) that validates (DAS: 8:2); marlHeldOut is the
// share of each MARL scheduler's jobs held out (MARL §VI-A: 90 % train).
const (
	trainValFraction = 0.2
	marlHeldOut      = 0.1
)

// TrainingData is the one split of the jobs a learned family trains and
// validates on; the pipeline and `schedlab train` both call it, so that
// neither can train or validate on an evaluated job.
//
//   - SourceTrace: datasets.SplitTrace, the cut evaluation makes (sorted,
//     jobs that cannot fit every evaluated cluster pruned, the first
//     MaxJobs kept, the last TestFraction evaluated), its training part
//     split 8:2 into training and validation; then daspaper.PrepareJobs on the
//     training cluster.
//   - SourceMARL: uniform arrivals of JobsPerPod jobs per pod per interval
//     for Intervals intervals drawn from workload, the last 10 % of each
//     of Parts partitions (0: one per pod) validating.
func TrainingData(d DataSetup, cluster *sim.Cluster, sc sim.Config, trace []datasets.Job, workload *rand.Rand) (training.Data, error) {
	switch d.Source {
	case training.SourceTrace:
		clusters := make([]*sim.Cluster, len(d.EvalClusters))
		for i, cs := range d.EvalClusters {
			c, err := cs.Build()
			if err != nil {
				return training.Data{}, fmt.Errorf("cluster %s: %w", plan.ClusterID(cs), err)
			}
			clusters[i] = c
		}
		ts, err := datasets.SplitTrace(trace, sim.Pruner(clusters, sc),
			datasets.TraceSplit{MaxJobs: d.MaxJobs, TestFraction: d.TestFraction, ValFraction: trainValFraction})
		if err != nil {
			return training.Data{}, err
		}
		split, err := daspaper.PrepareJobs(cluster, ts, sc)
		data := training.Data{Train: split.Train, Val: split.Val}
		if err == nil {
			err = data.Check(d.Source)
		}
		if err != nil && !errors.Is(err, training.ErrNoTrainingJobs) {
			return training.Data{}, err
		}
		if err != nil {
			return data, fmt.Errorf("the trace's first %d jobs that fit every evaluated cluster, the last %g %% evaluated: %w (raise eval.das_table1.max_jobs, or use a longer trace)",
				d.MaxJobs, 100*d.TestFraction, err)
		}
		return data, nil
	case training.SourceMARL:
		jobs, err := datasets.GenerateMARL(datasets.MARLWorkload{Kind: datasets.MARLUniform, Pods: cluster.Pods,
			JobsPerPod: d.JobsPerPod, Intervals: d.Intervals, IntervalS: sc.IntervalS}, workload)
		if err != nil {
			return training.Data{}, err
		}
		parts := d.Parts
		if parts == 0 {
			parts = cluster.Pods
		}
		train, val := datasets.SplitMARL(jobs, parts, marlHeldOut, sc.IntervalS)
		data := training.Data{Train: train, Val: val}
		if err := data.Check(d.Source); err != nil {
			return data, fmt.Errorf("%d jobs in %d intervals of uniform arrivals at %.3g per pod, each of %d partitions holding out the last %g %% of its jobs, at least one: %w (raise train.marl.intervals)",
				len(jobs), d.Intervals, d.JobsPerPod, parts, 100*marlHeldOut, err)
		}
		return data, nil
	}
	return training.Data{}, fmt.Errorf("unknown training source %d", d.Source)
}

// speed is the speed model the training simulates with.
func (m *ModelTraining) speed() plan.SpeedModel { return plan.SpeedOf(m.Sim, m.Fitted) }
