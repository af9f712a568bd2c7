package stages

import (
	"context"
	"fmt"

	"github.com/schedlab/schedlab/calibration"
	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/sim"
)

// Calibrate is the stage that fits the calibrated environments and writes
// them with the calibration experiment's table and plot:
//
//   - marl-paper (calibration.MARLPaper) to the MARL paper's §II
//     measurements, with the fitted interference model (fit/model.json) as
//     the base model the environment scales: a few dozen tiny scenarios per
//     fit iteration, well under a second;
//   - MARL Table III's ranking, from the fit stage's cross-validated errors
//     (fit/coefficients.parquet);
//   - das-paper (calibration.DASPaper) to DAS Table 1's heuristic rows,
//     simulated on das-table1's clusters and evaluated jobs of the run's
//     trace (cfg's das_table1 trace settings), with das-table1's base model
//     (the fitted one when das_table1.fitted_interference): some 43
//     evaluations of 15 simulations, 41 s of CPU on the nightly trace
//     (measured on a loaded machine; about 20 s on two idle cores); only
//     with eval.calibration.das (the quick preset leaves it out).
//
// The simulations run on cfg.Workers goroutines; results do not depend on
// it.
func Calibrate(cfg *Config) pipeline.Stage {
	e := evaluation.MustLookup(evaluation.Calibration)
	marl, das := plan.EnvironmentFile(calibration.MARLPaper), plan.EnvironmentFile(calibration.DASPaper)
	tables, plots := e.TableFiles(), e.PlotFiles()
	jobs := cfg.JobsArtifact()
	trace := evaluation.DASTable1Section.Get(&cfg.Eval)
	trace.Schedulers = nil // das-table1's rows do not change the fit
	workers := cfg.Workers
	withDAS := cfg.calibrates(calibration.DASPaper)
	in, envs := []string{FitModel, FitCoefficients}, []string{marl}
	c := calibrateConfig{Environment: calibration.MARLPaper, Targets: calibration.MARLTargets, Params: paramKeys()}
	if withDAS {
		in, envs = append(in, jobs), append(envs, das)
		c.DAS = &dasCalibrateConfig{Environment: calibration.DASPaper, Targets: calibration.DASTable1Targets, Rows: calibration.DASFitRows,
			Grid: calibration.DASStartGrid, MaxIterations: calibration.DASMaxIterations, Trace: trace}
	}
	return &pipeline.Func{
		StageName: "calibrate", StageVersion: stageVersion,
		In:  in,
		Out: append(append(envs, tables...), plots...),
		Cfg: c,
		Fn: func(ctx context.Context, penv *pipeline.Env) error {
			speeds, err := plan.SpeedModel{Fitted: true}.Resolve(plan.Sources{Fit: penv.Input(FitModel)})
			if err != nil {
				return err
			}
			model := speeds.Base
			mr, err := calibration.Fit(ctx, calibration.MARLPaper, model, calibration.MARLTargets)
			if err != nil {
				return err
			}
			fitted := penv.InputRef(FitModel).SHA256 // the model each environment scales
			mr.Environment.BaseModel = fitted
			coef, err := datasets.ReadParquet[fitting.CoefficientRow](penv.Input(FitCoefficients))
			if err != nil {
				return fmt.Errorf("calibration: %w", err)
			}
			t3, err := calibration.TableIIICheck(coef)
			if err != nil {
				return fmt.Errorf("calibration: %s: %w", FitCoefficients, err)
			}
			if err := sim.WriteEnvironment(penv.Output(marl), &mr.Environment); err != nil {
				return err
			}
			var dr *calibration.DASResult
			if withDAS {
				var evalCfg evaluation.Config
				evaluation.DASTable1Section.Set(&evalCfg, trace)
				w, err := evaluation.DASTable1Workload(ctx, &evalCfg, penv.Input(jobs))
				if err != nil {
					return err
				}
				var base sim.Interference
				if w.Fitted {
					base = model
				}
				dr, err = calibration.FitDAS(ctx, calibration.DASPaper, &calibration.DASSurrogate{
					Workload: w, Base: base, Rows: calibration.DASFitRows, Seed: penv.Seed, Workers: workers,
					GPUShare: sim.GPUShareParamsOf(model)}, calibration.DASTable1Targets)
				if err != nil {
					return err
				}
				if w.Fitted {
					dr.Environment.BaseModel = fitted
				}
				if err := sim.WriteEnvironment(penv.Output(das), &dr.Environment); err != nil {
					return err
				}
			}
			r := &calibration.Report{MARL: mr, TableIII: t3, DAS: dr, DASReference: evaluation.MustLookup(evaluation.DASTable1).Reference}
			if err := writeOutputs(penv, tables, r.Markdown(), r.CSV(), r.LaTeX()); err != nil {
				return err
			}
			svg, png, err := r.Plot()
			if err != nil {
				return fmt.Errorf("calibration plot: %w", err)
			}
			return writeOutputs(penv, plots, svg, png)
		},
	}
}

// calibrateConfig is the calibrate stage's configuration (its cache key).
type calibrateConfig struct {
	Environment string
	Targets     calibration.Targets
	Params      []string
	DAS         *dasCalibrateConfig // nil: das-paper not fitted
}

// dasCalibrateConfig is what the das-paper fit depends on besides its
// inputs: targets, rows, grid, iteration bound and das-table1's trace
// settings.
type dasCalibrateConfig struct {
	Environment   string
	Targets       calibration.DASTargets
	Rows          []string
	Grid          calibration.DASGrid
	MaxIterations int
	Trace         evaluation.DASTable1Config
}

func paramKeys() []string {
	k, _, _ := sim.EnvironmentParams()
	return k
}
