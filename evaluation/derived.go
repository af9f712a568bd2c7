package evaluation

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

// The builders of the derived experiments registered in experiments.go.

// wilcoxonTable pairs the per-job results of schedulers a and b in each
// cluster (same workload, seed and job) and tests JCT and fee; ref's row
// "<A> vs <B>" follows ours when the table has the reference's clusters.
// A row with several trained models (train.seeds) is paired through its
// first, replicate 0: a job pairs once, as in the paper's test.
func wilcoxonTable(rows []ResultRow, a, b string, ref *Reference, trace string) (*Table, error) {
	replicated := slices.ContainsFunc(rows, func(r ResultRow) bool { return r.Replicate > 0 })
	rows = slices.DeleteFunc(slices.Clone(rows), func(r ResultRow) bool { return r.Replicate > 0 })
	type key struct {
		cluster, workload string
		seed              int32
		job               string
	}
	var clusters []string
	byKey := map[key]ResultRow{}
	for _, r := range rows {
		if r.Scheduler == b {
			byKey[key{r.Cluster, r.Workload, r.Seed, r.JobID}] = r
		}
		if !slices.Contains(clusters, r.Cluster) {
			clusters = append(clusters, r.Cluster)
		}
	}
	t := &Table{ID: DASWilcoxon,
		Title:   fmt.Sprintf("das-wilcoxon: Wilcoxon signed-rank p-values, %s vs %s, per-job JCT and fee", schedulers.Display(a), schedulers.Display(b)),
		Metrics: []Metric{{Label: "JCT p", Key: "jct_p", Digits: -3}, {Label: "Fee p", Key: "fee_p", Digits: -3}}}
	ours := TableRow{Label: schedulers.Display(a) + " vs " + schedulers.Display(b), Source: SourceOurs}
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
		wj, err := WilcoxonSignedRank(ja, jb)
		if err != nil {
			return nil, err
		}
		wf, err := WilcoxonSignedRank(fa, fb)
		if err != nil {
			return nil, err
		}
		t.Groups = append(t.Groups, title(c))
		ours.Values = append(ours.Values, wj.P, wf.P)
		t.Notes = append(t.Notes, fmt.Sprintf("%s: %d job pairs; JCT %s lower in rank sum (W+ %.0f, W− %.0f); fee W+ %.0f, W− %.0f; two-sided, zero differences dropped.",
			title(c), len(ja), lowerOf(wj, a, b), wj.WPlus, wj.WMinus, wf.WPlus, wf.WMinus))
	}
	if replicated {
		t.Notes = append(t.Notes, "Rows with several trained models (train.seeds) are tested with their first, replicate 0.")
	}
	t.Rows = append(t.Rows, ours)
	if ok, why := ref.Comparable(trace); !ok {
		t.Notes = append(t.Notes, "The paper's figures are not shown: "+why+".")
	} else if ref != nil && len(t.Groups) == len(ref.Groups) {
		if v, ok := ref.Values(ours.Label, t.Groups, len(t.Metrics)); ok {
			t.Rows = append(t.Rows, TableRow{Label: ours.Label + " (paper)", Source: SourcePaper, Values: v})
			t.Notes = append(t.Notes, ref.Note)
		}
	}
	return t, nil
}

func lowerOf(w Wilcoxon, a, b string) string {
	if w.WPlus < w.WMinus { // differences a − b mostly negative
		return schedulers.Display(a)
	}
	return schedulers.Display(b)
}

// overheadTable is the mean wall time of a scheduling decision per job
// placed, per learned scheduler and cluster (DAS Appendix F reports 13–16
// ms per job on a GPU).
func overheadTable(rows []TimingRow) *Table {
	t := &Table{ID: MustLookup(DASOverhead).Name(), Title: "das-overhead: scheduling time per job placed (ms), from wall-clock timings",
		Metrics: []Metric{{Label: "ms/job", Key: "ms_per_job", Digits: 3}}}
	var scheds, clusters []string
	for _, r := range rows {
		if !schedulers.Name(r.Scheduler).Learned() && r.Scheduler != "fifo-firstfit" {
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
		t.Groups = append(t.Groups, title(c))
	}
	for _, s := range scheds {
		row := TableRow{Label: schedulers.Display(s), Source: SourceOurs}
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

// curveLabel names a learning curve in the convergence table and plot.
func curveLabel(in DerivedData, c LearningCurve) string {
	label := schedulers.Display(c.Scheduler)
	if len(in.Parent.Clusters) > 1 {
		label += " on " + c.Cluster
	}
	return label
}

// convergenceTable summarises each learning curve: validation mean JCT at
// the first episode, the best, the last, and the first episode within 5 %
// of the best.
func convergenceTable(id, title string, in DerivedData) *Table {
	t := &Table{ID: id,
		Title: id + ": validation mean JCT (h) over training, " + title,
		Metrics: []Metric{{Label: "first", Key: "first_val_jct_h", Digits: 3}, {Label: "best", Key: "best_val_jct_h", Digits: 3},
			{Label: "final", Key: "final_val_jct_h", Digits: 3}, {Label: "episodes to ≤5% of best", Key: "episodes_to_best", Digits: 0}}}
	var clusters []string
	for _, c := range in.Curves {
		if !slices.Contains(clusters, c.Cluster) {
			clusters = append(clusters, c.Cluster)
		}
		t.Rows = append(t.Rows, TableRow{Label: curveLabel(in, c), Source: SourceOurs, Values: convergence(c.Rows)})
	}
	t.Groups = []string{strings.Join(clusters, ", ")}
	t.Notes = append(t.Notes, "Mean JCT of the validation runs (greedy policy on the held-out 10 % of each pod's jobs) after each training episode, in hours: at the first episode, the best, the last, and the first episode within 5 % of the best.")
	return t
}

func plotConvergence(title string) func(in DerivedData) (svg, png []byte, err error) {
	return func(in DerivedData) (svg, png []byte, err error) {
		var series []training.Series
		for _, c := range in.Curves {
			series = append(series, training.Series{Label: curveLabel(in, c), Rows: c.Rows})
		}
		return training.PlotConvergence(series, title)
	}
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

// FIFOLike is training.FIFOLike: the share of validation decisions under
// which a learned row is FIFO-FirstFit under another name, and the least
// margin over its untrained reference for it to have learned.
const FIFOLike = training.FIFOLike

// dasTrainingTable summarises each learning curve of das-table1's learned
// rows: the mean Adam steps of a training episode, and of the last
// validation the share of decisions unlike FIFO-FirstFit's, that of the
// family's untrained reference on the same jobs, and the mean JCT. Rows
// whose family measures none show no value; a row whose share is under
// FIFOLike, or whose family judges it did not measurably learn
// (training.NotLearned: the judgement the claims set verdicts aside by),
// is named in the notes.
func dasTrainingTable(in DerivedData) *Table {
	t := &Table{ID: DASTraining,
		Title: DASTraining + ": training of das-table1's learned schedulers",
		Metrics: []Metric{{Label: "Adam steps / episode", Key: "adam_steps", Digits: 0},
			{Label: "not FIFO-FF (%)", Key: "not_fifo_pct", Digits: 1}, {Label: "untrained (%)", Key: "untrained_not_fifo_pct", Digits: 1},
			{Label: "final val JCT (min)", Key: "final_val_jct_min", Digits: 1}}}
	var clusters, flagged, unlearned []string
	for _, c := range in.Curves {
		if !slices.Contains(clusters, c.Cluster) {
			clusters = append(clusters, c.Cluster)
		}
		steps, eps := 0.0, 0
		notFIFO, untrained, jct := math.NaN(), math.NaN(), math.NaN()
		for _, r := range c.Rows {
			switch r.Split {
			case "train":
				steps += float64(r.AdamSteps)
				eps++
			case "validation":
				jct = r.MeanJCT / 60
				if r.NotFIFO != nil {
					notFIFO = 100 * *r.NotFIFO
				}
				if r.UntrainedNotFIFO != nil {
					untrained = 100 * *r.UntrainedNotFIFO
				}
			}
		}
		if eps == 0 || steps == 0 {
			steps = math.NaN()
		} else {
			steps /= float64(eps)
		}
		label := curveLabel(in, c)
		t.Rows = append(t.Rows, TableRow{Label: label, Source: SourceOurs, Values: []float64{steps, notFIFO, untrained, jct}})
		if notFIFO < 100*FIFOLike {
			flagged = append(flagged, fmt.Sprintf("%s (%.1f %%)", label, notFIFO))
		}
		if training.NotLearned(schedulers.Name(c.Scheduler), [][]training.Curve{c.Rows}) != "" {
			unlearned = append(unlearned, fmt.Sprintf("%s (%.1f %% against %.1f %%)", label, notFIFO, untrained))
		}
	}
	t.Groups = []string{strings.Join(clusters, ", ")}
	t.Notes = append(t.Notes, "Adam steps / episode: optimiser steps of a training episode over all of the model's optimisers (the DAS family counts them; Algorithm 1 takes one per decision per optimiser, MAPPO one per minibatch). not FIFO-FF: share of the final validation run's decisions that start other jobs, or on other servers, than FIFO-FirstFit would on the same state; untrained: the same share of the untrained reference (the initial network with its zero ranking heads set to noise of 1e-6, which breaks ties as any training does: a model that learned nothing already differs this much); final val JCT: that run's mean JCT.")
	if len(flagged) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Decide like FIFO-FirstFit on more than %.0f %% of their validation decisions, FIFO-FirstFit under another name: %s.", 100*(1-FIFOLike), strings.Join(flagged, ", ")))
	}
	if len(unlearned) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Less than %.0f points further from FIFO-FirstFit than their untrained reference, so they did not measurably learn to schedule at this budget: %s.", 100*FIFOLike, strings.Join(unlearned, ", ")))
	}
	return t
}
