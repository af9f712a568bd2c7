// Package plan holds a run's plan as values, built once from the resolved
// configuration and passed, never re-derived: the experiments a run
// evaluates, the models it trains, the speed model with its one resolver,
// and where trained models live.
//
// # What it owns
//
//   - Config, the part of a run's configuration a plan reads (the sim and
//     train sections, SimConfig and TrainConfig, declared and range-checked
//     here but for the families' train.<section>s, which their packages
//     declare and check; eval; the run's job trace), and Plan (New): every run
//     experiment's spec, inputs and speed model, built once.
//   - Config.Standalone, an experiment as schedlab eval runs it outside a
//     run, by the same function as the run's.
//   - SensitivityPart (Config.SensitivityParts): what every grid point of
//     the sensitivity experiment evaluates and trains.
//   - Training (Config.Training, TrainingOf), one model to train: its JSON
//     is the training stage's cache key; its random streams (Inputs,
//     ReplicaSeeds, TrainStreams) and its data split (TrainingData) are
//     drawn here for the stage, its executor task and schedlab train alike.
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
//   - No I/O but reading the files a caller names; random streams only
//     as keyed draws from the run seed (pipeline.Rand), never drawn here.
//   - Errors say which source failed: a *SourceError (Environment says
//     which file) wrapping the reader's error, sim.ErrBadEnvironment or
//     ErrOtherEnvironment; ErrNoEnvironment when an environment is named
//     and no file given. A command maps them to its flags; a stage to its
//     artifacts (RunSources).
//
// # Layering
//
// plan sits below stages and cmd/schedlab and above the kinds it plans
// (evaluation, sim, fitting, schedulers, training, pipeline): it imports
// neither stages nor cmd, and nothing it imports imports it back
// (docs/architecture.md). It runs nothing: stages turns a Plan into
// stages and runs them (stages.Train runs a Training).
//
// # Extending it
//
// A key a plan reads is a field of Config, filled by stages.Config.Plan.
// A new source of job speeds is a field of SpeedModel, a source in
// Sources and a step in Resolve; every stage and command that simulates
// gets it from there.
package plan
