package stages

import (
	"context"
	"fmt"
	"path"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

// derivedStages adds a stage for every derived experiment (das-wilcoxon,
// das-overhead, marl-vs-single-convergence, ...) of the configured
// experiments that their specs yield: tables built from the parent's
// results, timings or models' learning curves, at no further simulation.
// Stages follow the configured experiments' order and, within one, the
// registry's.
func (c *Config) derivedStages(p *plan.Plan, models map[string][]string) ([]pipeline.Stage, error) {
	var out []pipeline.Stage
	for _, id := range c.Eval.Experiments {
		derived := evaluation.DerivedFrom(id)
		if len(derived) == 0 {
			continue
		}
		pe, ok := p.Experiment(id)
		if !ok {
			return nil, fmt.Errorf("eval (%s): derived tables of an experiment the run does not simulate", id)
		}
		spec := plan.WithoutArrivals(pe.Spec)
		for _, e := range derived {
			s, err := c.derivedStage(e, spec, models, p.Config)
			if err != nil {
				return nil, fmt.Errorf("eval (%s): %w", e.ID, err)
			}
			if s != nil {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// derivedStage is the stage of derived experiment e of the parent's spec,
// or nil when the spec does not yield it.
func (c *Config) derivedStage(e evaluation.Experiment, spec evaluation.Spec, models map[string][]string, pc plan.Config) (pipeline.Stage, error) {
	d := e.Derive
	if d.Applies != nil && !d.Applies(spec) {
		return nil, nil
	}
	dir := evalDir(d.From)
	// curveFile is one learning curve the stage reads; the list is the
	// stage's configuration, so that a changed model reruns it.
	type curveFile struct {
		Scheduler schedulers.Name
		Cluster   string
		File      string
	}
	var in []string
	var curves []curveFile
	switch d.Reads {
	case evaluation.FromResults:
		in = []string{path.Join(dir, path.Base(EvalResults))}
	case evaluation.FromTimings:
		in = []string{path.Join(dir, path.Base(EvalTimings))}
	case evaluation.FromCurves:
		names, err := spec.SchedulerNames()
		if err != nil {
			return nil, err
		}
		for _, cl := range spec.Clusters {
			for _, canon := range names {
				for _, f := range models[pc.ModelKey(canon, cl.Spec)] {
					if path.Base(f) == training.CurvesFile {
						curves = append(curves, curveFile{canon, cl.Name, f})
						in = append(in, f)
					}
				}
			}
		}
		if len(curves) == 0 {
			return nil, nil
		}
	}
	tables, plots := e.TableFiles(), e.PlotFiles()
	return &pipeline.Func{
		StageName: "eval-" + e.ID, StageVersion: stageVersion, In: in, Out: append(tables, plots...),
		Cfg: struct {
			Derived string
			Parent  evaluation.Spec
			Curves  []curveFile
		}{e.ID, spec, curves},
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			data := evaluation.DerivedData{Parent: spec, Trace: c.Datasets.Source}
			var err error
			switch d.Reads {
			case evaluation.FromResults:
				data.Results, err = datasets.ReadParquet[evaluation.ResultRow](env.Input(in[0]))
			case evaluation.FromTimings:
				data.Timings, err = datasets.ReadParquet[evaluation.TimingRow](env.Input(in[0]))
			case evaluation.FromCurves:
				for _, f := range curves {
					rows, err := datasets.ReadParquet[training.Curve](env.Input(f.File))
					if err != nil {
						return err
					}
					data.Curves = append(data.Curves, evaluation.LearningCurve{Scheduler: string(f.Scheduler), Cluster: f.Cluster, Rows: rows})
				}
			}
			if err != nil {
				return err
			}
			t, err := d.Table(data)
			if err != nil {
				return err
			}
			if err := writeOutputs(env, tables, t.Markdown(), t.CSV(), t.LaTeX()); err != nil {
				return err
			}
			if d.Plot == nil {
				return nil
			}
			svg, png, err := d.Plot(data)
			if err != nil {
				return err
			}
			return writeOutputs(env, plots, svg, png)
		},
	}, nil
}

// writeOutputs writes each of bodies, atomically, to the output of env
// named by the same index of names: an experiment's tables (Markdown, CSV,
// LaTeX: TableFiles) or its plots (SVG, PNG: PlotFiles).
func writeOutputs(env *pipeline.Env, names []string, bodies ...[]byte) error {
	for i, b := range bodies {
		if err := pipeline.WriteFileAtomic(env.Output(names[i]), b); err != nil {
			return err
		}
	}
	return nil
}
