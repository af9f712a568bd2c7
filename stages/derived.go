package stages

import (
	"context"
	"fmt"
	"math"
	"path"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
)

// Tables derived from das-table1's per-job results and timings, so that
// they cost no further simulation: das-wilcoxon (DAS Table 3) and
// das-overhead (DAS Appendix F; built from wall-clock timings, hence the
// "timings" in its file names, DESIGN.md §2).
const (
	DASWilcoxon = "das-wilcoxon"
	DASOverhead = "das-overhead-timings"
)

// dasTable3 is DAS Table 3 (KDD 2023): p-values of DAS vs RIFLING on JCT
// and fee, Small, Medium, Large.
var dasTable3 = []float64{0.0002, 0.0588, 0.0006, 0.0570, 0.04911, 0.0792}

func tableOutputs(id string) []string {
	return []string{"tables/" + id + ".md", "tables/" + id + ".csv", "tables/" + id + ".tex"}
}

func writeTable(env *pipeline.Env, id string, t *evaluation.Table) error {
	outs := tableOutputs(id)
	for i, b := range [][]byte{t.Markdown(), t.CSV(), t.LaTeX()} {
		if err := pipeline.WriteFileAtomic(env.Output(outs[i]), b); err != nil {
			return err
		}
	}
	return nil
}

// dasDerivedStages adds das-wilcoxon when das-table1 has both DAS and
// RIFLING rows, and das-overhead when it has learned rows.
func (c *Config) dasDerivedStages() []pipeline.Stage {
	if !slices.Contains(c.Eval.Experiments, evaluation.DASTable1) {
		return nil
	}
	var learned []string
	for _, n := range c.Eval.DASTable1.Schedulers {
		if canon, _ := evaluation.CanonicalScheduler(n); evaluation.IsLearned(canon) {
			learned = append(learned, canon)
		}
	}
	dir := evalDir(evaluation.DASTable1)
	results, timings := path.Join(dir, path.Base(EvalResults)), path.Join(dir, path.Base(EvalTimings))
	var out []pipeline.Stage
	if slices.Contains(learned, "das") && slices.Contains(learned, "rifling") {
		out = append(out, &pipeline.Func{
			StageName: "eval-" + DASWilcoxon, StageVersion: stageVersion, In: []string{results}, Out: tableOutputs(DASWilcoxon), Cfg: DASWilcoxon,
			Fn: func(ctx context.Context, env *pipeline.Env) error {
				rows, err := datasets.ReadParquet[evaluation.ResultRow](env.Input(results))
				if err != nil {
					return err
				}
				t, err := wilcoxonTable(rows, "das", "rifling")
				if err != nil {
					return err
				}
				return writeTable(env, DASWilcoxon, t)
			},
		})
	}
	if len(learned) > 0 {
		out = append(out, &pipeline.Func{
			StageName: "eval-das-overhead", StageVersion: stageVersion, In: []string{timings}, Out: tableOutputs(DASOverhead), Cfg: learned,
			Fn: func(ctx context.Context, env *pipeline.Env) error {
				rows, err := datasets.ReadParquet[evaluation.TimingRow](env.Input(timings))
				if err != nil {
					return err
				}
				return writeTable(env, DASOverhead, overheadTable(rows))
			},
		})
	}
	return out
}

// wilcoxonTable pairs the per-job results of schedulers a and b in each
// cluster (same workload, seed and job) and tests JCT and fee.
func wilcoxonTable(rows []evaluation.ResultRow, a, b string) (*evaluation.Table, error) {
	type key struct {
		cluster, workload string
		seed              int32
		job               string
	}
	var clusters []string
	byKey := map[key]evaluation.ResultRow{}
	for _, r := range rows {
		if r.Scheduler == b {
			byKey[key{r.Cluster, r.Workload, r.Seed, r.JobID}] = r
		}
		if !slices.Contains(clusters, r.Cluster) {
			clusters = append(clusters, r.Cluster)
		}
	}
	t := &evaluation.Table{ID: DASWilcoxon,
		Title:   fmt.Sprintf("das-wilcoxon: Wilcoxon signed-rank p-values, %s vs %s, per-job JCT and fee", evaluation.DisplayName(a), evaluation.DisplayName(b)),
		Metrics: []evaluation.Metric{{Label: "JCT p", Key: "jct_p", Digits: -3}, {Label: "Fee p", Key: "fee_p", Digits: -3}}}
	ours := evaluation.TableRow{Label: evaluation.DisplayName(a) + " vs " + evaluation.DisplayName(b), Source: evaluation.SourceOurs}
	for _, c := range clusters {
		var ja, jb, fa, fb []float64
		for _, r := range rows { // rows are in cell order, jobs in job order
			if r.Cluster != c || r.Scheduler != a {
				continue
			}
			o, ok := byKey[key{r.Cluster, r.Workload, r.Seed, r.JobID}]
			if !ok {
				continue
			}
			ja, jb = append(ja, r.JCTS), append(jb, o.JCTS)
			fa, fb = append(fa, r.FeeUSD), append(fb, o.FeeUSD)
		}
		wj, err := evaluation.WilcoxonSignedRank(ja, jb)
		if err != nil {
			return nil, err
		}
		wf, err := evaluation.WilcoxonSignedRank(fa, fb)
		if err != nil {
			return nil, err
		}
		t.Groups = append(t.Groups, displayCluster(c))
		ours.Values = append(ours.Values, wj.P, wf.P)
		t.Notes = append(t.Notes, fmt.Sprintf("%s: %d job pairs; JCT %s lower in rank sum (W+ %.0f, W− %.0f); fee W+ %.0f, W− %.0f; two-sided, zero differences dropped.",
			displayCluster(c), len(ja), lowerOf(wj, a, b), wj.WPlus, wj.WMinus, wf.WPlus, wf.WMinus))
	}
	t.Rows = append(t.Rows, ours)
	if len(clusters) == 3 {
		t.Rows = append(t.Rows, evaluation.TableRow{Label: ours.Label + " (paper)", Source: evaluation.SourcePaper, Values: dasTable3})
		t.Notes = append(t.Notes, "The (paper) row is DAS Table 3 (Xing et al., KDD 2023), not our measurement.")
	}
	return t, nil
}

func lowerOf(w evaluation.Wilcoxon, a, b string) string {
	if w.WPlus < w.WMinus { // differences a − b mostly negative
		return evaluation.DisplayName(a)
	}
	return evaluation.DisplayName(b)
}

func displayCluster(c string) string {
	if c == "" {
		return c
	}
	return string(c[0]-'a'+'A') + c[1:]
}

// overheadTable is the mean wall time of a scheduling decision per job
// placed, per learned scheduler and cluster (DAS Appendix F reports 13–16
// ms per job on a GPU).
func overheadTable(rows []evaluation.TimingRow) *evaluation.Table {
	t := &evaluation.Table{ID: DASOverhead, Title: "das-overhead: scheduling time per job placed (ms), from wall-clock timings",
		Metrics: []evaluation.Metric{{Label: "ms/job", Key: "ms_per_job", Digits: 3}}}
	var scheds, clusters []string
	for _, r := range rows {
		if !evaluation.IsLearned(r.Scheduler) && r.Scheduler != "fifo-firstfit" {
			continue
		}
		if !slices.Contains(scheds, r.Scheduler) {
			scheds = append(scheds, r.Scheduler)
		}
		if !slices.Contains(clusters, r.Cluster) {
			clusters = append(clusters, r.Cluster)
		}
	}
	for _, c := range clusters {
		t.Groups = append(t.Groups, displayCluster(c))
	}
	for _, s := range scheds {
		row := evaluation.TableRow{Label: evaluation.DisplayName(s), Source: evaluation.SourceOurs}
		for _, c := range clusters {
			var sec float64
			var jobs int32
			for _, r := range rows {
				if r.Scheduler == s && r.Cluster == c {
					sec += r.DecisionS
					jobs += r.JobsPlaced
				}
			}
			v := math.NaN()
			if jobs > 0 {
				v = 1000 * sec / float64(jobs)
			}
			row.Values = append(row.Values, v)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(t.Notes, "Wall-clock time inside the scheduler's decisions divided by the jobs it placed, on this machine's CPU; FIFO-FirstFit is shown for scale. Timings differ between runs.")
	return t
}
