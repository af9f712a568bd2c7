// Package evaluation runs experiments: experiment specs, the run matrix of
// cells (cluster × workload × scheduler × seed) with deterministic per-cell
// seeds, statistics (bootstrap, Wilcoxon signed-rank), and tables
// (Markdown, CSV, LaTeX, Parquet) and plots made from measured results.
// How traces are cut, the floor and headroom, and the scratch files are in
// docs/packages.md (evaluation).
//
// # What it owns
//
//   - The experiment registry (experiments.go: Register, Lookup,
//     Experiments in DESIGN order): each Experiment carries its documented
//     Spec, its section of the run configuration (Config, eval.<id> with
//     dashes as underscores: its Defaults, Configure, CheckConfig), its
//     report section, the paper's figures (Reference) and the experiments
//     derived from its outputs (Derivation). The DAG, the report and
//     `schedlab eval` read the registry; none of them switches on an id.
//   - Run (a Spec to a Report) and Report.Write, to the paths RunLayout
//     gives: eval/results.parquet (ResultRow), eval/metrics.parquet
//     (MetricsRow, with each cell's floor and headroom),
//     eval/timings.parquet (TimingRow), tables/<id>.{md,csv,tex},
//     plots/<id>.{svg,png}.
//
// # What it promises
//
//   - Every random stream is pipeline.Rand(run seed, StreamEval,
//     experiment, ...): a workload is keyed so that every scheduler of a
//     column sees the same jobs. Cells run in a conc pool, each writing
//     its own slot; no wall clock reaches anything but timings.parquet,
//     so the other files are byte-identical for any worker count.
//   - The row types fix the files' columns; rows are filled in one place
//     (fillRow) from the cell key and sim's types, field by name.
//
// # Extending it
//
//  1. Register the experiment in experiments.go: ID, Reproduces, Summary,
//     Section, Spec, Configure (apply the section; say whether speeds come
//     from the fitted model), CheckConfig (naming keys in full), Defaults
//     (its section's YAML with docs), Reference when the paper's figures
//     go beside ours, Plot when its figure is not the grouped bars. A
//     derived experiment sets Derive; a staged one (its own stage writes
//     it) sets Stage.
//  2. Settings declares its section's type (eval.<section>): a Section
//     handle, NewSection[T](id), through which Configure and CheckConfig
//     read it. Config gets no field: the configuration's decoder, its
//     hash and `config show` find the section through the registry.
//  3. List it in a preset's eval.experiments: its stage, tables, plots,
//     report section and derived stages follow from the registration.
package evaluation
