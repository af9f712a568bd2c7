package stages

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
)

// runPlan is what a configuration evaluates, derived once from it and
// passed by value to every stage builder (training, evaluation, derived
// tables), so that no two of them can disagree on an experiment: each run
// experiment's spec (its section of eval.* applied to its documented spec,
// the run-wide speed model and environment, its inputs) is built here and
// nowhere else.
type runPlan struct {
	// experiments are the configured run experiments, in eval.experiments
	// order (staged ones, which their own stages write, are not here).
	experiments []plannedExperiment
}

// plannedExperiment is one run experiment of the plan.
type plannedExperiment struct {
	spec evaluation.Spec
	// inputs are the run artifacts the experiment's stage reads: its job
	// trace or arrivals table, the fitted model, the environment.
	inputs []string
	// fitted: cell speeds come from the fitted interference model.
	fitted bool
}

// plan derives the run plan of c; arrivals is the run's arrivals table
// ("" when no google-2011 trace is ingested).
func (c *Config) plan(arrivals string) (*runPlan, error) {
	p := &runPlan{}
	for _, id := range c.runExperiments() {
		spec, inputs, fitted, err := c.experimentSpec(id, arrivals)
		if err != nil {
			return nil, err
		}
		p.experiments = append(p.experiments, plannedExperiment{spec: spec, inputs: inputs, fitted: fitted})
	}
	return p, nil
}

// experiment is the planned run experiment id.
func (p *runPlan) experiment(id string) (plannedExperiment, bool) {
	i := slices.IndexFunc(p.experiments, func(e plannedExperiment) bool { return e.spec.Experiment == id })
	if i < 0 {
		return plannedExperiment{}, false
	}
	return p.experiments[i], true
}

// withoutArrivals is spec as the models and derived tables of an
// experiment see it: the arrivals table is an input of the experiment's
// own stage only (the google workload's cells), not of what it trains or
// derives, whose cache keys it would otherwise change.
func withoutArrivals(spec evaluation.Spec) evaluation.Spec {
	spec.Workloads = slices.Clone(spec.Workloads)
	for i := range spec.Workloads {
		spec.Workloads[i].ArrivalsFile = ""
	}
	return spec
}

// Inputs are the run-time inputs of the training m, but for the trace and
// the interference model: its random streams, drawn from the run seed
// under the training stage's name (replicate r ≥ 1: ReplicaSeeds), and the
// label of its files. The training stage, its executor task and
// `schedlab train` all take them from here.
func (m *ModelTraining) Inputs(seed uint64) TrainInputs { return m.inputs(seed, m.StageName()) }

// inputs is Inputs with the training stage's name given (an executor task
// decodes the plan without its model key, and carries the name).
func (m *ModelTraining) inputs(seed uint64, stage string) TrainInputs {
	in := TrainInputs{Meta: datasets.FileMeta{Source: "train:" + string(m.Scheduler)}}
	if m.Replicate > 0 {
		in.Workload, in.Seed = ReplicaSeeds(seed, m.base, m.Replicate)
		in.Meta.Source += fmt.Sprintf("/replicate-%d", m.Replicate)
		return in
	}
	in.Workload, in.Seed = trainStreams(seed, stage)
	return in
}

// trainStreams are a training's workload stream and model seed under the
// stream key names (a training stage's name; a sensitivity grid point's
// stage, part and point).
func trainStreams(seed uint64, stage string, names ...string) (*rand.Rand, uint64) {
	s := pipeline.StageStream(stage)
	model, _ := pipeline.Seed(seed, s, append(slices.Clone(names), "model")...)
	return pipeline.Rand(seed, s, append(slices.Clone(names), "workload")...), model
}
