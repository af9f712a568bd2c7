// Package evaluation runs experiments: experiment specs, the run matrix of
// cells (cluster × workload × scheduler × seed) with deterministic per-cell
// seeds, statistics (Wilcoxon signed-rank), and tables (Markdown, CSV, LaTeX,
// Parquet) and plots made from measured results.
//
// # Data in and out
//
// An experiment is a Spec (DefaultSpec(id) gives the documented one; edit
// and Validate it). Jobs enter as a canonical jobs Parquet file
// (datasets.Job rows) or from a seeded generator: the PAI-like trace of
// datasets, or datasets.GenerateMARL for the MARL paper's arrival
// patterns, whose Google pattern comes from an arrivals table
// (datasets.ReadArrivals). A trace is cut by datasets.SplitTrace, as
// training cuts it. Run returns a Report; Report.Write puts it under a run
// directory:
//
//	eval/results.parquet    ResultRow: one per evaluated job per cell
//	eval/metrics.parquet    MetricsRow: one per cell
//	eval/timings.parquet    TimingRow: wall-clock seconds per cell
//	tables/<id>.md .csv .tex
//	plots/<id>.svg .png
//
// # Determinism
//
// Every random stream is pipeline.Rand(run seed, "eval", experiment, ...):
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
