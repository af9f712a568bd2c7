// Package stages holds the concrete stages of schedlab's standard DAG
// (ingest → profile → fit → calibrate → train → evaluate → collect →
// report) and the run configuration that selects and parameterises them.
//
// # What it owns
//
//   - Config, the plain, validated configuration of a whole run:
//     cmd/schedlab decodes it strictly from its layers (presets, file,
//     environment, flags) and passes it here; Validate names every bad
//     key.
//   - Build, which turns a Config into the pipeline.Stages that
//     pipeline.Runner executes, from one plan per run (plan.New over
//     Config.Plan: every run experiment's spec and every training built
//     once, then passed to the training, evaluation and derived-table
//     stages).
//   - The stages themselves, one file per step (ingest.go, fit.go,
//     calibrate.go, train.go, eval.go, sensitivity.go, report.go, ...) and
//     their executor tasks (traintask.go, evaltask.go, trainspread.go),
//     which rebuild a stage's inputs from the task's spec alone.
//
// # What it promises
//
//   - A stage's cache key is its configuration value (pipeline.Func.Cfg)
//     plus its inputs' hashes: a value that does not change an output is
//     left out of it, so that adding a key leaves old runs cached.
//   - A stage runs the same bytes in the driver and as a task on any
//     worker: every random stream is keyed by the stage's name
//     (pipeline.StageStream) or its owner's Stream, and every speed model
//     is resolved by plan.SpeedModel.Resolve from the stage's artifacts.
//   - Every output is declared; nothing a stage writes escapes its
//     staging directory until the runner commits it.
//
// # Layering
//
// stages sits above plan (experiments, trainings, speed models) and the kinds
// it runs (datasets, fitting, calibration, sim, schedulers, training,
// evaluation, sensitivity, claims), below cmd/schedlab
// (docs/architecture.md).
//
// # Extending it
//
// An experiment joins the DAG through its registration in evaluation
// (evaluation.Register); a learned family through training.Register and
// training/families; a stage of a new kind is a pipeline.Stage built in
// Build from the Config, declaring its inputs and outputs.
package stages
