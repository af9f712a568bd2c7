// Package claims is the run report's scoreboard (issue 17, item 6): each
// claim of the two papers that a run can test, with the paper's figure,
// ours, a 95 % confidence interval and a verdict, first in report.md and
// report.html and in tables/claims.{md,csv} for scripts.
//
// # Registry
//
// Every claim is one Claim value registered in registry.go (Register; All
// in registration order), as experiments are in package evaluation and
// families in package training: an id that scripts follow from night to
// night, the paper and the table or figure it comes from, the claim in a
// sentence, the paper's figure, the experiment whose outputs decide it,
// and Evaluate. The paper's figures are read from the experiment
// registry's References where they live there (DAS Tables 1 and 3);
// claims of plots give the paper's words. The claims:
//
//   - DAS Table 1: DAS has a lower mean JCT, and a lower fee, than every
//     baseline (seven heuristic rows, DL², RIFLING) on each cluster (the
//     paper: "outperforms all the competitors in all cases"; its own Table
//     1 has DA+RWGP below DAS on Large's JCT, so the claim is against the
//     baselines, not the ablation variants); the ablation: DAS has the
//     lowest average JCT and fee of its four variants, and MC and RWGP each
//     improve DA.
//   - DAS Table 3: DAS beats RIFLING per cluster by the Wilcoxon
//     signed-rank test on per-job JCT (p < 0.05) and fee (p < 0.10).
//   - DAS Fig. 5 (das-tuning): DAS beats RIFLING at every h and τ; τ = 8
//     is best for JCT and fee; h = 4 for fee.
//   - DAS Appendix E, Fig. 7 (das-load): DAS's fee is below RIFLING's at
//     every arrival rate; its JCT gain grows with the rate (highest rate
//     against lowest, per cluster).
//   - MARL Figs 7, 8, 9: MARL (device-level) has a mean JCT at least 20 %
//     below every baseline under each arrival pattern, server
//     configuration and topology (the paper's headline; each figure's own
//     least margin, 24.3, 22 and 21 %, is its paper figure), and Fig. 7
//     again for the policy trained with the paper's own learning rate and
//     reward. The paper measures at k = 20 (2,000 servers); the "tested
//     at" column says at which scale the run did.
//   - MARL Fig. 10: the multi-agent scheduler beats one single agent.
//   - Tiresias (NSDI '19) §6, on the preemptive experiment's traces and
//     restart costs: 2D-LAS, knowing no duration, beats strict FIFO on
//     mean JCT; and SRTF (an oracle, the row claimed, never a baseline)
//     against 2D-LAS, whose margin is what knowing durations is worth.
//   - Calibration targets (the calibration experiment's
//     tables/calibration.csv): MARL Figs 1(a), 3(a), 1(b), 2(b) and Table
//     III in marl-paper, DAS Table 1's heuristic spreads per cluster in
//     das-paper. A row of that table that no claim reads gets a row of
//     its own (cal-row-N), so that a new target is never lost.
//
// # Verdicts
//
// A claim whose experiment the run's eval.experiments does not list, or
// whose rows the preset does not run (quick's das-table1 has no DAS row),
// is "not run in this preset", with a note saying what is missing.
//
// A comparison claim tests a margin, (baseline − ours) / baseline of the
// mean JCT or fee in per cent, against a threshold (0 for "lower than",
// 20 for MARL's "at least 20 % better"). The baseline is the best
// (lowest) of the rows the claim names that the run has, in each column
// (cluster, workload; or the papers' Average column). The samples are the
// claimed row's per-replicate, per-seed cell means, each matched to the
// baseline's value at the same seed and replicate (a learned baseline with
// the same replicates) or to its mean over replicates at that seed (a
// heuristic). Their 95 % interval is evaluation.BootstrapMeanCI with
// evaluation.BootstrapResamples resamples from
// pipeline.RandSource(run seed, stream ("claims"), claim id, metric, row, column):
//
//   - holds: the whole interval is above the threshold;
//   - does not hold: the whole interval is at or below it;
//   - inconclusive: the interval straddles it;
//   - with one sample (one replicate, one seed) there is no interval:
//     the point value decides, and the verdict is marked "(n = 1)".
//
// The interval says how many seeds and trained models (replicates) its
// samples span: seeds of one model vary the workload only (and the DAS
// experiments replay one trace, so their seeds may give equal figures
// and a zero-width interval), so training noise is in the interval only
// with several models.
//
// A test knows its power. Every cell has a floor (evaluation.Headroom:
// a mean JCT no scheduler can beat on its jobs); for a margin claim on
// mean JCT the most any scheduler could show over the baseline is the
// margin of one at the floor, (baseline − floor) / baseline, the test's
// headroom. A test that does not hold, or is inconclusive, where the
// headroom is below the threshold is "untestable here": the environment
// could not have shown the claim, so its failure says nothing of the
// scheduler. The verdict names both figures ("untestable here (headroom
// 5.9 % < claimed 20.0 %)") and claims.csv carries the headroom.
//
// A claim over several columns, metrics or rows holds when every test
// holds, does not hold when one does not, is untestable when one is and
// none fails, and is inconclusive otherwise; the scoreboard shows its
// least margin. The baseline's own spread over
// its replicates is not in the interval: a heuristic has none, and the
// learned baselines (RIFLING, DL², DeepSys, Atte) enter through their
// mean, or matched replicate by replicate.
//
// A Wilcoxon claim holds when both p-values are below the paper's levels
// with DAS lower in rank sum; the test pools the per-job pairs of every
// seed and replicate, so it speaks for the jobs, not for the training
// (one replicate is marked). A calibration claim holds when every row of
// tables/calibration.csv it reads is within its tolerance; those figures
// are computed once in the fitted environment and carry no interval.
//
// # Data
//
// Load reads a run directory: eval/metrics.parquet (Cell: the columns of
// evaluation.MetricsRow the claims need, and replicate when the file has
// it, else 0), tables/calibration.csv, and eval/results.parquet only when
// a Wilcoxon claim runs. Write evaluates and writes tables/claims.md and
// tables/claims.csv; stages.WriteReport calls it and puts the Markdown
// first in the report. Nothing here reads a clock: the same run gives the
// same bytes.
package claims
