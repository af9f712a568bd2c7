// Package evaluation runs experiments: experiment specs, the run matrix of
// cells (cluster × workload × scheduler × seed) with deterministic per-cell
// seeds, statistics (Wilcoxon signed-rank), and tables (Markdown, CSV, LaTeX,
// Parquet) and plots made from measured results.
package evaluation
