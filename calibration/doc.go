// Package calibration fits the calibrated environments (sim.Environment):
// the speed model's free parameters (interference_scale, comm_scale,
// ps_share) fitted to each paper's own measurements of its testbed, so
// that numbers no source gives are parameters of an environment, not
// constants (DESIGN.md §4).
//
// # What it owns
//
//   - marl-paper (MARLPaper): Fit over a base interference model to the
//     MARL paper's §II targets (MARLTargets: mean slowdown 30 % under bin
//     packing, 37 % under load balancing, the orderings of Figs 1b and
//     2b), measured on the scenarios of scenarios.go (Measure, Slowdowns).
//   - MARL Table III's ordering row (TableIIICheck): the fit stage's
//     cross-validated errors, ours against the best of the other four.
//   - das-paper (DASPaper): FitDAS to DAS Table 1's heuristic rows
//     (DASTable1Targets: the best-to-worst spreads of mean JCT and fee),
//     with the simulator as the surrogate (DASSurrogate: das-table1's
//     clusters and evaluated jobs, rows DASFitRows), started from the best
//     point of DASStartGrid and bounded to DASMaxIterations Jacobians.
//   - The calibration experiment's table and plot (Report).
//
// # What it promises
//
//   - An environment is relative to its base model: its BaseModel is the
//     sha256 of the model it was fitted over, and plan.SpeedModel.Resolve
//     refuses it over another (sim.Environment.CheckBase).
//   - Fits are deterministic: Levenberg–Marquardt (fitting.Minimize) with
//     a forward-difference Jacobian; FitDAS's simulations draw from
//     (seed, Stream, environment, cluster, row) and return the same bytes
//     on any number of workers.
//   - Residuals are (ours − target)/tolerance for numeric targets and
//     hinges for orderings and ranges, so "met" means within tolerance;
//     the report says which parameters had no effect and, for a cluster
//     whose JCT spread das-paper leaves outside its range, the nearest
//     any start-grid point came (DASResult.GridJCTSpread). What a fit
//     gives on a given trace is in docs/measurements.md, not here.
//
// # Extending it
//
// A new paper's environment is a name, its targets, the scenarios or
// surrogate that measure them and a Fit function returning a
// sim.Environment; the calibrate stage (stages.Calibrate) writes it to
// plan.EnvironmentFile(name) and the experiments of that paper read it.
// The interpretation of each paper's setup and the measured fits are in
// docs/measurements.md under "Calibration".
package calibration
