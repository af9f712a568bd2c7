// Package plan holds a run's plan as values, built once from the resolved
// configuration and passed, never re-derived: today the speed model
// (SpeedModel) with its one resolver, and where trained models live.
//
// # What it owns
//
//   - SpeedModel, {speed, fitted model, environment}: how a simulation
//     computes job speeds (DESIGN.md §4). An experiment, a training and a
//     sensitivity part each carry one; SpeedModel.Inputs names the run
//     artifacts it reads (FitModel, EnvironmentFile).
//   - SpeedModel.Resolve, the only place that turns a speed model and
//     its files (Sources) into the simulator's sim.Interference: it reads
//     the fitted model, reads the calibrated environment, checks that the
//     environment is the one named and was calibrated over that base
//     model, and wraps the base model in it.
//   - The layout of trained models: ModelDir (models/<key>/), ClusterID
//     (a cluster spec's name in model directories and stage names) and
//     OpenModel, which opens a learned scheduler from a run's models/.
//
// # What it promises
//
//   - No I/O but reading the files a caller names; no randomness.
//   - Errors say which source failed: a *SourceError (Environment says
//     which file) wrapping the reader's error, sim.ErrBadEnvironment or
//     ErrOtherEnvironment; ErrNoEnvironment when an environment is named
//     and no file given. A command maps them to its flags; a stage to its
//     artifacts (RunSources).
//
// # Layering
//
// plan sits below stages and cmd/schedlab and above the kinds it plans
// (sim, fitting, schedulers, training, pipeline): it imports none of
// stages, cmd or evaluation, and nothing it imports imports it back
// (docs/architecture.md).
//
// # Extending it
//
// A new source of job speeds is a field of SpeedModel, a source in
// Sources and a step in Resolve; every stage and command that simulates
// gets it from there.
package plan
