package plan

import (
	"errors"
	"fmt"

	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// Artifacts of a run that a speed model reads.
const (
	// FitModel is the fit stage's interference model.
	FitModel = "fit/" + fitting.ModelFile
)

// EnvironmentFile is the artifact of the calibrated environment name
// (DESIGN.md §4): fit/environment-<name>.json.
func EnvironmentFile(name string) string { return "fit/environment-" + name + ".json" }

// SpeedModel is how a simulation computes job speeds (DESIGN.md §4): the
// simulator's speed mode, the base interference model and the calibrated
// environment that scales it. It is a value of the plan: an experiment, a
// training and a sensitivity part each carry theirs, and Resolve is the
// one place that turns it into the simulator's sim.Interference.
type SpeedModel struct {
	// Speed is sim.Config.Speed: sim.SpeedModel (or "") or
	// sim.SpeedStandalone.
	Speed string
	// Fitted: the base model is the fitted one (FitModel), else the
	// simulator's default.
	Fitted bool
	// Environment names the calibrated environment over the base model,
	// "" for none.
	Environment string
}

// SpeedOf is the speed model of simulations configured by s, over the
// fitted model when fitted.
func SpeedOf(s sim.Config, fitted bool) SpeedModel {
	return SpeedModel{Speed: s.Speed, Fitted: fitted, Environment: s.Environment}
}

// Inputs are the run artifacts the speed model reads: FitModel when
// fitted, the environment's file when one is named.
func (m SpeedModel) Inputs() []string {
	var in []string
	if m.Fitted {
		in = append(in, FitModel)
	}
	if m.Environment != "" {
		in = append(in, EnvironmentFile(m.Environment))
	}
	return in
}

// Sources are the files a speed model is read from, "" for none: within a
// run, the paths of its Inputs (RunSources); on the command line, the
// files the user names.
type Sources struct {
	// Fit is a fitted model (model.json of the fit stage); given, it is
	// the base model.
	Fit string
	// Environment is a calibrated environment's file.
	Environment string
}

// RunSources are the sources of m within a run whose artifact name a
// resolves to a path (pipeline.Env.Input).
func (m SpeedModel) RunSources(path func(artifact string) string) Sources {
	var s Sources
	if m.Fitted {
		s.Fit = path(FitModel)
	}
	if m.Environment != "" {
		s.Environment = path(EnvironmentFile(m.Environment))
	}
	return s
}

// Speeds is a speed model read from its sources.
type Speeds struct {
	// Base is the model the environment wraps: the fitted one, nil for
	// the simulator's default.
	Base sim.Interference
	// Environment is the calibrated environment read, nil for none.
	Environment *sim.Environment
	// Interference is what the simulator computes speeds with: Base
	// wrapped by Environment (sim.Environment.Interference).
	Interference sim.Interference
}

// Errors of Resolve besides a SourceError.
var (
	// ErrNoEnvironment: the speed model names a calibrated environment
	// and the sources give no file of it.
	ErrNoEnvironment = errors.New("no file of the calibrated environment")
	// ErrOtherEnvironment: the environment file holds another
	// environment than the speed model names.
	ErrOtherEnvironment = errors.New("not the environment the configuration names (sim.environment)")
)

// SourceError is a source Resolve could not use: its file cannot be read,
// holds another environment (ErrOtherEnvironment) or was calibrated over
// another base model (sim.ErrBadEnvironment). Err names the file.
type SourceError struct {
	// Environment: the environment file; else the fitted model's.
	Environment bool
	File        string
	Err         error
}

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// Resolve reads m from src. The fitted model is read when src.Fit is
// given (a caller that wants the default model over a fitted
// configuration gives none). An environment file is read when given: it
// must hold the environment m names, if m names one (else
// ErrOtherEnvironment), and have been calibrated over the base model read
// (sim.Environment.CheckBase); m naming one that src does not give is
// ErrNoEnvironment.
func (m SpeedModel) Resolve(src Sources) (Speeds, error) {
	var s Speeds
	if src.Fit != "" {
		f, err := fitting.LoadModel(src.Fit)
		if err != nil {
			return s, &SourceError{File: src.Fit, Err: err}
		}
		s.Base = f.SimModel()
	}
	s.Interference = s.Base
	if src.Environment == "" {
		if m.Environment != "" {
			return s, fmt.Errorf("%w %s (%s)", ErrNoEnvironment, m.Environment, EnvironmentFile(m.Environment))
		}
		return s, nil
	}
	e, err := sim.ReadEnvironment(src.Environment)
	if err != nil {
		return s, &SourceError{Environment: true, File: src.Environment, Err: err}
	}
	if m.Environment != "" && e.Name != m.Environment {
		return s, &SourceError{Environment: true, File: src.Environment,
			Err: fmt.Errorf("%s holds environment %s, not %s: %w", src.Environment, e.Name, m.Environment, ErrOtherEnvironment)}
	}
	sum := ""
	if src.Fit != "" {
		if sum, _, err = pipeline.HashFile(src.Fit); err != nil {
			return s, &SourceError{File: src.Fit, Err: err}
		}
	}
	if err := e.CheckBase(sum); err != nil {
		return s, &SourceError{Environment: true, File: src.Environment, Err: fmt.Errorf("%s: %w", src.Environment, err)}
	}
	s.Environment, s.Interference = e, e.Interference(s.Base)
	return s, nil
}
