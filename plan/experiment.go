package plan

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// Config is the part of a run's configuration that a plan reads, taken
// from the resolved configuration once (stages.Config.Plan).
type Config struct {
	Sim   SimConfig
	Eval  evaluation.Config
	Train TrainConfig
	// Sched are the heuristics' parameters (sched.<name>), every
	// experiment's spec's Params.
	Sched schedulers.Params
	// Jobs is the run artifact of the job trace that trace workloads and
	// trace-source trainings read.
	Jobs string
	// Source is datasets.source; Synthetic says it is the seeded PAI-like
	// generator, which draws SyntheticJobs jobs.
	Source        string
	Synthetic     bool
	SyntheticJobs int
	// Calibrated are the environments the run's calibrate stage fits.
	Calibrated []string
	// Ingested maps each trace source the run ingests to the run
	// artifact of its jobs table: a workload naming its trace (Source)
	// reads that table, and is skipped when the run does not ingest it.
	Ingested map[string]string
	// DataDir is the shared data directory (data_dir, resolved), where
	// the run finds the data files its schedulers read
	// (schedulers.Info.Data); "" for none.
	DataDir string
	// Arrivals is the run artifact of the ingested Google 2011 arrivals
	// table ("" when the run ingests none): the google workloads' and,
	// under train.marl.arrivals google, the MARL trainings' (New sets it).
	Arrivals string
}

// Plan is what a configuration evaluates, derived once from it and
// passed by value to every stage builder (training, evaluation, derived
// tables) and command, so that no two of them can disagree on an
// experiment: each run experiment's spec (its section of eval.* applied
// to its documented spec, the run-wide speed model and environment, its
// inputs) is built here and nowhere else.
type Plan struct {
	Config Config
	// Experiments are the configured run experiments, in eval.experiments
	// order (staged ones, which their own stages write, are not here).
	Experiments []Experiment
}

// Experiment is one run experiment of the plan.
type Experiment struct {
	Spec evaluation.Spec
	// Inputs are the run artifacts the experiment's stage reads: its job
	// trace or arrivals table, the fitted model, the environment.
	Inputs []string
	// Fitted: cell speeds come from the fitted interference model.
	Fitted bool
	// Data maps each data file its schedulers read (schedulers.Info.Data)
	// to the path of that input, one of Inputs.
	Data map[string]string
}

// Speed is the speed model the experiment's cells simulate with.
func (e Experiment) Speed() SpeedModel { return SpeedOf(e.Spec.Sim, e.Fitted) }

// Resolve resolves the experiment's speed model over src (SpeedModel.Resolve)
// and names the environment read, if any, in its spec (sim.environment):
// an environment file given where the configuration names none is the
// one the cells simulate in.
func (e *Experiment) Resolve(src Sources) (Speeds, error) {
	s, err := e.Speed().Resolve(src)
	if err == nil && s.Environment != nil {
		e.Spec.Sim.Environment = s.Environment.Name
	}
	return s, err
}

// New derives the run plan of c; arrivals is the run's arrivals table
// ("" when no google-2011 trace is ingested).
func New(c Config, arrivals string) (*Plan, error) {
	c.Arrivals = arrivals
	p := &Plan{Config: c}
	for _, id := range c.RunExperiments() {
		e, err := c.Experiment(id, arrivals)
		if err != nil {
			return nil, err
		}
		p.Experiments = append(p.Experiments, e)
	}
	return p, nil
}

// Experiment is the planned run experiment id.
func (p *Plan) Experiment(id string) (Experiment, bool) {
	i := slices.IndexFunc(p.Experiments, func(e Experiment) bool { return e.Spec.Experiment == id })
	if i < 0 {
		return Experiment{}, false
	}
	return p.Experiments[i], true
}

// WithoutArrivals is spec as the models and derived tables of an
// experiment see it: the arrivals table is an input of the experiment's
// own stage only (the google workload's cells), not of what it trains or
// derives, whose cache keys it would otherwise change.
func WithoutArrivals(spec evaluation.Spec) evaluation.Spec {
	spec.Workloads = slices.Clone(spec.Workloads)
	for i := range spec.Workloads {
		spec.Workloads[i].ArrivalsFile = ""
	}
	return spec
}

// Experiment is experiment id as a run plans it (listed in
// eval.experiments or not), with the run artifacts it
// reads (a job trace or arrivals table, resolved when the stage runs) and
// whether its speeds come from the fitted model: the registered
// experiment applies its configuration section to its documented spec,
// and the run supplies its inputs by workload kind.
func (c Config) Experiment(id, arrivals string) (Experiment, error) {
	e, err := evaluation.Lookup(id)
	if err != nil {
		return Experiment{}, err
	}
	if e.Derived() {
		return Experiment{}, fmt.Errorf("eval (%s): a derived experiment, made from %s's outputs, has no spec", id, e.Derive.From)
	}
	if e.Staged() {
		// Its own stage writes it: no schedulers, nothing to simulate.
		return Experiment{Spec: evaluation.Spec{Experiment: id}}, nil
	}
	spec := e.Spec()
	spec.Seeds = c.Eval.Seeds
	fitted := e.Configure(&c.Eval, &spec)
	c.Sim.apply(&spec.Sim, e.Paper)
	c.Sim.applyShape(&spec)
	spec.Params = c.Sched
	var inputs []string
	for i := range spec.Workloads {
		w := &spec.Workloads[i]
		switch {
		case w.Kind == evaluation.KindTrace && w.Source != "":
			// A named trace: its ingested jobs table, or none (the
			// workload is skipped) when the run does not ingest it.
			if jobs, ok := c.Ingested[w.Source]; ok {
				w.JobsFile = jobs
				if !slices.Contains(inputs, w.JobsFile) {
					inputs = append(inputs, w.JobsFile)
				}
			}
		case w.Kind == evaluation.KindTrace:
			w.JobsFile = c.Jobs // resolved to the run's file when the stage runs
			if !slices.Contains(inputs, w.JobsFile) {
				inputs = append(inputs, w.JobsFile)
			}
		case w.Kind == evaluation.KindGoogle && arrivals != "":
			w.ArrivalsFile = arrivals
			inputs = append(inputs, arrivals)
		}
	}
	data := c.schedulerData(&spec)
	for _, rel := range slices.Sorted(maps.Keys(data)) {
		inputs = append(inputs, data[rel])
	}
	if err := spec.Validate(); err != nil {
		return Experiment{}, fmt.Errorf("eval (%s): %w", id, err)
	}
	x := Experiment{Spec: spec, Fitted: fitted, Data: data}
	x.Inputs = append(inputs, x.Speed().Inputs()...)
	return x, nil
}

// schedulerData finds under DataDir the data files that spec's schedulers
// read (schedulers.Info.Data), each a path to read it from. A row whose
// required file is not there is left out of the matrix, as a trace the
// run does not ingest is, and a note on spec says so; an optional file
// that is not there is not an input.
func (c Config) schedulerData(spec *evaluation.Spec) map[string]string {
	var data map[string]string
	kept := spec.Schedulers[:0:0]
	for _, name := range spec.Schedulers {
		info, ok := schedulers.Lookup(name)
		var missing []string
		for _, f := range info.Data {
			if !ok {
				break
			}
			p := ""
			if c.DataDir != "" {
				p = filepath.Join(c.DataDir, filepath.FromSlash(f.Path))
				if _, err := os.Stat(p); err != nil {
					p = ""
				}
			}
			switch {
			case p != "":
				if data == nil {
					data = map[string]string{}
				}
				data[f.Path] = p
			case !f.Optional:
				missing = append(missing, f.Path)
			}
		}
		if missing != nil {
			spec.Notes = append(spec.Notes, fmt.Sprintf("Row %s left out: it reads %s under the data directory (data_dir), which this run does not have.",
				info.Display, strings.Join(missing, ", ")))
			continue
		}
		kept = append(kept, name)
	}
	spec.Schedulers = kept
	// A cluster of GPU-type servers runs each job at its type's measured
	// speed (evaluation.Options.Data, sim.GPUSpeed), whatever the rows.
	if c.DataDir != "" && slices.ContainsFunc(spec.Clusters, func(cl evaluation.Cluster) bool { return sim.GPUTyped(cl.Spec.Servers) }) {
		p := filepath.Join(c.DataDir, filepath.FromSlash(schedulers.GavelThroughputsFile))
		if _, err := os.Stat(p); err == nil {
			if data == nil {
				data = map[string]string{}
			}
			data[schedulers.GavelThroughputsFile] = p
		}
	}
	return data
}

// Standalone is run experiment id exactly as a run evaluates it (the
// same configuration, applied by the same function), for commands that
// evaluate outside a run (schedlab eval). Its trace workloads read
// jobsFile, or draw the configured synthetic trace
// (datasets.synthetic.jobs) when jobsFile is ""; its google workload reads
// arrivals ("" skips it). Its Speed names the files the caller supplies;
// its Inputs are the run's and mean nothing outside one.
func (c Config) Standalone(id, jobsFile, arrivals string) (Experiment, error) {
	e, err := evaluation.Lookup(id)
	if err != nil {
		return Experiment{}, err
	}
	switch {
	case e.Staged():
		return Experiment{}, fmt.Errorf("%w: %s is written by schedlab run's %s stage (schedlab run --only %s)", ErrNotRunnable, id, e.Stage, id)
	case e.Derived():
		return Experiment{}, fmt.Errorf("%w: %s is made from %s's outputs by schedlab run (schedlab run --only %s)", ErrNotRunnable, id, e.Derive.From, e.Derive.From)
	}
	if jobsFile == "" && !c.Synthetic {
		for _, w := range e.Spec().Workloads {
			if w.Kind == evaluation.KindTrace && w.Source == "" {
				return Experiment{}, fmt.Errorf("datasets.source is %s: give its jobs table (%s of a run, or the jobs.parquet of schedlab ingest)", c.Source, c.Jobs)
			}
		}
	}
	x, err := c.Experiment(id, arrivals)
	if err != nil {
		return Experiment{}, err
	}
	for i := range x.Spec.Workloads {
		w := &x.Spec.Workloads[i]
		if w.Kind == evaluation.KindTrace && w.Source != "" {
			// A named trace reads the given table only if it holds that
			// trace; its cells are skipped otherwise.
			w.JobsFile = ""
			if info, err := datasets.InspectTable(jobsFile); jobsFile != "" && err == nil && info.Source == w.Source {
				w.JobsFile = jobsFile
			}
			continue
		}
		if w.Kind == evaluation.KindTrace {
			w.JobsFile, w.SyntheticJobs = jobsFile, 0
			if jobsFile == "" {
				w.SyntheticJobs = c.SyntheticJobs
			}
		}
	}
	if err := x.Spec.Validate(); err != nil {
		return Experiment{}, fmt.Errorf("eval (%s): %w", id, err)
	}
	return x, nil
}

// ErrNotRunnable is an experiment that schedlab eval cannot run on its
// own: a staged one (calibration, sensitivity) or a derived one
// (das-wilcoxon, ...), which schedlab run makes.
var ErrNotRunnable = errors.New("not an experiment schedlab eval runs")

// RunExperiments are the configured experiments that are run (not
// staged: those write their own tables).
func (c Config) RunExperiments() []string {
	var out []string
	for _, id := range c.Eval.Experiments {
		if e, err := evaluation.Lookup(id); err == nil && !e.Staged() {
			out = append(out, id)
		}
	}
	return out
}
