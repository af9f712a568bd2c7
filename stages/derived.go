package stages

import (
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training"
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

// MARLConvergence is the id of marl-vs-single's convergence table and
// plot (MARL Fig. 10a), derived from the learning curves of its learned
// schedulers.
const MARLConvergence = "marl-vs-single-convergence"

// marlDerivedStages adds marl-vs-single's convergence table and plot when
// the experiment has learned rows: their learning curves on each of its
// clusters, side by side.
func (c *Config) marlDerivedStages(models map[string][]string) ([]pipeline.Stage, error) {
	if !slices.Contains(c.Eval.Experiments, evaluation.MARLVsSingle) {
		return nil, nil
	}
	spec, _, _, err := c.experimentSpec(evaluation.MARLVsSingle, "")
	if err != nil {
		return nil, err
	}
	type curveFile struct{ Scheduler, Cluster, File string }
	var files []curveFile
	var in []string
	for _, cl := range spec.Clusters {
		for _, name := range spec.Schedulers {
			canon, _ := evaluation.CanonicalScheduler(name)
			for _, f := range models[c.modelKey(canon, cl.Spec)] {
				if path.Base(f) == training.CurvesFile {
					files = append(files, curveFile{canon, cl.Name, f})
					in = append(in, f)
				}
			}
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	outs := append(tableOutputs(MARLConvergence), "plots/"+MARLConvergence+".svg", "plots/"+MARLConvergence+".png")
	return []pipeline.Stage{&pipeline.Func{
		StageName: "eval-" + MARLConvergence, StageVersion: stageVersion, In: in, Out: outs, Cfg: files,
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			t := &evaluation.Table{ID: MARLConvergence,
				Title: "marl-vs-single-convergence: validation mean JCT (h) over training, multi- vs single-agent",
				Metrics: []evaluation.Metric{{Label: "first", Key: "first_val_jct_h", Digits: 3}, {Label: "best", Key: "best_val_jct_h", Digits: 3},
					{Label: "final", Key: "final_val_jct_h", Digits: 3}, {Label: "episodes to ≤5% of best", Key: "episodes_to_best", Digits: 0}}}
			var series []training.Series
			var clusters []string
			for _, f := range files {
				rows, err := datasets.ReadParquet[training.Curve](env.Input(f.File))
				if err != nil {
					return err
				}
				if !slices.Contains(clusters, f.Cluster) {
					clusters = append(clusters, f.Cluster)
				}
				label := evaluation.DisplayName(f.Scheduler)
				if len(spec.Clusters) > 1 {
					label += " on " + f.Cluster
				}
				series = append(series, training.Series{Label: label, Rows: rows})
				t.Rows = append(t.Rows, evaluation.TableRow{Label: label, Source: evaluation.SourceOurs, Values: convergence(rows)})
			}
			t.Groups = []string{strings.Join(clusters, ", ")}
			t.Notes = append(t.Notes, "Mean JCT of the validation runs (greedy policy on the held-out 10 % of each pod's jobs) after each training episode, in hours: at the first episode, the best, the last, and the first episode within 5 % of the best.")
			if err := writeTable(env, MARLConvergence, t); err != nil {
				return err
			}
			svg, png, err := training.PlotConvergence(series, "marl-vs-single: convergence, multi-agent vs single-agent")
			if err != nil {
				return err
			}
			if err := pipeline.WriteFileAtomic(env.Output(outs[3]), svg); err != nil {
				return err
			}
			return pipeline.WriteFileAtomic(env.Output(outs[4]), png)
		},
	}}, nil
}

// convergence summarises the validation mean JCT (hours) of a learning
// curve: first, best, final, and the first episode within 5 % of the best.
func convergence(rows []training.Curve) []float64 {
	var jct []float64
	var eps []int32
	for _, r := range rows {
		if r.Split == "validation" {
			jct, eps = append(jct, r.MeanJCT/3600), append(eps, r.Episode)
		}
	}
	if len(jct) == 0 {
		return []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	}
	best := slices.Min(jct)
	at := math.NaN()
	for i, v := range jct {
		if v <= 1.05*best {
			at = float64(eps[i])
			break
		}
	}
	return []float64{jct[0], best, jct[len(jct)-1], at}
}
