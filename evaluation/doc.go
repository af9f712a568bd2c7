// Package evaluation runs experiments: experiment specs, the run matrix of
// cells (cluster × workload × scheduler × seed) with deterministic per-cell
// seeds, statistics (Wilcoxon signed-rank), and tables (Markdown, CSV, LaTeX,
// Parquet) and plots made from measured results.
//
// # Experiments
//
// Every experiment of DESIGN.md §6 is one Experiment value registered in
// experiments.go (Register; Lookup(id); Experiments() in DESIGN order),
// as database/sql registers drivers: its documented spec, how its section
// of the run configuration (Config, the eval key of stages.Config) changes
// that spec, its report section, the paper's figures shown beside ours
// (Reference: every paper number a table shows lives there), and the
// experiments derived from its outputs (das-wilcoxon, das-overhead,
// marl-vs-single-convergence: a Derivation, built from the parent's
// results, timings or learning curves at no further simulation). The DAG
// (stages), the run report and `schedlab eval` read the registry; none of
// them switches on an id.
//
// To add an experiment:
//
//  1. If it has knobs, add its section to Config (a field with
//     mapstructure, yaml and json tags: eval.<section>.*) and its values
//     to the presets (cmd/schedlab/presets/*.yaml).
//  2. Register it in experiments.go, in DESIGN order: ID, Reproduces,
//     Summary (its paragraph of `schedlab eval --help`), Section, Spec
//     (the documented matrix), Configure (apply the section to the spec;
//     return whether speeds come from the fitted model), CheckConfig
//     (validate the section, naming keys in full), and Reference when the
//     paper's figures go beside ours. A derived experiment sets Derive
//     instead of Spec, Configure and CheckConfig; a staged one (the
//     calibration table, written by the calibrate stage of package stages
//     from package calibration's fit; the sensitivity map, written by the
//     sensitivity stage with package sensitivity) sets Stage, and
//     CheckConfig when it has a section.
//  3. List it in a preset's eval.experiments. The stage eval-<id>, its
//     tables/<id>.* and plots/<id>.*, its report section and its derived
//     stages follow from the registration; a learned scheduler it names
//     needs a training stage (stages/train.go).
//
// # Data in and out
//
// An experiment is a Spec (DefaultSpec(id) gives the documented one; edit
// and Validate it). Jobs enter as a canonical jobs Parquet file
// (datasets.Job rows) or from a seeded generator: the PAI-like trace of
// datasets, or datasets.GenerateMARL for the MARL paper's arrival
// patterns, whose Google pattern comes from an arrivals table
// (datasets.ReadArrivals). A trace is cut by datasets.SplitTrace, as
// training cuts it. Run returns a Report; Report.Write writes it to the
// paths it is given (OutputPaths); RunLayout gives a run directory's:
//
//	eval/results.parquet    ResultRow: one per evaluated job per cell
//	eval/metrics.parquet    MetricsRow: one per cell, with its floor and headroom
//	eval/timings.parquet    TimingRow: wall-clock seconds per cell
//	tables/<id>.md .csv .tex
//	plots/<id>.svg .png
//
// The rows are filled in one place from the cell key and the simulator's
// sim.JobResult, sim.Metrics and sim.Timing, field by name; the row types
// fix the files' columns. With Options.ScratchDir (the DAG's stages give
// their task directory) each finished cell's per-job results go to a file
// there, named by the cell's place in the report, and only the per-job JCT
// and fee that the Wilcoxon notes pair stay in memory; Report.Write reads
// the files back a cell at a time and Report.Close removes them.
//
// # Floor and headroom
//
// Every cell carries the floor of its jobs (sim.Floor: a mean JCT no
// scheduler can beat in the engine), the best heuristic of its column
// (cluster, workload, seed; rows neither learned nor oracle), the headroom
// (best − floor) / floor and its own share of it (headroom.go). Every
// table has a floor row (source "bound") and notes giving each column's
// headroom, each learned row's share and the operating point (GPU and CPU
// utilisation, mean queueing delay); the claims scoreboard reads the floor
// to call a claim larger than its headroom untestable there.
//
// # Determinism
//
// Every random stream is pipeline.Rand(run seed, StreamEval, experiment, ...):
// a synthetic workload is keyed by (workload, cluster for MARL workloads,
// replicate), so that all schedulers of a column see the same jobs, and a
// scheduler's seed by the whole cell key. Cells run in a conc pool, each
// writing only its own slot; the report lists cells in spec order. No wall
// clock reaches anything but timings.parquet, so the other files are
// byte-identical for any worker count and GOMAXPROCS.
//
// # Interpretation
//
// Trace workloads (das-table1) follow DAS §5.1.2: jobs sorted by
// submission, jobs that do not fit every cluster of the spec (empty)
// pruned and counted (so that every cluster sees the same jobs and per-job tests pair
// up), the first MaxJobs kept, split 8:2 by submission order, and only the
// last 20 % simulated (the training split is for the learned schedulers).
// MARL workloads are generated for the evaluation itself and simulated in
// full. Learned schedulers join a spec as further scheduler names once the
// schedulers registry builds them (Options.NewScheduler can also supply
// them).
package evaluation
