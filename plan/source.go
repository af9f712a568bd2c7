package plan

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/marl"
)

// A dataSource is what a training.Source means to a plan: where a
// family's training jobs come from, how a training of it is planned and
// how its jobs are drawn. Each source is one value in sources; nothing
// outside this file asks which source a training has, but reads what the
// source says (DataSetup.ReadsTrace, Summary, JCTMinutes; ClusterKey).
//
// To add a source: a training.Source constant, a type here with these
// methods, and its line in sources.
type dataSource interface {
	// experiment is the experiment a family of the source trains under
	// when no configured experiment names its variant (`schedlab train`).
	experiment() string
	// clusterKey is the configuration key that names the one cluster
	// the source's models train on ("" where a model trains on the
	// cluster it is evaluated on): what `schedlab train --cluster` sets.
	clusterKey() string
	// trainCluster is the one cluster c trains v's model on whatever
	// cluster it is evaluated on; ok is false where a model is trained
	// per evaluated cluster.
	trainCluster(c Config, v training.Variant) (name string, ok bool)
	// setup fills mt's cluster and data for the model of canon (variant v) that spec
	// evaluates on cl (mt.Data.Source is set).
	setup(c Config, mt *Training, canon schedulers.Name, v training.Variant, spec evaluation.Spec, cl evaluation.Cluster) error
	// draw is TrainingData for d.
	draw(d DataSetup, cluster *sim.Cluster, sc sim.Config, trace []datasets.Job, arrivals []datasets.Arrival, workload *rand.Rand) (training.Data, error)
	// readsTrace says whether a training reads the run's job trace.
	readsTrace() bool
	// summary says which jobs a training of d reads.
	summary(d DataSetup) string
	// namesCluster says whether the training's cluster goes by the
	// name of its experiment's cluster (Training.Cluster: small, medium,
	// large) rather than its spec's.
	namesCluster() bool
	// jctMinutes says whether mean JCTs of the source's curves read in
	// minutes (else hours).
	jctMinutes() bool
}

// sources are the training sources by their value.
var sources = map[training.Source]dataSource{
	training.SourceTrace: traceSource{},
	training.SourceMARL:  marlSource{},
}

// sourceOf is s's dataSource; a source no file here declares is a
// programmer error.
func sourceOf(s training.Source) dataSource {
	src, ok := sources[s]
	if !ok {
		panic(fmt.Sprintf("plan: training source %d has no dataSource", s))
	}
	return src
}

// ReadsTrace says whether a training of d reads the run's job trace
// (TrainInputs.Trace): its stage takes the jobs artifact as an input.
func (d DataSetup) ReadsTrace() bool { return sourceOf(d.Source).readsTrace() }

// Summary says in words which jobs a training of d reads.
func (d DataSetup) Summary() string { return sourceOf(d.Source).summary(d) }

// JCTMinutes says whether the mean JCTs of the training's curves read
// in minutes rather than hours (training.PlotCurves).
func (d DataSetup) JCTMinutes() bool { return sourceOf(d.Source).jctMinutes() }

// ClusterKey is the configuration key naming the one cluster family f's
// models train on, "" where a model trains on each cluster it is
// evaluated on: `schedlab train --cluster` sets it.
func ClusterKey(f training.Family) string { return sourceOf(f.Source()).clusterKey() }

// traceSource is training.SourceTrace: the training part of das-table1's
// trace, on train.das.cluster.
type traceSource struct{}

func (traceSource) experiment() string { return evaluation.DASTable1 }
func (traceSource) clusterKey() string { return "train.das.cluster" }
func (traceSource) readsTrace() bool   { return true }
func (traceSource) jctMinutes() bool   { return true }
func (traceSource) namesCluster() bool { return true }

func (traceSource) summary(DataSetup) string { return "the trace's training part" }

func (traceSource) trainCluster(c Config, v training.Variant) (string, bool) {
	if c.perCluster(v) {
		return "", false
	}
	return daspaper.Section.Get(c.Train.Sections).Cluster, true
}

func (s traceSource) setup(c Config, mt *Training, canon schedulers.Name, v training.Variant, spec evaluation.Spec, cl evaluation.Cluster) error {
	mt.Cluster, mt.ClusterSpec = cl.Name, cl.Spec
	if name, ok := s.trainCluster(c, v); ok {
		mt.Cluster = name
		var err error
		if mt.ClusterSpec, err = sim.Preset(name); err != nil {
			return fmt.Errorf("train.das.cluster: %w", err)
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
		return fmt.Errorf("train %s: experiment %s has no trace workload to train on", canon, spec.Experiment)
	}
	return nil
}

// draw: datasets.SplitTrace, the cut evaluation makes (sorted, jobs that
// cannot fit every evaluated cluster pruned, the first MaxJobs kept, the
// last TestFraction evaluated), its training part split 8:2 into training
// and validation; then daspaper.PrepareJobs on the training cluster.
func (traceSource) draw(d DataSetup, cluster *sim.Cluster, sc sim.Config, trace []datasets.Job, _ []datasets.Arrival, _ *rand.Rand) (training.Data, error) {
	clusters := make([]*sim.Cluster, len(d.EvalClusters))
	for i, cs := range d.EvalClusters {
		c, err := cs.Build()
		if err != nil {
			return training.Data{}, fmt.Errorf("cluster %s: %w", ClusterID(cs), err)
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
}

// marlSource is training.SourceMARL: the MARL paper's arrivals, uniform
// or following the Google 2011 pattern (train.marl.arrivals), a model per
// evaluated cluster.
type marlSource struct{}

func (marlSource) experiment() string { return evaluation.MARLArrivals }
func (marlSource) clusterKey() string { return "" }
func (marlSource) readsTrace() bool   { return false }
func (marlSource) jctMinutes() bool   { return false }
func (marlSource) namesCluster() bool { return false }

func (marlSource) summary(d DataSetup) string {
	if d.Pattern == marl.ArrivalsGoogle {
		return fmt.Sprintf("%d intervals of arrivals following the Google 2011 pattern", d.Intervals)
	}
	return fmt.Sprintf("%d intervals of uniform arrivals", d.Intervals)
}

func (marlSource) trainCluster(Config, training.Variant) (string, bool) { return "", false }

func (marlSource) setup(c Config, mt *Training, canon schedulers.Name, v training.Variant, spec evaluation.Spec, cl evaluation.Cluster) error {
	mt.Cluster, mt.ClusterSpec = ClusterID(cl.Spec), cl.Spec
	built, err := cl.Spec.Build()
	if err != nil {
		return err
	}
	m := marl.Section.Get(c.Train.Sections)
	mt.Data.JobsPerPod, mt.Data.Intervals, mt.Data.Parts = evaluation.MARLPaperLoad(built), m.Intervals, v.Parts
	if m.Arrivals == marl.ArrivalsGoogle {
		if c.Arrivals == "" {
			return fmt.Errorf("train %s: train.marl.arrivals is google, but the run ingests no Google 2011 arrivals table (datasets.ingest: google-2011)", canon)
		}
		mt.Data.Pattern, mt.Data.ArrivalsFile = marl.ArrivalsGoogle, c.Arrivals
	}
	// The paper trains on jobs placed in batches, one per scheduling
	// interval, however the experiment places its test jobs
	// (eval.marl_arrivals.placement); the family decides on interval
	// boundaries whatever it is given (marl.trainSim).
	mt.Sim = TrainingSim(spec.Sim)
	for _, w := range spec.Workloads {
		if w.Kind != evaluation.KindTrace {
			// The evaluated jobs' shape and, where the workload sets
			// one, load: a model trains on the jobs it meets.
			mt.Data.Shape = w.Shape
			if w.JobsPerPod > 0 {
				mt.Data.JobsPerPod = w.JobsPerPod
			}
			break
		}
	}
	return nil
}

// draw: arrivals of JobsPerPod jobs per pod per interval on average for
// Intervals intervals drawn from workload, uniform or (the google
// pattern) following the counts of arrivals, the last 10 % of each of
// Parts partitions (0: one per pod) validating.
func (marlSource) draw(d DataSetup, cluster *sim.Cluster, sc sim.Config, _ []datasets.Job, arrivals []datasets.Arrival, workload *rand.Rand) (training.Data, error) {
	kind := datasets.MARLUniform
	if d.Pattern == marl.ArrivalsGoogle {
		kind = datasets.MARLGoogle
		if len(arrivals) == 0 {
			return training.Data{}, fmt.Errorf("the google arrival pattern needs the arrivals table %s, and none was read", d.ArrivalsFile)
		}
	}
	jobs, err := datasets.GenerateMARL(datasets.MARLWorkload{Kind: kind, Pods: cluster.Pods,
		JobsPerPod: d.JobsPerPod, Intervals: d.Intervals, IntervalS: sc.IntervalS, Arrivals: arrivals, Shape: d.Shape}, workload)
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
		return data, fmt.Errorf("%d jobs in %d intervals of %s arrivals at %.3g per pod, each of %d partitions holding out the last %g %% of its jobs, at least one: %w (raise train.marl.intervals)",
			len(jobs), d.Intervals, kind, d.JobsPerPod, parts, 100*marlHeldOut, err)
	}
	return data, nil
}
