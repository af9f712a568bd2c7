package calibration

import "github.com/schedlab/schedlab/evaluation"

// Environment is one calibrated environment the calibrate stage can fit:
// the paper whose experiments run in it (evaluation.Experiment.Paper) and
// whether a run's configuration has it fitted. The stages and the plan
// read these declarations, never an environment's name.
type Environment struct {
	Paper string
	// Fitted says whether a run whose eval section is c fits it.
	Fitted func(c *evaluation.Config) bool
	// NotFitted says, for a claim on the environment, why a run that does
	// not fit it has no rows of it (the key that turns it off).
	NotFitted string
}

// Environments are the environments the calibrate stage can fit, by
// name: marl-paper always (under a second), das-paper when
// eval.calibration.das asks for it (tens of seconds of simulation).
var Environments = map[string]Environment{
	MARLPaper: {Paper: evaluation.PaperMARL, Fitted: func(*evaluation.Config) bool { return true }},
	DASPaper: {Paper: evaluation.PaperDAS, Fitted: func(c *evaluation.Config) bool { return evaluation.CalibrationSection.Get(c).DAS },
		NotFitted: DASPaper + " is not fitted in this preset (eval.calibration.das: false)"},
}
