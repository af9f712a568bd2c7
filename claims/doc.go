// Package claims is the run report's scoreboard: each claim of the two
// papers that a run can test, with the paper's figure, ours, a 95 %
// confidence interval and a verdict, first in report.md and report.html
// and in tables/claims.{md,csv} for scripts. The list of claims and the
// full verdict rules are in docs/packages.md (claims).
//
// # What it owns
//
//   - The claim registry (registry.go: Register; All in registration
//     order): an id scripts follow from night to night, the paper and its
//     table or figure, the claim in a sentence, the paper's figure (read
//     from evaluation's References where they live there), the experiment
//     whose outputs decide it, and Evaluate.
//   - The verdicts: holds (the whole interval above the threshold), does
//     not hold (at or below it), inconclusive (straddles it), untestable
//     here (a failure where the cell's headroom is below the threshold,
//     or any verdict on a claimed learned row whose family judges that
//     its models did not learn: Run.NotLearned, training.Learner), not
//     run in this preset; with one sample the point value decides,
//     marked "(n = 1)".
//   - Load (a run directory's eval/metrics.parquet, tables/calibration.csv,
//     and eval/results.parquet only for a Wilcoxon claim) and Write
//     (tables/claims.md, tables/claims.csv).
//
// # What it promises
//
//   - Intervals are evaluation.BootstrapMeanCI over per-seed, per-replicate
//     cell means, drawn from pipeline.RandSource(run seed, "claims", claim
//     id, metric, row, column); nothing reads a clock: the same run gives
//     the same bytes.
//   - A baseline is the best of the rows a claim names that the run has,
//     never an oracle; a claim is never lost: a calibration row no claim
//     reads gets a row of its own (cal-row-N).
//
// # Extending it
//
// A new claim is one Claim value added in registry.go's registerPapers
// (run on first use, once the families have registered the display names
// its texts use): its id, paper, experiment, threshold and Evaluate (a
// margin, Wilcoxon or calibration test from this package's helpers). The report and the scoreboard follow.
package claims
