// Package training groups schedlab's learning code: training/nn
// (reverse-mode autodiff on gonum, Adam, checkpoints), training/rl (PPO,
// MAPPO, actor-critic, Q-learning, GAE) and one package per learned scheduler
// family with its network, policy and trainer.
//
// This package holds what the families share: the learning-curve table
// (Curve, WriteCurves, PlotCurves) and the family registry. A Family
// trains a model directory from a TrainSpec and opens one as a scheduler;
// Register adds it and registers each of its variants (the learned
// scheduler names it provides) with package schedulers, whose New then
// opens a model directory through the family. The pipeline's training
// stages, `schedlab train`, `schedlab eval --models` and schedulers.New
// all reach a family through the registry: nothing outside the family's
// package names it. Package training/families links every family in.
//
// # Adding a sixth family
//
//  1. Write the family's package, training/<name>, with a family.go: a
//     type implementing Family (name; Variants, each a schedulers.Info; the
//     Source of its jobs; the train.<Section> of the run configuration it
//     reads, declared once by the package that owns it with DeclareSection
//     (its type, documented defaults and range check; marl.Section and
//     daspaper.Section are the two); Configure, taking its settings from
//     that section of Sections (Section.Get) into a config of its own (JSON tags, as the training stage records
//     it, and a Validate); Files, Train writing them into TrainSpec.Dir with
//     WriteCurves, and Open), and `func init() { training.Register(family{}) }`.
//  2. Add the one line `_ "github.com/schedlab/schedlab/training/<name>"`
//     to training/families.
//  3. If it trains in episodes, honour TrainSpec.Resume (resume.go): save
//     everything the remaining episodes depend on after each one (its
//     parameters, optimiser state, random generators' states, curves) and
//     continue from a saved state, so that a training retried on another
//     worker resumes; add the variant to training/families'
//     TestResumeIsByteIdentical.
//  4. Optionally, say what the report and the run's checks read of it:
//     Episodic (its variants' episodes, the claims' "tested at"),
//     TrainedBy (a variant's trainer), Learner (whether its trained
//     models learned, from their curves: a claim on a row whose models
//     did not is untestable here) and Sized (training memory per server,
//     the memory estimate). They live beside the family, never as a name
//     matched elsewhere.
//
// Its schedulers can then be named in any experiment's scheduler list:
// schedlab run adds a training stage per model (models/<name>/, or
// models/<name>/<cluster id>/), trains it on the jobs of its Source
// (plan.TrainingData, the one split of the run's jobs into training,
// validation and evaluated jobs) under the experiment's simulator
// configuration and interference model, and evaluates it; schedlab train
// --family <name> trains the same model alone. A new data source (a Source
// value and its planning in plan/source.go) is the only change outside the
// two places above: a new train.* section needs none (the decoder,
// `schedlab config defaults`, the checks and the configuration hash reach
// it through SectionRegistry).
package training
