package plan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

// ModelKey names the model directory (under models/) a learned scheduler
// uses on a cluster: a trace-source model is trained on train.das.cluster
// and serves every cluster ("das"), or with cluster "each" is trained per
// cluster like a MARL-workload model ("marl-device/fattree-k8-power8").
// das-tuning's das-h4 and das-tau8 use das's model (Variant.Model).
func (c Config) ModelKey(canon schedulers.Name, cluster sim.ClusterSpec) string {
	f, v, ok := training.VariantOf(canon)
	if !ok { // a heuristic: no model (callers look the key up and miss)
		return string(canon) + "/" + ClusterID(cluster)
	}
	m := string(v.ModelName())
	if _, one := sourceOf(f.Source()).trainCluster(c, v); one {
		return m
	}
	return m + "/" + ClusterID(cluster)
}

// perCluster reports whether a trace-source variant's models are trained
// once per cluster they are evaluated on: all of them under "each", and a
// variant whose model is built for one machine count (Variant.PerCluster)
// always.
func (c Config) perCluster(v training.Variant) bool {
	return daspaper.Section.Get(c.Train.Sections).Cluster == DASEachCluster || v.PerCluster
}

// Replicas is how many models of canon the run trains under model key
// (ModelKey): train.seeds when train.replicated selects it, else 1.
func (c Config) Replicas(canon schedulers.Name, key string) int {
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

// Training is one model to train: the variant, the cluster, where
// its jobs come from and every setting. Its JSON is the training stage's
// configuration (the cache key); the pipeline's stage and `schedlab
// train` build it with the same function (Config.Training, TrainingOf) and
// train it with the same one (stages.Train), so that the two cannot disagree.
type Training struct {
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
	// SourceMARL: the load and length of the arrivals, and the
	// partitions held out per (0: one per pod).
	JobsPerPod float64 `json:"jobs_per_pod,omitempty"`
	Intervals  int     `json:"intervals,omitempty"`
	Parts      int     `json:"parts,omitempty"`
	// Pattern is the arrivals' (train.marl.arrivals): "" for uniform (so
	// that a uniform training keeps its cache key), marl.ArrivalsGoogle
	// for the counts of ArrivalsFile's first Intervals rows, scaled to
	// JobsPerPod on average. ArrivalsFile is the run artifact of the
	// arrivals table, an input of the training stage.
	Pattern      string `json:"pattern,omitempty"`
	ArrivalsFile string `json:"arrivals_file,omitempty"`
	// Shape is the evaluated workload's job shape (zero: the paper's),
	// so that a model trains on the jobs it is evaluated on.
	Shape datasets.MARLShape `json:"shape,omitzero"`
}

// Training plans the training of learned scheduler name as run
// would: under experiment (empty: the first configured experiment naming
// it, else its source's default experiment), on the experiment's cluster
// called cluster (empty: the first; a trace-source model trains on
// train.das.cluster unless that is "each").
func (c Config) Training(name, experiment, cluster string) (*Training, error) {
	canon, err := schedulers.Canonical(name)
	if err != nil {
		return nil, err
	}
	f, _, ok := training.VariantOf(canon)
	if !ok {
		return nil, fmt.Errorf("train: %s is not a learned scheduler (learned: %v)", canon, schedulers.LearnedNames())
	}
	p, err := New(c, "")
	if err != nil {
		return nil, err
	}
	if experiment == "" {
		for _, pe := range p.Experiments {
			names, err := pe.Spec.SchedulerNames()
			if err != nil {
				return nil, fmt.Errorf("eval (%s): %w", pe.Spec.Experiment, err)
			}
			if slices.Contains(names, canon) {
				experiment = pe.Spec.Experiment
				break
			}
		}
	}
	if experiment == "" {
		experiment = sourceOf(f.Source()).experiment()
	}
	pe, ok := p.Experiment(experiment)
	if !ok { // an experiment the configuration does not list
		if pe, err = c.Experiment(experiment, ""); err != nil {
			return nil, err
		}
	}
	spec, fitted := pe.Spec, pe.Fitted
	for _, cl := range spec.Clusters {
		if cluster == "" || cl.Name == cluster {
			return c.TrainingOf(canon, spec, fitted, cl)
		}
	}
	var names []string
	for _, cl := range spec.Clusters {
		names = append(names, cl.Name)
	}
	return nil, fmt.Errorf("train: experiment %s has no cluster %q (clusters: %s)", experiment, cluster, strings.Join(names, ", "))
}

// TrainingOf plans the model of canon that spec evaluates on cl.
func (c Config) TrainingOf(canon schedulers.Name, spec evaluation.Spec, fitted bool, cl evaluation.Cluster) (*Training, error) {
	f, v := training.MustVariant(canon)
	mt := &Training{Scheduler: v.ModelName(), Experiment: spec.Experiment, Sim: spec.Sim, Fitted: fitted,
		Key: c.ModelKey(canon, cl.Spec), family: f, Data: DataSetup{Source: f.Source()}}
	if err := sourceOf(f.Source()).setup(c, mt, canon, v, spec, cl); err != nil {
		return nil, err
	}
	cfg, err := c.familyConfig(f)
	if err != nil {
		return nil, fmt.Errorf("train %s: %w", canon, err)
	}
	mt.Config = cfg
	return mt, nil
}

// TrainingSim is the simulator configuration a MARL-workload model
// trains under when its experiment simulates under sc: sc with interval
// triggers (30-minute batches when sc sets no interval).
func TrainingSim(sc sim.Config) sim.Config {
	sc.Trigger = sim.TriggerInterval
	if sc.IntervalS == 0 {
		sc.IntervalS = 1800
	}
	return sc
}

// familyConfig is f's config, taken from the train.* sections it reads
// (Family.Configure), validated.
func (c Config) familyConfig(f training.Family) (training.Config, error) {
	cfg := f.Configure(c.Train.Sections)
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("train.%s.%w", f.Section(), err)
	}
	return cfg, nil
}

// Replica is replicate r ≥ 1 of the plan m (replicate 0): the same
// training into models/<key>/replicate-<r>/, from its own streams
// (ReplicaSeeds).
func (m *Training) Replica(r int) *Training {
	c := *m
	c.Replicate, c.base = r, m.StageName()
	c.Key = fmt.Sprintf("%s/replicate-%d", m.Key, r)
	return &c
}

// ReplicaSeeds are the random streams of replicate r ≥ 1 of the model
// whose replicate-0 stage is base: its training workload (SourceMARL) is
// pipeline.Rand(seed, base, workloadKey, replicateKey, r) and its model
// seed pipeline.Seed(seed, base, modelKey, replicateKey, r), independent
// of replicate 0's (seed, base, workloadKey) and (seed, base, modelKey) and of
// each other.
func ReplicaSeeds(seed uint64, base string, r int) (workload *rand.Rand, model uint64) {
	rs := pipeline.Index(r)
	model, _ = pipeline.Seed(seed, pipeline.StageStream(base), modelKey, replicateKey, rs)
	return pipeline.Rand(seed, pipeline.StageStream(base), workloadKey, replicateKey, rs), model
}

// Base is replicate 0's stage name for a replicate r ≥ 1 (it names the
// replicate's streams, ReplicaSeeds), "" for replicate 0.
func (m *Training) Base() string { return m.base }

// DecodeTraining decodes a training's JSON (its stage configuration, as
// an executor task carries it), its family config into the family's own
// type; base is the encoded training's Base.
func DecodeTraining(raw []byte, base string) (*Training, error) {
	var probe struct {
		Scheduler string `json:"scheduler"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("spec: model: %w", err)
	}
	f, _, ok := training.VariantOf(schedulers.Name(probe.Scheduler))
	if !ok {
		return nil, fmt.Errorf("spec: %q is not a learned scheduler of this build", probe.Scheduler)
	}
	// A config of the family's own type for the JSON to fill.
	mt := &Training{family: f, Config: f.Configure(training.Sections{}), base: base}
	if err := json.Unmarshal(raw, mt); err != nil {
		return nil, fmt.Errorf("spec: model: %w", err)
	}
	return mt, nil
}

// Family is the family that trains the model.
func (m *Training) Family() training.Family { return m.family }

// StageName is the pipeline's name of the training: its random streams
// (workload, model) are named after it.
func (m *Training) StageName() string { return "train-" + strings.ReplaceAll(m.Key, "/", "-") }

// Outputs are the run-directory paths of the model's files.
func (m *Training) Outputs() []string {
	var outs []string
	for _, f := range m.family.Files(m.Scheduler) {
		outs = append(outs, path.Join(ModelDir(m.Key), f))
	}
	return outs
}

// TrainInputs are what a training reads besides its plan: the run's
// trace, interference model, random streams and labels.
type TrainInputs struct {
	// Trace is the experiment's whole job trace (SourceTrace).
	Trace []datasets.Job
	// Arrivals is the arrivals table of Data.ArrivalsFile (SourceMARL
	// under the google pattern).
	Arrivals []datasets.Arrival
	// Interference: the fitted model when Fitted; nil otherwise.
	Interference sim.Interference
	// Workload draws the synthetic jobs (SourceMARL):
	// pipeline.Rand(seed, StageName(), workloadKey).
	Workload *rand.Rand
	// Seed seeds the model: pipeline.Seed(seed, StageName(), modelKey).
	Seed     uint64
	Meta     datasets.FileMeta
	Progress func(done, total int)
	Curve    func(training.Curve)
}

// Spec builds the family's TrainSpec: the cluster, the jobs from
// TrainingData, the experiment's simulator configuration.
func (m *Training) Spec(dir string, in TrainInputs) (training.TrainSpec, error) {
	cluster, err := m.ClusterSpec.Build()
	if err != nil {
		return training.TrainSpec{}, err
	}
	if sourceOf(m.Data.Source).namesCluster() {
		cluster.Name = m.Cluster
	}
	data, err := TrainingData(m.Data, cluster, m.Sim, in.Trace, in.Arrivals, in.Workload)
	if err != nil {
		return training.TrainSpec{}, fmt.Errorf("train %s: %w", m.Scheduler, err)
	}
	return training.TrainSpec{Variant: m.Scheduler, Dir: dir, Cluster: cluster, ClusterName: m.Cluster, Data: data,
		Sim: m.Sim, Interference: in.Interference, Seed: in.Seed, Config: m.Config, Meta: in.Meta, Progress: in.Progress, Curve: in.Curve}, nil
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
// Each source draws its own (source.go: traceSource.draw, marlSource.draw).
func TrainingData(d DataSetup, cluster *sim.Cluster, sc sim.Config, trace []datasets.Job, arrivals []datasets.Arrival, workload *rand.Rand) (training.Data, error) {
	src, ok := sources[d.Source]
	if !ok {
		return training.Data{}, fmt.Errorf("unknown training source %d", d.Source)
	}
	return src.draw(d, cluster, sc, trace, arrivals, workload)
}

// Speed is the speed model the training simulates with.
func (m *Training) Speed() SpeedModel { return SpeedOf(m.Sim, m.Fitted) }

// Inputs are the run-time inputs of the training m, but for the trace and
// the interference model: its random streams, drawn from the run seed
// under the training stage's name (replicate r ≥ 1: ReplicaSeeds), and the
// label of its files. The training stage, its executor task and
// `schedlab train` all take them from here.
func (m *Training) Inputs(seed uint64) TrainInputs { return m.InputsUnder(seed, m.StageName()) }

// InputsUnder is Inputs with the training stage's name given (an executor task
// decodes the plan without its model key, and carries the name).
func (m *Training) InputsUnder(seed uint64, stage string) TrainInputs {
	in := TrainInputs{Meta: datasets.FileMeta{Source: "train:" + string(m.Scheduler)}}
	if m.Replicate > 0 {
		in.Workload, in.Seed = ReplicaSeeds(seed, m.base, m.Replicate)
		in.Meta.Source += fmt.Sprintf("/replicate-%d", m.Replicate)
		return in
	}
	in.Workload, in.Seed = TrainStreams(seed, stage)
	return in
}

// TrainStreams are a training's workload stream and model seed under the
// stream key names (a training stage's name; a sensitivity grid point's
// stage, part and point).
func TrainStreams(seed uint64, stage string, names ...pipeline.Key) (*rand.Rand, uint64) {
	s := pipeline.StageStream(stage)
	model, _ := pipeline.Seed(seed, s, append(slices.Clone(names), modelKey)...)
	return pipeline.Rand(seed, s, append(slices.Clone(names), workloadKey)...), model
}

// The keys of a training's streams under its stage (TrainStreams) and
// of a replicate's (ReplicaSeeds), which must name them alike: its
// synthetic workload and its model's seed.
const (
	workloadKey  pipeline.Key = "workload"
	modelKey     pipeline.Key = "model"
	replicateKey pipeline.Key = "replicate"
)
