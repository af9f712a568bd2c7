package stages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/das"
	"github.com/schedlab/schedlab/training/deepsys"
	"github.com/schedlab/schedlab/training/dl2"
	"github.com/schedlab/schedlab/training/marl"
	"github.com/schedlab/schedlab/training/rifling"
)

// TrainConfig sizes the training of the learned schedulers that the
// evaluation experiments name. Which models are trained follows from the
// experiments' scheduler lists: a learned name there adds its training
// stage to the DAG.
type TrainConfig struct {
	MARL MARLTrainConfig `mapstructure:"marl" yaml:"marl" json:"marl"`
	DAS  DASTrainConfig  `mapstructure:"das" yaml:"das" json:"das"`
}

// DASTrainConfig sizes the training of the DAS-paper learned schedulers
// (das, da, da+mc, da+rwgp, dl2, rifling) that das-table1 names. They
// train on the training part of das-table1's trace (the first 80 %; of it
// the last fifth validates), never on the jobs the table evaluates. Their
// trainers simulate with the simulator's default interference (they take
// no model), as das-table1 evaluates by default.
type DASTrainConfig struct {
	// Cluster the models train on (small, medium, large), each model then
	// evaluated on every cluster (the policies do not depend on the machine
	// count); or "each": every model trained once per cluster it is
	// evaluated on, as in the paper (three times the training).
	Cluster string `mapstructure:"cluster" yaml:"cluster" json:"cluster"`
	// Episodes per learning rate, and jobs per episode (1000 in the paper).
	Episodes    int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
	SegmentJobs int `mapstructure:"segment_jobs" yaml:"segment_jobs" json:"segment_jobs"`
	// LearningRates of DAS and its ablations, chosen from by validation
	// (the paper's grid: 1e-4, 5e-5, 1e-5, 5e-6, 1e-6).
	LearningRates []float64 `mapstructure:"learning_rates" yaml:"learning_rates" json:"learning_rates"`
	// ValJobs caps the validation jobs simulated after each episode; 0 all.
	ValJobs int `mapstructure:"val_jobs" yaml:"val_jobs" json:"val_jobs"`
}

// MARLTrainConfig sizes the training of the MARL-GNN variants and of the
// DeepSys and Atte baselines, on marl-arrivals' cluster and load.
type MARLTrainConfig struct {
	// Episodes of MARL training (passes over the training jobs); 0 means
	// the family's default.
	Episodes int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
	// AtteEpisodes of Atte training; 0 means the default.
	AtteEpisodes int `mapstructure:"atte_episodes" yaml:"atte_episodes" json:"atte_episodes"`
	// Intervals of uniform arrivals in the training workload (90 % of each
	// pod's jobs train, 10 % validate, as in the paper).
	Intervals int `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
}

// Validate names the bad key in full.
func (c TrainConfig) Validate() error {
	var errs []error
	if c.MARL.Episodes < 0 || c.MARL.AtteEpisodes < 0 {
		errs = append(errs, fmt.Errorf("train.marl.episodes, train.marl.atte_episodes: must be >= 0, got %d, %d", c.MARL.Episodes, c.MARL.AtteEpisodes))
	}
	if c.MARL.Intervals < 1 {
		errs = append(errs, fmt.Errorf("train.marl.intervals: must be >= 1, got %d", c.MARL.Intervals))
	}
	if !slices.Contains([]string{"small", "medium", "large", DASEachCluster}, c.DAS.Cluster) {
		errs = append(errs, fmt.Errorf("train.das.cluster: must be small, medium, large or %s, got %q", DASEachCluster, c.DAS.Cluster))
	}
	if c.DAS.Episodes < 1 || c.DAS.SegmentJobs < 1 || c.DAS.ValJobs < 0 {
		errs = append(errs, fmt.Errorf("train.das.episodes, segment_jobs, val_jobs: must be >= 1, >= 1, >= 0, got %d, %d, %d", c.DAS.Episodes, c.DAS.SegmentJobs, c.DAS.ValJobs))
	}
	if len(c.DAS.LearningRates) == 0 {
		errs = append(errs, errors.New("train.das.learning_rates: give at least one"))
	}
	for i, lr := range c.DAS.LearningRates {
		if !(lr > 0) {
			errs = append(errs, fmt.Errorf("train.das.learning_rates[%d]: must be > 0, got %v", i, lr))
		}
	}
	return errors.Join(errs...)
}

// ModelDir is the run-directory folder of a learned scheduler's model.
func ModelDir(scheduler string) string { return "models/" + scheduler }

// marlModels are the learned schedulers trained on the MARL workload and
// the files each model directory holds.
var marlModels = map[string][]string{
	"marl-device": {marl.CheckpointFile, marl.SidecarFile, training.CurvesFile},
	"marl-server": {marl.CheckpointFile, marl.SidecarFile, training.CurvesFile},
	"marl-single": {marl.CheckpointFile, marl.SidecarFile, training.CurvesFile},
	"deepsys":     {deepsys.CheckpointFile, deepsys.SidecarFile},
	"atte":        {deepsys.CheckpointFile, deepsys.SidecarFile, training.CurvesFile},
}

// marlTrainSetup is what a MARL-workload training depends on.
type marlTrainSetup struct {
	Scheduler  string          `json:"scheduler"`
	Cluster    sim.ClusterSpec `json:"cluster"`
	JobsPerPod float64         `json:"jobs_per_pod"`
	Intervals  int             `json:"intervals"`
	Episodes   int             `json:"episodes"`
	Fitted     bool            `json:"fitted"` // speeds from fit/model.json
}

// ClusterID names a cluster spec in model directories and stage names:
// fattree-k8-power8, vl2-k4-dgx1, bcube-n4-k2-power8, flat-n8-pai-v100.
func ClusterID(c sim.ClusterSpec) string {
	switch c.Topology {
	case "fattree", "vl2":
		return fmt.Sprintf("%s-k%d-%s", c.Topology, c.K, c.Servers)
	case "bcube":
		return fmt.Sprintf("bcube-n%d-k%d-%s", c.N, c.K, c.Servers)
	}
	return fmt.Sprintf("%s-n%d-%s", c.Topology, c.N, c.Servers)
}

// dasModelName is the model a DAS-paper learned scheduler loads: itself,
// except that the das-tuning rows at the default h and τ are das.
func dasModelName(canon string) (string, bool) {
	if h, tau, ok := evaluation.DASTuningParams(canon); ok {
		d := das.DefaultConfig()
		if h == d.Heads && tau == d.History {
			return "das", true
		}
		return canon, true
	}
	_, ok := dasModels[canon]
	return canon, ok
}

// modelKey names the model a learned scheduler uses on a cluster: a
// DAS-paper model is trained on train.das.cluster and serves every cluster
// ("das"), or with cluster "each" is trained per cluster like a
// MARL-workload model ("marl-device/fattree-k8-power8").
func (c *Config) modelKey(canon string, cluster sim.ClusterSpec) string {
	if m, ok := dasModelName(canon); ok {
		if c.Train.DAS.Cluster != DASEachCluster {
			return m
		}
		canon = m
	}
	return canon + "/" + ClusterID(cluster)
}

// trainStages returns a training stage for every model the configured
// experiments' learned schedulers need, each once, and the artifacts
// evaluation reads from each (by modelKey; the first file is the one
// loadLearned opens).
func (c *Config) trainStages() ([]pipeline.Stage, map[string][]string, error) {
	var stages []pipeline.Stage
	models := map[string][]string{}
	for _, id := range c.Eval.Experiments {
		spec, _, fitted, err := c.experimentSpec(id, "")
		if err != nil {
			return nil, nil, err
		}
		for _, name := range spec.Schedulers {
			canon, _ := evaluation.CanonicalScheduler(name)
			if !evaluation.IsLearned(canon) {
				continue
			}
			for _, cl := range spec.Clusters {
				key := c.modelKey(canon, cl.Spec)
				if _, done := models[key]; done {
					continue
				}
				var st pipeline.Stage
				if m, ok := dasModelName(canon); ok {
					st, models[key] = c.dasTrainStage(m, key, cl, spec.Clusters)
				} else if st, models[key], err = c.marlTrainStage(canon, cl.Spec, fitted); err != nil {
					return nil, nil, err
				}
				stages = append(stages, st)
			}
		}
	}
	return stages, models, nil
}

// marlTrainStage trains a MARL-workload learned scheduler on one cluster,
// at the paper's load per pod, into models/<name>/<cluster id>/.
func (c *Config) marlTrainStage(canon string, cluster sim.ClusterSpec, fitted bool) (pipeline.Stage, []string, error) {
	files, ok := marlModels[canon]
	if !ok {
		return nil, nil, fmt.Errorf("train: no trainer for learned scheduler %s", canon)
	}
	built, err := cluster.Build()
	if err != nil {
		return nil, nil, err
	}
	setup := marlTrainSetup{Scheduler: canon, Cluster: cluster, JobsPerPod: evaluation.MARLPaperLoad(built),
		Intervals: c.Train.MARL.Intervals, Episodes: c.Train.MARL.Episodes, Fitted: fitted}
	if canon == "atte" {
		setup.Episodes = c.Train.MARL.AtteEpisodes
	}
	var outs []string
	for _, f := range files {
		outs = append(outs, path.Join(ModelDir(canon), ClusterID(cluster), f))
	}
	var in []string
	if setup.Fitted {
		in = []string{FitModel}
	}
	return &pipeline.Func{
		StageName: "train-" + canon + "-" + ClusterID(cluster), StageVersion: stageVersion, In: in, Out: outs, Cfg: setup,
		Fn: func(ctx context.Context, env *pipeline.Env) error { return trainMARLModel(ctx, env, setup, outs) },
	}, outs, nil
}

func trainMARLModel(ctx context.Context, env *pipeline.Env, setup marlTrainSetup, outs []string) error {
	cluster, err := setup.Cluster.Build()
	if err != nil {
		return err
	}
	var model sim.Interference
	if setup.Fitted {
		if model, err = FittedInterference(env.Input(FitModel)); err != nil {
			return err
		}
	}
	simCfg := sim.DefaultConfig()
	simCfg.Trigger, simCfg.IntervalS = sim.TriggerInterval, 1800
	jobs, err := datasets.GenerateMARL(datasets.MARLWorkload{Kind: datasets.MARLUniform, Pods: cluster.Pods,
		JobsPerPod: setup.JobsPerPod, Intervals: setup.Intervals, IntervalS: simCfg.IntervalS}, env.Rand("workload"))
	if err != nil {
		return err
	}
	dir := filepath.Dir(env.Output(outs[0]))
	for _, o := range outs {
		env.Output(o)
	}
	clusterName := ClusterID(setup.Cluster)
	seed, _ := pipeline.Seed(env.Seed, env.Stage(), "model")
	var curves []training.Curve
	switch setup.Scheduler {
	case "deepsys":
		train, _ := datasets.SplitMARL(jobs, cluster.Pods, 0.1, simCfg.IntervalS)
		m, _, err := deepsys.TrainDeepSys(ctx, deepsys.DefaultSpeedConfig(), cluster, train, simCfg, model, seed)
		if err != nil {
			return err
		}
		return m.Save(dir)
	case "atte":
		cfg := deepsys.DefaultAtteConfig()
		if setup.Episodes > 0 {
			cfg.Episodes = setup.Episodes
		}
		train, _ := datasets.SplitMARL(jobs, cluster.Pods, 0.1, simCfg.IntervalS)
		bar := env.Bar("episodes", int64(cfg.Episodes))
		at, err := deepsys.TrainAtte(ctx, cfg, cluster, train, simCfg, model, seed, func(c training.Curve) {
			c.Cluster = clusterName
			curves = append(curves, c)
			bar.Add(1)
		})
		bar.Done()
		if err != nil {
			return err
		}
		if err := at.Save(dir); err != nil {
			return err
		}
	default:
		variant := setup.Scheduler[len("marl-"):]
		cfg := marl.VariantConfig(variant)
		if setup.Episodes > 0 {
			cfg.Episodes = setup.Episodes
		}
		parts := cluster.Pods
		if variant == marl.VariantSingle {
			parts = 1
		}
		train, val := datasets.SplitMARL(jobs, parts, 0.1, simCfg.IntervalS)
		bar := env.Bar("episodes", int64(cfg.Episodes))
		pol, cs, err := marl.Train(ctx, cfg, marl.TrainOptions{Cluster: cluster, ClusterName: clusterName, Train: train, Validation: val,
			Sim: simCfg, Interference: model, Seed: seed, Episode: func(c training.Curve) {
				if c.Split == "train" {
					bar.Add(1)
				}
			}})
		bar.Done()
		if err != nil {
			return err
		}
		curves = cs
		if err := pol.Save(dir, map[string]string{"cluster": clusterName, "config_hash": env.ConfigHash}); err != nil {
			return err
		}
	}
	return training.WriteCurves(filepath.Join(dir, training.CurvesFile), datasets.FileMeta{Source: "train:" + setup.Scheduler, ConfigHash: env.ConfigHash}, curves)
}

// dasModels are the DAS-paper learned schedulers and their model files
// (the first is what loadLearned opens); a das-tuning row's files are
// <name>.ckpt and <name>.json.
var dasModels = map[string][]string{
	"das": {"das.ckpt", "das.json"}, "da": {"da.ckpt", "da.json"}, "da+mc": {"da+mc.ckpt", "da+mc.json"},
	"da+rwgp": {"da+rwgp.ckpt", "da+rwgp.json"}, "dl2": {"dl2.ckpt", "dl2.json"}, "rifling": {"rifling.json"},
}

// dasModelFiles are the files of the DAS-paper model name (dasModelName),
// the one loadLearned opens first.
func dasModelFiles(name string) []string {
	if files, ok := dasModels[name]; ok {
		return files
	}
	return []string{name + ".ckpt", name + ".json"}
}

// dasTrainSetup is what a DAS-paper training depends on besides the trace.
type dasTrainSetup struct {
	Scheduler string         `json:"scheduler"`
	Train     DASTrainConfig `json:"train"`
	MaxJobs   int            `json:"max_jobs"`
	TestFrac  float64        `json:"test_fraction"`
	// EvalClusters are the experiment's clusters: the trace is pruned
	// against them as evaluation prunes it, so that the held-out jobs are
	// exactly those evaluated.
	EvalClusters []evaluation.Cluster `json:"eval_clusters"`
	// Heads and History of a das-tuning row (0: the default h and τ).
	Heads   int `json:"heads,omitempty"`
	History int `json:"history,omitempty"`
	// Cluster trained on: its name (labels curves and the sidecar) and spec.
	Cluster     string          `json:"cluster"`
	ClusterSpec sim.ClusterSpec `json:"cluster_spec"`
}

// DASEachCluster as train.das.cluster trains every DAS-paper model once
// per cluster it is evaluated on.
const DASEachCluster = "each"

// dasTrainStage trains the DAS-paper model name (das, da, ..., dl2,
// rifling, or a das-tuning row) on the training part of das-table1's
// trace into models/<key>/: on train.das.cluster, or with "each" on
// evalCluster.
func (c *Config) dasTrainStage(name, key string, evalCluster evaluation.Cluster, evalClusters []evaluation.Cluster) (pipeline.Stage, []string) {
	setup := dasTrainSetup{Scheduler: name, Train: c.Train.DAS, MaxJobs: c.Eval.DASTable1.MaxJobs, TestFrac: c.Eval.DASTable1.TestFraction,
		EvalClusters: evalClusters, Cluster: evalCluster.Name, ClusterSpec: evalCluster.Spec}
	if c.Train.DAS.Cluster != DASEachCluster {
		setup.Cluster = c.Train.DAS.Cluster
		setup.ClusterSpec, _ = sim.Preset(c.Train.DAS.Cluster)
	}
	setup.Heads, setup.History, _ = evaluation.DASTuningParams(name)
	files := dasModelFiles(name)
	outs := []string{}
	for _, f := range append(slices.Clone(files), training.CurvesFile) {
		outs = append(outs, path.Join("models", key, f))
	}
	stage := "train-" + strings.ReplaceAll(key, "/", "-")
	jobs := c.JobsArtifact()
	return &pipeline.Func{
		StageName: stage, StageVersion: stageVersion, In: []string{jobs}, Out: outs, Cfg: setup,
		Fn: func(ctx context.Context, env *pipeline.Env) error { return trainDASModel(ctx, env, setup, jobs, outs) },
	}, outs
}

func trainDASModel(ctx context.Context, env *pipeline.Env, setup dasTrainSetup, jobsPath string, outs []string) error {
	cluster, err := setup.ClusterSpec.Build()
	if err != nil {
		return err
	}
	cluster.Name = setup.Cluster
	jobs, err := datasets.ReadParquet[datasets.Job](env.Input(jobsPath))
	if err != nil {
		return err
	}
	sc := sim.DefaultConfig()
	// The trace is cut as das-table1 cuts it (the same clusters prune it),
	// so that neither training nor the choice of learning rate sees an
	// evaluated job; the part before the evaluated jobs is split 8:2 into
	// training and validation.
	evalClusters := make([]*sim.Cluster, len(setup.EvalClusters))
	for i, ec := range setup.EvalClusters {
		if evalClusters[i], err = ec.Spec.Build(); err != nil {
			return fmt.Errorf("cluster %s: %w", ec.Name, err)
		}
		evalClusters[i].Name = ec.Name
	}
	ts, err := datasets.SplitTrace(jobs, sim.Pruner(evalClusters, sc), datasets.TraceSplit{MaxJobs: setup.MaxJobs, TestFraction: setup.TestFrac, ValFraction: 0.2})
	if err != nil {
		return err
	}
	split, err := das.PrepareJobs(cluster, ts, sc)
	if err != nil {
		return err
	}
	for _, o := range outs {
		env.Output(o)
	}
	dir := filepath.Dir(env.Output(outs[0]))
	seed, _ := pipeline.Seed(env.Seed, env.Stage(), "model")
	t := setup.Train
	bar := env.Bar("episodes", int64(t.Episodes))
	defer bar.Done()
	var curves []training.Curve
	onEp := func(rows []training.Curve) {
		bar.Add(1)
		curves = append(curves, rows...)
	}
	file := env.Output(outs[0])
	switch setup.Scheduler {
	case "dl2":
		cfg := dl2.DefaultConfig()
		cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs = t.Episodes, t.SegmentJobs, t.ValJobs
		res, err := dl2.Train(ctx, cfg, split, dl2.TrainOptions{Cluster: cluster, ClusterName: setup.Cluster, Sim: sc, Seed: seed, OnEpisode: onEp})
		if err != nil {
			return err
		}
		if err := dl2.Save(file, res.Model, setup.Cluster); err != nil {
			return err
		}
	case "rifling":
		cfg := rifling.DefaultConfig()
		cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs = t.Episodes, t.SegmentJobs, t.ValJobs
		res, err := rifling.Train(ctx, cfg, split, rifling.TrainOptions{Cluster: cluster, ClusterName: setup.Cluster, Sim: sc, Seed: seed, OnEpisode: onEp})
		if err != nil {
			return err
		}
		if err := rifling.Save(file, res.Policy, setup.Cluster); err != nil {
			return err
		}
	default:
		cfg := das.DefaultConfig()
		cfg.Variant = setup.Scheduler
		if setup.Heads > 0 {
			cfg.Variant, cfg.Heads, cfg.History = das.VariantDAS, setup.Heads, setup.History
		}
		cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs, cfg.LearningRates = t.Episodes, t.SegmentJobs, t.ValJobs, t.LearningRates
		bar.Done()
		bar = env.Bar("episodes", int64(t.Episodes*len(t.LearningRates)))
		res, err := das.Train(ctx, cfg, split, das.TrainOptions{Cluster: cluster, ClusterName: setup.Cluster, Sim: sc, Seed: seed,
			OnEpisode: func(_ float64, rows []training.Curve) { bar.Add(1) }})
		if err != nil {
			return err
		}
		best := res.Best()
		curves = best.Curves
		if err := das.Save(file, best.Model, das.Sidecar{Cluster: setup.Cluster, LR: best.LR, Norm: split.Norm}); err != nil {
			return err
		}
	}
	return training.WriteCurves(filepath.Join(dir, training.CurvesFile), datasets.FileMeta{Source: "train:" + setup.Scheduler, ConfigHash: env.ConfigHash}, curves)
}

// FittedInterference adapts the fitted model (model.json of the fit stage)
// to the simulator's interference interface, so that job speeds in
// training and evaluation come from the fitted model (DESIGN.md §4).
func FittedInterference(path string) (sim.Interference, error) {
	m, err := fitting.LoadModel(path)
	if err != nil {
		return nil, err
	}
	conv := func(ls []sim.JobLoad) []fitting.Load {
		out := make([]fitting.Load, len(ls))
		for i, l := range ls {
			out[i] = fitting.Load{CPUCores: l.C, PCIeGbps: l.P}
		}
		return out
	}
	return sim.InterferenceFunc(func(target sim.JobLoad, same, other []sim.JobLoad, cores int) float64 {
		return m.Predict(fitting.Load{CPUCores: target.C, PCIeGbps: target.P}, conv(same), conv(other), float64(cores))
	}), nil
}

// loadLearned loads a learned scheduler from its model's first file.
func loadLearned(name, file string, seed uint64) (sim.Scheduler, error) {
	dir := filepath.Dir(file)
	switch name {
	case "deepsys", "atte":
		return deepsys.Load(dir)
	case "marl-device", "marl-server", "marl-single":
		return marl.LoadScheduler(dir, marl.SchedulerOptions{Seed: seed})
	case "dl2":
		return dl2.Open(file)
	case "rifling":
		return rifling.Open(file)
	}
	if _, ok := dasModelName(name); ok {
		return das.Open(file)
	}
	return nil, fmt.Errorf("no loader for learned scheduler %s", name)
}

// OpenModel loads the learned scheduler name (canonical) for a cluster
// from modelsDir, a directory laid out as a run's models/: DAS-paper
// models in <name>/, MARL-workload models in <name>/<cluster id>/.
func OpenModel(modelsDir, name string, cluster sim.ClusterSpec, seed uint64) (sim.Scheduler, error) {
	var first string
	if m, ok := dasModelName(name); ok {
		first = dasModelFiles(m)[0]
	} else if files, ok := marlModels[name]; ok {
		first = files[0]
	} else {
		return nil, fmt.Errorf("no loader for learned scheduler %s", name)
	}
	// A model per cluster, or (DAS-paper models trained on one cluster)
	// one for all.
	file := filepath.Join(modelsDir, name, ClusterID(cluster), first)
	if m, ok := dasModelName(name); ok {
		file = filepath.Join(modelsDir, m, ClusterID(cluster), first)
		if _, err := os.Stat(file); err != nil {
			file = filepath.Join(modelsDir, m, first)
		}
	}
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("model of %s for cluster %s: %w (train it with schedlab run, whose models/ holds it)", name, ClusterID(cluster), err)
	}
	return loadLearned(name, file, seed)
}
