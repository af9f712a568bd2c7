package stages

import (
	"context"
	"fmt"

	"github.com/schedlab/schedlab/calibration"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// EnvironmentFile is the artifact of the calibrated environment name
// (DESIGN.md §4): fit/environment-<name>.json.
func EnvironmentFile(name string) string { return "fit/environment-" + name + ".json" }

// Environments are the calibrated environments the DAG's calibrate stage
// produces, each with the paper whose experiments run in it
// (evaluation.Experiment.Paper).
var Environments = map[string]string{calibration.MARLPaper: evaluation.PaperMARL}

// PaperEnvironments as sim.environment runs every experiment in its own
// paper's calibrated environment, where one exists.
const PaperEnvironments = "paper"

// Calibrate is the stage that fits the MARL paper's environment
// (calibration.MARLPaper) to its §II measurements, with the fitted
// interference model (fit/model.json) as the base model the environment
// scales, and writes the environment and the calibration experiment's
// table and plot. It simulates a few dozen tiny scenarios per fit
// iteration: well under a second.
func Calibrate() pipeline.Stage {
	e := evaluation.MustLookup(evaluation.Calibration)
	env := EnvironmentFile(calibration.MARLPaper)
	tables, plots := e.TableFiles(), e.PlotFiles()
	return &pipeline.Func{
		StageName: "calibrate", StageVersion: stageVersion,
		In:  []string{FitModel},
		Out: append(append([]string{env}, tables...), plots...),
		Cfg: struct {
			Environment string
			Targets     calibration.Targets
			Params      []string
		}{calibration.MARLPaper, calibration.MARLTargets, paramKeys()},
		Fn: func(ctx context.Context, penv *pipeline.Env) error {
			model, err := FittedInterference(penv.Input(FitModel))
			if err != nil {
				return err
			}
			r, err := calibration.Fit(ctx, calibration.MARLPaper, model, calibration.MARLTargets)
			if err != nil {
				return err
			}
			if err := sim.WriteEnvironment(penv.Output(env), &r.Environment); err != nil {
				return err
			}
			for i, b := range [][]byte{r.Markdown(), r.CSV(), r.LaTeX()} {
				if err := pipeline.WriteFileAtomic(penv.Output(tables[i]), b); err != nil {
					return err
				}
			}
			svg, png, err := r.Plot()
			if err != nil {
				return fmt.Errorf("calibration plot: %w", err)
			}
			if err := pipeline.WriteFileAtomic(penv.Output(plots[0]), svg); err != nil {
				return err
			}
			return pipeline.WriteFileAtomic(penv.Output(plots[1]), png)
		},
	}
}

func paramKeys() []string {
	k, _, _ := sim.EnvironmentParams()
	return k
}

// speedModel is the interference model a stage simulates with: the
// fitted one (fit/model.json) when fitted, else the simulator's default
// (nil), wrapped by the calibrated environment when one is named (which
// then also scales communication: sim.Environment.Interference).
func speedModel(env *pipeline.Env, fitted bool, environment string) (sim.Interference, error) {
	var model sim.Interference
	if fitted {
		var err error
		if model, err = FittedInterference(env.Input(FitModel)); err != nil {
			return nil, err
		}
	}
	if environment == "" {
		return model, nil
	}
	e, err := sim.ReadEnvironment(env.Input(EnvironmentFile(environment)))
	if err != nil {
		return nil, err
	}
	return e.Interference(model), nil
}
