package evaluation

// Calibration is the experiment comparing the calibrated environments
// with the papers' measurements of their own testbeds (DESIGN.md §4): a
// staged experiment, written by the calibrate stage.
const Calibration = "calibration"

// Registered before the run experiments (this file sorts first), so that
// it lists first: the report shows it before the tables that depend on the
// environment.
func init() {
	Register(Experiment{
		ID: Calibration, Reproduces: "MARL §II, Figs 1(a), 1(b), 2(b), 3(a)",
		Summary: `the calibrated environment marl-paper against the MARL paper's
measurements: mean slowdown of the eight Table I jobs bin-packed (30 %)
and load-balanced (37 %) on four 16-core 2-GPU servers, and the
orderings of Figs 1(b) and 2(b). Written by the calibrate stage.`,
		Section: ReportSection{"Calibration: the speed model against the papers' own measurements",
			"The environment's free parameters (interference scale, communication scale, parameter-server share) fitted by least squares to the MARL paper's §II measurements; ours before and after calibration, with the paper's figures."},
		Stage: "calibrate",
	})
}
