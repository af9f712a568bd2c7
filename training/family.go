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

// The fixed key parts that the families' streams share, each under the
// family's own stream (its Stage, or Stream and its name): the model's
// initialisation, the blank model a checkpoint is read into, a training
// run's segments, actions and minibatches (one stream each, so that a
// resumed run draws what an unbroken one would), an episode's draws and
// the job groups' k-means.
const (
	KeyInit        pipeline.Key = "init"
	KeyLoad        pipeline.Key = "load"
	KeySegments    pipeline.Key = "segments"
	KeyActions     pipeline.Key = "actions"
	KeyMinibatches pipeline.Key = "minibatches"
	KeyEpisode     pipeline.Key = "episode"
	KeyKMeans      pipeline.Key = "kmeans"
)

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
	// the family's settings (das, marl): a section declared with
	// DeclareSection, by this family's package or one it shares it with.
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
