// Package rundiff compares two schedlab run directories and says whether
// they differ beyond noise: the nightly job's question "did last night's
// change change the results?".
//
// Data enters as two run directories. From each it reads manifest.json
// (pipeline.Manifest: the resolved configuration, the seed, the code
// revision and every stage's cache key, inputs and outputs with their
// sha256), the top-level files the manifest does not list (the report),
// and, per evaluation experiment, eval/<experiment>/metrics.parquet and
// results.parquet (evaluation.MetricsRow and ResultRow). Every file it
// reads whose hash the manifest records is checked against it first, so a
// run directory changed after its run is an error, not a silent answer.
//
// Compare returns a Diff: which artifacts differ (files whose names carry
// "timings", manifest.json and report-timings.md hold wall-clock figures
// and are listed apart as expected to differ), which configuration keys
// differ (flattened to dotted keys), what explains each stage whose
// outputs differ (its configuration, its inputs, its version, the run
// seed, or nothing: the same cache key with different outputs means a
// code change or nondeterminism), and, per experiment and cell, the
// metric deltas with a test:
//
//   - where the two cells replayed the same jobs (same job ids with the
//     same submit time, duration and GPUs), a Wilcoxon signed-rank test
//     on the per-job values (evaluation.WilcoxonSignedRank);
//   - otherwise, where each run has at least two seeds of the cell, a
//     Welch t test on the per-seed values, with its confidence interval;
//   - otherwise nothing can be tested: "single sample" (so are seeds that
//     all give the same value: they vary nothing and are not replicates).
//
// p-values are adjusted over all the tests of a comparison with Holm's
// step-down method, so that Alpha bounds the chance of calling any
// difference significant when none is real; a test whose data hold no
// difference at all cannot reject and is left out of the count. A difference is significant
// when its adjusted p-value is below Alpha and its relative size is at
// least MinDelta; a cell present in one run only is significant too, and
// so, unless Options.AllowUntested, is a single-sample cell whose per-job
// metric moves by MinDelta or more: "no difference" would claim what
// nothing showed.
//
// The Diff leaves as Markdown (Diff.Markdown) and as a self-contained
// HTML page (Diff.HTML); Diff.Significant is the verdict that
// `schedlab diff` turns into its exit status.
package rundiff
