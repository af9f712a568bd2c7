package training

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// Stream names the random streams the MARL-GNN and DeepSys trainings
// draw under (pipeline.Rand(seed, Stream, family, ...)); the DAS paper's
// families draw under their own Stage.
const Stream pipeline.Stream = "train"

// Family is one learned scheduler family: it trains a model directory
// from a TrainSpec and opens one as a scheduler. A family package
// registers its value with Register in an init function; the pipeline
// (stages), `schedlab train`, `schedlab eval --models` and schedulers.New
// reach every family through the registry only.
type Family interface {
	// Name is the family's name (das, dl2, rifling, marl, deepsys): the
	// value of `schedlab train --family` and of schedulers.Info.Family.
	Name() string
	// Variants are the learned schedulers the family provides, the
	// default (`schedlab train` without --variant) first.
	Variants() []Variant
	// Source is where the family's training jobs come from.
	Source() Source
	// Section is the key under train.* of the run configuration that holds
	// the family's settings (das, marl): the field of Sections Configure
	// reads.
	Section() string
	// Configure returns a pointer to a fresh config holding the family's
	// settings, taken from its section of s; the stages record it in the
	// training stage's configuration.
	Configure(s Sections) Config
	// Files are the files a model directory of variant v holds, each a
	// name inside the directory: the pipeline declares them as the
	// training stage's outputs.
	Files(v schedulers.Name) []string
	// Train trains spec.Variant and writes its Files into spec.Dir.
	Train(ctx context.Context, spec TrainSpec) error
	// Open loads variant v from the model directory dir.
	Open(v schedulers.Name, dir string, opts schedulers.Options) (sim.Scheduler, error)
}

// A Versioned family names the revision of its training code. A training
// stage's cache key holds it beside the stages' own version, so that a
// change of code that changes what the family's trainings write does not
// reuse the models an older binary cached in the run directory. A family
// without it has the stages' version alone.
type Versioned interface {
	Family
	// Version is the revision; bump it with such a change.
	Version() string
}

// Version is f's revision (Versioned), "" when it has none.
func Version(f Family) string {
	if v, ok := f.(Versioned); ok {
		return v.Version()
	}
	return ""
}

// Config is a family's own settings (episodes, segment jobs, learning
// rates, ...): a pointer to a struct with JSON tags.
type Config interface {
	Validate() error
}

// Sections are the run configuration's train.das and train.marl, the
// settings the families share by source: each family's Configure reads the
// keys of its Section it knows. They are declared here, with the families
// that read them; the run configuration (plan.TrainConfig) holds them.
type Sections struct {
	DAS  DASSection
	MARL MARLSection
}

// SectionDefaults declares the sections with their types: each section's
// keys with their default values and a comment on each saying what it
// means, as YAML, by its key under train.* (the field of Sections in
// lower case). The run configuration's embedded defaults hold them under
// train.<key>, and `schedlab config defaults` prints them there.
// TestSectionDefaults holds them to the types: every key, decoded
// strictly, and every field given.
func SectionDefaults() map[string]string {
	return map[string]string{
		"marl": `# Training of the learned schedulers marl-arrivals names, on its fat-tree
# and load, with job speeds from the fitted interference model: episodes
# of MARL training (0: the family's default, 30) and of Atte
# (atte_episodes; 0: 20),
# over intervals of arrivals (90 % of each pod's jobs train).
episodes: 3
atte_episodes: 3
intervals: 10
# The training jobs' arrival pattern: uniform (the paper's load per pod
# in every interval) or google (each interval's count follows the run's
# ingested Google 2011 arrivals table, scaled to the same mean load: the
# MARL paper's training, §VI-A; needs datasets.ingest of google-2011).
arrivals: uniform
# Episodes of MARL training collected side by side per update (0 to
# 64; 0, the default, and 1 both mean one episode at a time, an update
# per interval): at each 30-minute decision point one update learns
# from all of them (the mean of their gradients) and Adam takes one
# step. The episodes go in iterations of this many, each rollout on a
# worker the run lends when idle; the model's bytes depend on this
# value, never on the workers. Each rollout holds about 0.35 GB at
# k = 20.
rollouts: 0
`,
		"das": `# Training of the DAS-paper learned schedulers das-table1 names (das,
# da, da+mc, da+rwgp, dl2, rifling) on the first 80 % of its trace (the
# last fifth of it validates; the evaluated jobs are never seen), on one
# cluster (small, medium, large), each model then evaluated on every
# cluster; or "each": one model per evaluated cluster, as in the paper
# (three times the training; models/<name>/<cluster id>/).
cluster: small
# Episodes per learning rate, of segment_jobs consecutive jobs (the
# paper: 1000), and the learning-rate grid chosen from by validation
# (learning_rates; the paper: 1e-4, 5e-5, 1e-5, 5e-6, 1e-6).
episodes: 1
segment_jobs: 60
learning_rates: [1e-4]
# Validation jobs simulated after each episode; 0 means all.
val_jobs: 30
# A DAS model (das, its ablations, das-mappo, the das-tuning rows) whose
# final policy's share of validation decisions unlike FIFO-FirstFit's
# exceeds the untrained reference's (a network that learned nothing,
# which differs by how it breaks ties) by less than this fails its
# training: it did not learn. 0 checks nothing.
min_not_fifo: 0
`,
	}
}

// DASSection (train.das) sizes the training of the DAS-paper learned
// schedulers (das, da, da+mc, da+rwgp, dl2, rifling) that das-table1
// names. They train on the training part of das-table1's trace (the first
// 80 %; of it the last fifth validates), never on the jobs the table
// evaluates (plan.TrainingData), under the simulator configuration and
// interference model of the first experiment that names them.
type DASSection struct {
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
	// MinNotFIFO is the least margin by which a trained DAS model's share
	// of validation decisions unlike FIFO-FirstFit's must exceed its
	// untrained reference's (das.UntrainedReference); 0 checks nothing.
	MinNotFIFO float64 `mapstructure:"min_not_fifo" yaml:"min_not_fifo" json:"min_not_fifo"`
}

// MARLSection (train.marl) sizes the training of the MARL-GNN variants and
// of the DeepSys and Atte baselines, on the evaluated cluster at the
// paper's load.
type MARLSection struct {
	// Episodes of MARL training (passes over the training jobs); 0 means
	// the family's default.
	Episodes int `mapstructure:"episodes" yaml:"episodes" json:"episodes"`
	// AtteEpisodes of Atte training; 0 means the default.
	AtteEpisodes int `mapstructure:"atte_episodes" yaml:"atte_episodes" json:"atte_episodes"`
	// Intervals of arrivals in the training workload (90 % of each pod's
	// jobs train, 10 % validate, as in the paper).
	Intervals int `mapstructure:"intervals" yaml:"intervals" json:"intervals"`
	// Arrivals is the training workload's arrival pattern: ArrivalsUniform
	// or ArrivalsGoogle (the run's Google 2011 arrivals table, MARL
	// §VI-A's "job arrival pattern … extracted from Google cluster
	// traces"); "" means uniform.
	Arrivals string `mapstructure:"arrivals" yaml:"arrivals" json:"arrivals,omitempty"`
	// Rollouts of MARL training collected side by side per update
	// (marl.Config.Rollouts); 0 (the default) and 1 are one episode at a
	// time. Omitted from the JSON at 0, so that a configuration without
	// the key hashes as before it existed.
	Rollouts int `mapstructure:"rollouts" yaml:"rollouts" json:"rollouts,omitempty"`
}

// Arrival patterns of MARL training workloads (MARLSection.Arrivals).
const (
	ArrivalsUniform = "uniform"
	ArrivalsGoogle  = "google"
)

// Variant is one learned scheduler of a family.
type Variant struct {
	// Info registers the scheduler (Info.Family is set by Register).
	Info schedulers.Info
	// Model is the variant whose trained model this one loads, "" for
	// itself: das-tuning's das-h4 and das-tau8 are the default das.
	Model schedulers.Name
	// PerCluster (SourceTrace) marks a model built for one cluster's
	// machine count: it is trained once per cluster it is evaluated on
	// whatever train.das.cluster says.
	PerCluster bool
	// Parts (SourceMARL) is the number of partitions whose last 10 % of
	// jobs are held out for validation; 0 means one per pod (the
	// single-agent variant holds out the last 10 % of all jobs).
	Parts int
}

// ModelName is the model v loads: v.Model, or v itself.
func (v Variant) ModelName() schedulers.Name {
	if v.Model != "" {
		return v.Model
	}
	return v.Info.Name
}

// Source names where a family's training jobs come from; the one split
// function (plan.TrainingData) turns it into training and validation
// jobs, never touching the jobs an experiment evaluates.
type Source int

const (
	// SourceTrace: the training part of das-table1's trace (the first
	// 1 − test_fraction of its kept jobs), split again 8:2 into training
	// and validation.
	SourceTrace Source = iota
	// SourceMARL: the MARL paper's synthetic uniform arrivals at the
	// paper's load per pod, 90 % of each partition's jobs training and the
	// last 10 % validating.
	SourceMARL
)

// Data are the jobs a training run learns from and validates on.
type Data struct {
	Train, Val []datasets.Job
}

// ErrNoTrainingJobs means a workload left a model nothing to learn from
// (a small MARL workload whose every partition holds out its only job, a
// trace cut with no training or validation job): the model cannot be
// trained, and a stage that meets it leaves the model out and says so
// rather than failing the run.
var ErrNoTrainingJobs = errors.New("no jobs to train on")

// Check reports, wrapping ErrNoTrainingJobs, data that a family of source
// s cannot train on: no training job, or (SourceTrace, whose families
// choose among their runs by validation) no validation job.
func (d Data) Check(s Source) error {
	if len(d.Train) == 0 || (s == SourceTrace && len(d.Val) == 0) {
		return fmt.Errorf("%w: %d training and %d validation jobs", ErrNoTrainingJobs, len(d.Train), len(d.Val))
	}
	return nil
}

// TrainSpec is everything one training run depends on.
type TrainSpec struct {
	// Variant is the scheduler to train (a ModelName of its family).
	Variant schedulers.Name
	// Dir is the model directory written (it exists).
	Dir string
	// Cluster trained on, and its label in curves and sidecars.
	Cluster     *sim.Cluster
	ClusterName string
	// Data: the training and validation jobs, from the one split function.
	Data Data
	// Sim is the experiment's simulator configuration (trigger, interval,
	// price, speed model).
	Sim sim.Config
	// Interference is the speed model; nil means sim.DefaultInterference.
	Interference sim.Interference
	// Seed seeds the model's initialisation and exploration.
	Seed uint64
	// Config is the family's config (from its DefaultConfig), validated.
	Config Config
	// Meta labels the curves file (source, configuration hash).
	Meta datasets.FileMeta
	// Progress, if not nil, is called after every training episode with
	// the number of episodes done and the total.
	Progress func(done, total int)
	// Curve, if not nil, is called with every curve row as it is made.
	Curve func(Curve)
	// Resume, if not nil, is where a family that trains in episodes saves
	// its state after each one and, when a previous attempt saved one,
	// continues from it (resume.go). Curve rows of the episodes done
	// before are not passed to Curve again.
	Resume *Resume
	// Spread, if not nil, runs the pieces of the training's steps that
	// can go side by side as tasks of the run's executor (a Spreader's
	// trainings that Spreads; spread.go).
	Spread Spread
}

// Step reports episode done of total through Progress (done 0: no
// episode ended, only rows) and rows through Curve; for families'
// trainers.
func (s TrainSpec) Step(done, total int, rows ...Curve) {
	if s.Progress != nil && done > 0 {
		s.Progress(done, total)
	}
	if s.Curve != nil {
		for _, r := range rows {
			s.Curve(r)
		}
	}
}

var (
	famMu    sync.RWMutex
	families = map[string]Family{}
	variants = map[schedulers.Name]string{} // variant → family
)

// Register adds a family and registers each of its variants with
// schedulers.Register, whose constructor opens opts.Model with the
// family's Open. It panics on a duplicate family or scheduler name:
// registration is a programmer's act, done once in an init.
func Register(f Family) {
	famMu.Lock()
	defer famMu.Unlock()
	name := f.Name()
	if _, dup := families[name]; dup || name == "" {
		panic("training: Register: family " + name + " registered twice or unnamed")
	}
	// Check every name first so that a panicking Register leaves the
	// registries as they were.
	for _, v := range f.Variants() {
		for _, n := range append([]string{string(v.Info.Name)}, v.Info.Aliases...) {
			if _, taken := schedulers.Lookup(n); taken {
				panic("training: Register: family " + name + ": scheduler " + n + " registered twice")
			}
		}
	}
	families[name] = f
	for _, v := range f.Variants() {
		info := v.Info
		info.Family = name
		vn := info.Name
		variants[vn] = name
		schedulers.Register(info, func(o schedulers.Options) (sim.Scheduler, error) {
			return f.Open(vn, o.Model, o)
		})
	}
}

// Lookup returns a registered family by name.
func Lookup(name string) (Family, bool) {
	famMu.RLock()
	defer famMu.RUnlock()
	f, ok := families[name]
	return f, ok
}

// Families lists the registered families' names, sorted.
func Families() []string {
	famMu.RLock()
	defer famMu.RUnlock()
	out := make([]string, 0, len(families))
	for n := range families {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// VariantOf returns the family and variant of a learned scheduler; false
// for a heuristic or an unknown name.
func VariantOf(name schedulers.Name) (Family, Variant, bool) {
	info, ok := schedulers.Lookup(string(name))
	if !ok || !info.Learned() {
		return nil, Variant{}, false
	}
	f, ok := Lookup(info.Family)
	if !ok {
		return nil, Variant{}, false
	}
	for _, v := range f.Variants() {
		if v.Info.Name == info.Name {
			return f, v, true
		}
	}
	return nil, Variant{}, false
}

// MustVariant is VariantOf for a name that a family registered.
func MustVariant(name schedulers.Name) (Family, Variant) {
	f, v, ok := VariantOf(name)
	if !ok {
		panic(fmt.Sprintf("training: %s is not a registered learned scheduler", name))
	}
	return f, v
}
