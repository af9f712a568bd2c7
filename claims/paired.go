package claims

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
)

// DAS Table 3's significance levels: the paper calls DAS's gain on JCT
// significant at p < 0.05 and on fee at p < 0.10.
const (
	wilcoxonJCTLevel = 0.05
	wilcoxonFeeLevel = 0.10
)

// pair is what a paired claim compares, as its registration declares
// it: the claimed row (DAS) and the row it is measured against (RIFLING
// in the paper's PPO form, evaluation.DASRIFLING).
type pair struct{ claimed, against string }

// wilcoxon decides "p.claimed beats p.against on the cluster" as DAS
// Table 3 does: the Wilcoxon signed-rank test on per-job pairs
// (das-table1's results, the same job under both schedulers, seed and
// replicate), JCT and fee. It holds when both p-values are below the
// paper's levels and the claimed row has the lower rank sum on both; a
// significant difference the other way, or none, does not hold. The test
// speaks for the jobs, not for the training: with one replicate the
// verdict is marked.
func wilcoxon(cluster string, p pair) func(in *Input) (Outcome, error) {
	return func(in *Input) (Outcome, error) {
		out := Outcome{Value: math.NaN(), Threshold: math.NaN(), Headroom: math.NaN()}
		if ran, err := in.hasBoth(evaluation.DASTable1, p, &out); !ran || err != nil {
			return out, err
		}
		jobs, err := in.jobsOf()
		if err != nil {
			return out, err
		}
		type key struct {
			workload string
			s        sample
			job      string
		}
		against := map[key]Job{}
		for _, j := range jobs {
			if j.Experiment == evaluation.DASTable1 && j.Cluster == cluster && j.Scheduler == p.against {
				against[key{j.Workload, sample{j.Seed, j.Replicate}, j.JobID}] = j
			}
		}
		var dj, rj, df, rf []float64
		var samples []sample
		for _, j := range jobs {
			if j.Experiment != evaluation.DASTable1 || j.Cluster != cluster || j.Scheduler != p.claimed {
				continue
			}
			r, ok := against[key{j.Workload, sample{j.Seed, j.Replicate}, j.JobID}]
			if !ok {
				continue
			}
			if s := (sample{j.Seed, j.Replicate}); !slices.Contains(samples, s) {
				samples = append(samples, s)
			}
			dj, rj, df, rf = append(dj, j.JCTS), append(rj, r.JCTS), append(df, j.FeeUSD), append(rf, r.FeeUSD)
		}
		if len(dj) == 0 {
			out.Verdict, out.Note = NotRun, fmt.Sprintf("no job of %s on %s under both %s and %s", evaluation.DASTable1, cluster, display(p.claimed), display(p.against))
			return out, nil
		}
		wj, err := evaluation.WilcoxonSignedRank(dj, rj)
		if err != nil {
			return out, fmt.Errorf("%s, %s: %w", evaluation.DASTable1, cluster, err)
		}
		wf, err := evaluation.WilcoxonSignedRank(df, rf)
		if err != nil {
			return out, fmt.Errorf("%s, %s: %w", evaluation.DASTable1, cluster, err)
		}
		// Differences are claimed − against: the claimed row lower when
		// the negative ones outrank the positive.
		lower := func(w evaluation.Wilcoxon) string {
			if w.WPlus < w.WMinus {
				return display(p.claimed)
			}
			return display(p.against)
		}
		out.Ours = fmt.Sprintf("JCT p = %s (%s lower), fee p = %s (%s lower)",
			evaluation.FormatValue(wj.P, -3), lower(wj), evaluation.FormatValue(wf.P, -3), lower(wf))
		out.CI.N = len(samples)
		out.Seeds, out.Models = spread(samples)
		out.Verdict = DoesNotHold
		if wj.P < wilcoxonJCTLevel && wj.WPlus < wj.WMinus && wf.P < wilcoxonFeeLevel && wf.WPlus < wf.WMinus {
			out.Verdict = Holds
		}
		out.NotLearned = in.notLearned(evaluation.DASTable1, p.claimed, []string{cluster}, false)
		out.Verdict = learned(out.Verdict, out.NotLearned)
		out.TestedAt = fmt.Sprintf("%d job pairs (paper: 4,000)", len(dj))
		return out, nil
	}
}

// hasBoth says whether experiment, which the run evaluates, has rows of
// both schedulers of p; where either is missing, out is marked not run,
// with the reason. An experiment without any row is an error.
func (in *Input) hasBoth(experiment string, p pair, out *Outcome) (bool, error) {
	rows := in.rows(experiment)
	if len(rows) == 0 {
		return false, fmt.Errorf("%s is in eval.experiments but %s has no row of it", experiment, evaluation.MetricsFile)
	}
	if _, missing := split([]string{p.claimed, p.against}, rows); len(missing) > 0 {
		out.Verdict, out.Note = NotRun, in.absent(experiment, missing, fmt.Sprintf("%s not among the rows of %s in this preset", displayAll(missing), experiment))
		return false, nil
	}
	return true, nil
}

// loadTrend decides "p.claimed's JCT gain over p.against grows with the
// arrival rate" (DAS App. E) as the gain at das-load's highest rate minus
// that at its lowest, per cluster, per sample: it must be positive on
// every cluster.
func (p pair) loadTrend(in *Input) (Outcome, error) {
	out := Outcome{Value: math.NaN(), HasCI: true, Headroom: math.NaN()}
	if ran, err := in.hasBoth(evaluation.DASLoad, p, &out); !ran || err != nil {
		return out, err
	}
	rates := slices.Clone(evaluation.DASLoadSection.Get(in.Config).Rates)
	slices.Sort(rates)
	if len(rates) < 2 {
		out.Verdict, out.Note = NotRun, "das-load runs one arrival rate in this preset"
		return out, nil
	}
	lo, hi := evaluation.LoadWorkloadName(rates[0]), evaluation.LoadWorkloadName(rates[len(rates)-1])
	var clusters []string
	for _, col := range in.columns(evaluation.DASLoad) {
		if !slices.Contains(clusters, col.cluster) {
			clusters = append(clusters, col.cluster)
		}
	}
	var tests []test
	for _, cl := range clusters {
		gain := func(w string) series {
			d := in.series(evaluation.DASLoad, p.claimed, column{cl, w}, jct)
			r := in.series(evaluation.DASLoad, p.against, column{cl, w}, jct)
			g := series{}
			for _, k := range d.samples() {
				if v, ok := r.matching(k); ok && v != 0 {
					g[k] = 100 * (v - d[k]) / v
				}
			}
			return g
		}
		gl, gh := gain(lo), gain(hi)
		var diffs []float64
		var used []sample
		for _, k := range gh.samples() {
			if v, ok := gl[k]; ok {
				diffs, used = append(diffs, gh[k]-v), append(used, k)
			}
		}
		if len(diffs) == 0 {
			continue
		}
		iv, v := judge(diffs, 0, in.Seed, keyLoadTrend, pipeline.Key(cl))
		seeds, models := spread(used)
		why := in.notLearned(evaluation.DASLoad, p.claimed, []string{cl}, len(clusters) > 1)
		tests = append(tests, test{label: fmt.Sprintf("(%s − %s, %s)", hi, lo, title(cl)), iv: iv, verdict: learned(v, why), seeds: seeds, models: models, notLearned: why})
	}
	if len(tests) == 0 {
		out.Verdict, out.Note = NotRun, fmt.Sprintf("no cluster of %s has both %s and %s", evaluation.DASLoad, lo, hi)
		return out, nil
	}
	worst, verdict := allOf(tests)
	out.Verdict, out.CI, out.Value, out.Seeds, out.Models = verdict, worst.iv, worst.iv.Mean, worst.seeds, worst.models
	out.NotLearned = notLearnedOf(tests)
	out.Ours = fmt.Sprintf("%s points %s", strings.TrimSuffix(percent(worst.iv.Mean), " %"), worst.label)
	if len(tests) > 1 {
		out.Ours += fmt.Sprintf(" (the least of %d)", len(tests))
	}
	out.TestedAt = fmt.Sprintf("%d jobs (paper: 4,000), rates %s to %s", in.jobCount(evaluation.DASLoad, p.claimed), lo, hi)
	return out, nil
}
