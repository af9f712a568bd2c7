package stages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sensitivity"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// sensitivityPart is the plan of one part of the sensitivity experiment:
// what every grid point evaluates and trains. Its JSON is part of the
// stage's configuration (the cache key).
type sensitivityPart struct {
	Name       string          `json:"name"`
	Title      string          `json:"title"`
	Learned    schedulers.Name `json:"learned"`
	Heuristics []string        `json:"heuristics"`
	// Spec is evaluated at every point: the same jobs (its workload
	// streams are keyed by its experiment and cluster, not by the point).
	Spec   evaluation.Spec `json:"spec"`
	Fitted bool            `json:"fitted"`
	// Environment is the calibrated environment the grid is centred on;
	// "" when the part's paper has none (then the neutral one).
	Environment string `json:"environment"`
	// Training is the plan of every point's model (its seeds and
	// interference are the point's).
	Training *ModelTraining `json:"training"`
	// Load and Socket are the operating point where the map sweeps it
	// (eval.sensitivity.marl_device.loads, sockets): the multiplier of
	// the paper's jobs per pod (0: not swept) and the socket rule ("":
	// the experiment's own). Left out of the JSON when not swept.
	Load   float64 `json:"load,omitempty"`
	Socket string  `json:"socket,omitempty"`
}

// paperEnvironment is the calibrated environment of paper among those the
// run calibrates (Config.calibrates), "" if none (the first by name if
// several).
func (c *Config) paperEnvironment(paper string) string {
	for _, name := range slices.Sorted(maps.Keys(Environments)) {
		if Environments[name] == paper && c.calibrates(name) {
			return name
		}
	}
	return ""
}

// sensitivityParts plans the configured parts, in
// evaluation.SensitivityParts' order.
func (c *Config) sensitivityParts() ([]sensitivityPart, error) {
	s := c.Eval.Sensitivity
	// Short trainings: the part's episodes, on the evaluated cluster.
	tc := *c
	tc.Train.MARL.Episodes, tc.Train.MARL.Intervals = s.MARLDevice.Episodes, s.MARLDevice.TrainIntervals
	tc.Train.DAS.Episodes, tc.Train.DAS.Cluster = s.DAS.Episodes, DASEachCluster
	var parts []sensitivityPart
	for _, name := range evaluation.SensitivityParts() {
		if !slices.Contains(s.Parts, name) {
			continue
		}
		var p sensitivityPart
		var parent evaluation.Experiment
		// A part per operating point (marl-device's loads and socket
		// rules); one for das.
		type variant struct {
			suffix string
			load   float64
			socket string
		}
		variants := []variant{{}}
		switch name {
		case evaluation.SensitivityMARLDevice:
			m := s.MARLDevice
			parent = evaluation.MustLookup(evaluation.MARLArrivals)
			p.Spec = parent.Spec()
			p.Fitted = parent.Configure(&c.Eval, &p.Spec)
			c.Sim.applyShape(&p.Spec)
			i := slices.IndexFunc(p.Spec.Workloads, func(w evaluation.Workload) bool { return w.Kind == evaluation.KindUniform })
			w := p.Spec.Workloads[i]
			w.Intervals = m.Intervals
			p.Spec.Workloads = []evaluation.Workload{w}
			p.Spec.Clusters = []evaluation.Cluster{{Name: fmt.Sprintf("fattree-k%d", m.K), Spec: sim.ClusterSpec{Topology: "fattree", K: m.K, Servers: "power8"}}}
			p.Heuristics = slices.Clone(m.Heuristics)
			p.Title = fmt.Sprintf("marl-device, fat-tree k=%d of power8", m.K)
			loads, sockets := m.Loads, m.Sockets
			if len(loads) == 0 {
				loads = []float64{1}
			}
			if !slices.Equal(loads, []float64{1}) || len(sockets) > 0 {
				variants = variants[:0]
				if len(sockets) == 0 {
					sockets = []string{""}
				}
				for _, l := range loads {
					for _, r := range sockets {
						v := variant{suffix: "-x" + strconv.FormatFloat(l, 'g', -1, 64), load: l, socket: r}
						if r != "" {
							v.suffix += "-" + r
						}
						variants = append(variants, v)
					}
				}
			}
		case evaluation.SensitivityDAS:
			d := s.DAS
			parent = evaluation.MustLookup(evaluation.DASTable1)
			p.Spec = parent.Spec()
			p.Fitted = parent.Configure(&c.Eval, &p.Spec)
			cs, err := sim.Preset(d.Cluster)
			if err != nil {
				return nil, fmt.Errorf("eval.sensitivity.das.cluster: %w", err)
			}
			p.Spec.Clusters = []evaluation.Cluster{{Name: d.Cluster, Spec: cs}}
			for i := range p.Spec.Workloads {
				p.Spec.Workloads[i].JobsFile = c.JobsArtifact() // resolved when the stage runs
			}
			p.Heuristics = slices.Clone(d.Heuristics)
			p.Title = "das, " + d.Cluster + " cluster"
		}
		// Canonical names, so that aliases (fifo-ff) read as the tables'.
		for i, h := range p.Heuristics {
			canon, err := schedulers.Canonical(h)
			if err != nil {
				return nil, fmt.Errorf("eval.sensitivity (%s): %w", name, err)
			}
			p.Heuristics[i] = string(canon)
		}
		canon, err := schedulers.Canonical(name)
		if err != nil {
			return nil, fmt.Errorf("eval.sensitivity (%s): %w", name, err)
		}
		for _, v := range variants {
			q := p
			q.Spec.Workloads = slices.Clone(p.Spec.Workloads)
			q.Name, q.Learned, q.Load, q.Socket = name+v.suffix, canon, v.load, v.socket
			if v.load != 0 {
				built, err := q.Spec.Clusters[0].Spec.Build()
				if err != nil {
					return nil, fmt.Errorf("eval.sensitivity (%s): %w", q.Name, err)
				}
				q.Spec.Workloads[0].JobsPerPod = v.load * evaluation.MARLPaperLoad(built)
				q.Title += fmt.Sprintf(", load ×%g", v.load)
			}
			if v.socket != "" {
				q.Spec.Sim.Socket = v.socket
				q.Title += ", " + v.socket + " socket"
			}
			q.Environment = c.paperEnvironment(parent.Paper)
			q.Spec.Experiment = evaluation.Sensitivity + "-" + q.Name
			q.Spec.Seeds = c.Eval.Seeds
			q.Spec.Schedulers = append(slices.Clone(q.Heuristics), name)
			// The map is of the speed model's scales: always the model, in
			// the environment named for the tables (the points'
			// environments are passed as the interference model).
			q.Spec.Sim.Speed, q.Spec.Sim.Environment = sim.SpeedModel, q.Environment
			if err := q.Spec.Validate(); err != nil {
				return nil, fmt.Errorf("eval.sensitivity (%s): %w", q.Name, err)
			}
			if q.Training, err = tc.planTraining(canon, q.Spec, q.Fitted, q.Spec.Clusters[0]); err != nil {
				return nil, fmt.Errorf("eval.sensitivity (%s): %w", q.Name, err)
			}
			parts = append(parts, q)
		}
	}
	return parts, nil
}

// SensitivityStage is the stage that writes the sensitivity experiment's
// table and heat map: every grid point of every configured part trains
// its model (into a scratch directory, removed after) and evaluates it
// beside the heuristics, points running on the run's idle workers
// (pipeline.BorrowWorker).
func (c *Config) SensitivityStage() (pipeline.Stage, error) {
	parts, err := c.sensitivityParts()
	if err != nil {
		return nil, err
	}
	s := c.Eval.Sensitivity
	grid := sensitivity.Grid{Comm: s.CommScales, Interference: s.InterferenceScales}
	e := evaluation.MustLookup(evaluation.Sensitivity)
	tables, plots := e.TableFiles(), e.PlotFiles()
	cells := path.Join("eval", evaluation.Sensitivity, sensitivity.CellsFile)
	var in []string
	for _, p := range parts {
		if p.Training.Data.Source == training.SourceTrace {
			in = append(in, c.JobsArtifact())
		}
		in = append(in, p.speed().Inputs()...)
	}
	slices.Sort(in)
	in = slices.Compact(in)
	jobs := c.JobsArtifact()
	workers := c.Workers
	return &pipeline.Func{
		StageName: evaluation.Sensitivity, StageVersion: stageVersion, In: in,
		Out: append(append(slices.Clone(tables), plots...), cells),
		Cfg: struct {
			Grid  sensitivity.Grid
			Parts []sensitivityPart
		}{grid, parts},
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			var trace []datasets.Job
			if slices.Contains(in, jobs) {
				var err error
				if trace, err = datasets.ReadParquet[datasets.Job](env.Input(jobs)); err != nil {
					return err
				}
			}
			points := sensitivityPoints{env: env, trace: trace, plans: map[string]sensitivityPart{}, models: map[string]sim.Interference{}}
			var sparts []sensitivity.Part
			for _, p := range parts {
				sp, model, err := p.part(env)
				if err != nil {
					return err
				}
				// A copy: parts is the stage's configuration, run again
				// on a rerun.
				p.Spec = p.Spec.WithFiles(env.Input)
				points.plans[p.Name], points.models[p.Name] = p, model
				sparts = append(sparts, sp)
			}
			bar := env.Bar("grid points", int64(len(parts)*len(grid.Comm)*len(grid.Interference)))
			defer bar.Done()
			// Points beside the first run only on the run's idle workers:
			// each trains a model (a DAS one holds about 290 MiB at its
			// peak), so the run never trains more models at once than it
			// has workers (issue 18).
			w := sensitivity.Workers{Max: workers, Borrow: func() (func(), bool) { return pipeline.BorrowWorker(ctx) }}
			res, err := sensitivity.Run(ctx, sparts, grid, env.Seed, w, points.evaluate, func() { bar.Add(1) })
			if err != nil {
				return err
			}
			for i, b := range [][]byte{res.Markdown(), res.CSV(), res.LaTeX()} {
				if err := pipeline.WriteFileAtomic(env.Output(tables[i]), b); err != nil {
					return err
				}
			}
			if err := datasets.WriteParquet(env.Output(cells), datasets.FileMeta{Source: evaluation.Sensitivity, ConfigHash: env.ConfigHash}, res.CellRows()); err != nil {
				return err
			}
			svg, png, err := res.Plot()
			if err != nil {
				return fmt.Errorf("sensitivity plot: %w", err)
			}
			if err := pipeline.WriteFileAtomic(env.Output(plots[0]), svg); err != nil {
				return err
			}
			return pipeline.WriteFileAtomic(env.Output(plots[1]), png)
		},
	}, nil
}

// speed is the speed model the part's grid is centred on: each point
// scales its environment.
func (p sensitivityPart) speed() plan.SpeedModel {
	return plan.SpeedModel{Speed: p.Spec.Sim.Speed, Fitted: p.Fitted, Environment: p.Environment}
}

// part is p as package sensitivity sees it, with its base environment
// (the calibrated one, else the neutral one) and the base interference
// model the points' environments wrap.
func (p sensitivityPart) part(env *pipeline.Env) (sensitivity.Part, sim.Interference, error) {
	speeds, err := p.speed().Resolve(p.speed().RunSources(env.Input))
	if err != nil {
		return sensitivity.Part{}, nil, err
	}
	model := speeds.Base
	base := sim.NeutralEnvironment()
	notes := []string{}
	if speeds.Environment != nil {
		base = *speeds.Environment
	} else {
		notes = append(notes, fmt.Sprintf("%s: no calibrated environment of its paper exists, so the grid is centred on the neutral one (every factor 1).", p.Name))
	}
	what := "the simulator's default interference model"
	if p.Fitted {
		what = "the fitted interference model (fit/model.json)"
	}
	w := p.Spec.Workloads[0]
	paperLoad := "the MARL paper's load per pod"
	if p.Load != 0 {
		paperLoad = fmt.Sprintf("%g × the MARL paper's load per pod (%.3g jobs per pod per interval)", p.Load, w.JobsPerPod)
	}
	load := fmt.Sprintf("%s arrivals at %s for %d intervals", w.Kind, paperLoad, w.Intervals)
	if w.Kind == evaluation.KindTrace {
		load = fmt.Sprintf("das-table1's trace (first %d jobs, the last %g evaluated; training on the rest)", w.MaxJobs, w.TestFraction)
	}
	t := p.Training
	notes = append(notes, fmt.Sprintf("%s: %s on %s; the environment wraps %s; each point's model trains on %s (%s) with %s; %d seed(s) per scheduler.",
		p.Name, load, p.Spec.Clusters[0].Name, what, t.Cluster, t.Data.summary(), trainSize(t), p.Spec.Seeds))
	unit := "min"
	if p.Spec.Sim.Trigger == sim.TriggerInterval {
		unit = "intervals"
	}
	return sensitivity.Part{Name: p.Name, Title: p.Title, Learned: string(p.Learned), Heuristics: p.Heuristics, Base: base, Unit: unit, Notes: notes,
		Load: p.Load, Socket: p.Socket}, model, nil
}

// summary says which jobs a training reads.
func (d DataSetup) summary() string {
	if d.Source == training.SourceTrace {
		return "the trace's training part"
	}
	return fmt.Sprintf("%d intervals of uniform arrivals", d.Intervals)
}

// trainSize says how long a training is, from its family's config (its
// JSON: the keys of train.<section> it reads).
func trainSize(t *ModelTraining) string {
	b, err := json.Marshal(t.Config)
	if err != nil {
		return "its family's configuration"
	}
	return "train." + t.Family().Section() + " " + string(b)
}

// sensitivityPoints evaluates grid points for package sensitivity.
type sensitivityPoints struct {
	env    *pipeline.Env
	trace  []datasets.Job
	plans  map[string]sensitivityPart
	models map[string]sim.Interference // base model, by part
}

// evaluate trains the part's learned scheduler in the point's environment
// (random streams keyed by the part and the point) and evaluates it and
// the heuristics there; mean JCTs in the part's unit, means over seeds.
func (s sensitivityPoints) evaluate(ctx context.Context, part sensitivity.Part, pt sensitivity.Point) (sensitivity.Outcome, error) {
	p := s.plans[part.Name]
	ptEnv := pt.Env
	model := ptEnv.Interference(s.models[part.Name])
	dir, err := os.MkdirTemp("", "schedlab-sensitivity-")
	if err != nil {
		return sensitivity.Outcome{}, err
	}
	defer os.RemoveAll(dir)
	in := TrainInputs{Trace: s.trace, Interference: model,
		Meta: datasets.FileMeta{Source: "sensitivity:" + part.Name + ":" + pt.Key(), ConfigHash: s.env.ConfigHash}}
	in.Workload, in.Seed = trainStreams(s.env.Seed, s.env.Stage(), part.Name, pt.Key())
	spec, err := p.Training.Spec(dir, in)
	if errors.Is(err, training.ErrNoTrainingJobs) {
		// Nothing to train on at this point (a small workload): the
		// heuristics only, and the table says why.
		hs := p.Spec
		hs.Schedulers = slices.Clone(p.Heuristics)
		out, err2 := evalPoint(ctx, hs, s.env.Seed, model, p.Heuristics, "", nil)
		out.LeftOut = err.Error()
		return out, err2
	}
	if err != nil {
		return sensitivity.Outcome{}, err
	}
	if err := p.Training.Train(ctx, spec); err != nil {
		return sensitivity.Outcome{}, err
	}
	open := func(seed uint64) (sim.Scheduler, error) {
		return schedulers.New(p.Learned, schedulers.Options{Model: dir, Seed: seed})
	}
	return evalPoint(ctx, p.Spec, s.env.Seed, model, p.Heuristics, p.Learned, open)
}

// evalPoint evaluates spec (whose schedulers are heuristics and learned,
// or heuristics only when learned is "") with interference model; open
// builds learned from its cell's seed (nil: schedulers.New, for a
// heuristic standing in for it in tests).
func evalPoint(ctx context.Context, spec evaluation.Spec, seed uint64, model sim.Interference, heuristics []string, learned schedulers.Name, open func(seed uint64) (sim.Scheduler, error)) (sensitivity.Outcome, error) {
	newSched := func(c evaluation.Cell, seed uint64) (sim.Scheduler, error) {
		if c.Scheduler != learned || open == nil {
			return nil, nil
		}
		return open(seed)
	}
	rep, err := evaluation.Run(ctx, spec, evaluation.Options{Seed: seed, Workers: 1, NewScheduler: newSched, Interference: model})
	if err != nil {
		return sensitivity.Outcome{}, err
	}
	return outcome(rep, heuristics, learned)
}

// outcome is the mean over a report's cells of each scheduler's mean JCT,
// in minutes (event triggers) or intervals (interval triggers, as the MARL
// tables).
func outcome(rep *evaluation.Report, heuristics []string, learned schedulers.Name) (sensitivity.Outcome, error) {
	scale := 60.0
	if rep.Spec.Sim.Trigger == sim.TriggerInterval {
		scale = rep.Spec.Sim.IntervalS
	}
	mean := func(name schedulers.Name) (float64, error) {
		sum, n := 0.0, 0
		for _, c := range rep.Cells {
			if c.Cell.Scheduler == name {
				sum += c.Metrics.MeanJCTS / scale
				n++
			}
		}
		if n == 0 {
			return 0, fmt.Errorf("no evaluated cell of %s", name)
		}
		return sum / float64(n), nil
	}
	var out sensitivity.Outcome
	// The floor is the same for every scheduler of a column (it is of the
	// column's jobs): the mean over the first heuristic's cells.
	first, err := schedulers.Canonical(heuristics[0])
	if err != nil {
		return out, err
	}
	floors, n := 0.0, 0
	for _, c := range rep.Cells {
		if c.Cell.Scheduler == first {
			floors += c.Metrics.FloorJCTS / scale
			n++
		}
	}
	if n > 0 {
		out.Floor = floors / float64(n)
	}
	for _, h := range heuristics {
		canon, err := schedulers.Canonical(h)
		if err != nil {
			return out, err
		}
		v, err := mean(canon)
		if err != nil {
			return out, err
		}
		out.Heuristics = append(out.Heuristics, v)
	}
	if learned == "" {
		return out, nil
	}
	out.Learned, err = mean(learned)
	return out, err
}
