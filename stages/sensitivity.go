package stages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sensitivity"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// SensitivityStage is the stage that writes the sensitivity experiment's
// table and heat map: every grid point of every configured part trains
// its model (into a scratch directory, removed after) and evaluates it
// beside the heuristics, points running on the run's idle workers
// (pipeline.BorrowWorker).
func (c *Config) SensitivityStage() (pipeline.Stage, error) {
	parts, err := c.Plan().SensitivityParts()
	if err != nil {
		return nil, err
	}
	s := evaluation.SensitivitySection.Get(&c.Eval)
	grid := sensitivity.Grid{Comm: s.CommScales, Interference: s.InterferenceScales}
	e := evaluation.MustLookup(evaluation.Sensitivity)
	tables, plots := e.TableFiles(), e.PlotFiles()
	cells := path.Join("eval", evaluation.Sensitivity, sensitivity.CellsFile)
	var in []string
	for _, p := range parts {
		if p.Training.Data.ReadsTrace() {
			in = append(in, c.JobsArtifact())
		}
		in = append(in, p.Speed().Inputs()...)
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
			Parts []plan.SensitivityPart
		}{grid, parts},
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			var trace []datasets.Job
			if slices.Contains(in, jobs) {
				var err error
				if trace, err = datasets.ReadParquet[datasets.Job](env.Input(jobs)); err != nil {
					return err
				}
			}
			points := sensitivityPoints{env: env, trace: trace, plans: map[string]plan.SensitivityPart{}, models: map[string]sim.Interference{}}
			var sparts []sensitivity.Part
			for _, p := range parts {
				sp, model, err := sensitivityPartOf(p, env)
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
			if err := writeOutputs(env, tables, res.Markdown(), res.CSV(), res.LaTeX()); err != nil {
				return err
			}
			if err := datasets.WriteParquet(env.Output(cells), datasets.FileMeta{Source: evaluation.Sensitivity, ConfigHash: env.ConfigHash}, res.CellRows()); err != nil {
				return err
			}
			svg, png, err := res.Plot()
			if err != nil {
				return fmt.Errorf("sensitivity plot: %w", err)
			}
			return writeOutputs(env, plots, svg, png)
		},
	}, nil
}

// sensitivityPartOf is p as package sensitivity sees it, with its base environment
// (the calibrated one, else the neutral one) and the base interference
// model the points' environments wrap.
func sensitivityPartOf(p plan.SensitivityPart, env *pipeline.Env) (sensitivity.Part, sim.Interference, error) {
	speeds, err := p.Speed().Resolve(p.Speed().RunSources(env.Input))
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
		p.Name, load, p.Spec.Clusters[0].Name, what, t.Cluster, t.Data.Summary(), trainSize(t), p.Spec.Seeds))
	unit := "min"
	if p.Spec.Sim.Trigger == sim.TriggerInterval {
		unit = "intervals"
	}
	return sensitivity.Part{Name: p.Name, Title: p.Title, Learned: string(p.Learned), Heuristics: p.Heuristics, Base: base, Unit: unit, Notes: notes,
		Load: p.Load, Socket: p.Socket}, model, nil
}

// trainSize says how long a training is, from its family's config (its
// JSON: the keys of train.<section> it reads).
func trainSize(t *plan.Training) string {
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
	plans  map[string]plan.SensitivityPart
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
	in := plan.TrainInputs{Trace: s.trace, Interference: model,
		Meta: datasets.FileMeta{Source: "sensitivity:" + part.Name + ":" + pt.Key(), ConfigHash: s.env.ConfigHash}}
	in.Workload, in.Seed = plan.TrainStreams(s.env.Seed, s.env.Stage(), pipeline.Key(part.Name), pipeline.Key(pt.Key()))
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
	if err := Train(ctx, p.Training, spec); err != nil {
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
