package claims

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// comparison is a claim that some rows of an experiment beat others by a
// margin: in every column (or in the Average column), for every metric,
// each claimed row's figure is more than threshold per cent below the best
// (lowest) of the rows it is compared with.
type comparison struct {
	experiment string
	// claimed rows; each is compared with the best of against present in
	// the column.
	claimed, against []string
	metrics          []metric
	// threshold is the margin in per cent the claimed row must exceed.
	threshold float64
	// average compares the papers' Average column (the mean over the
	// experiment's columns) instead of each column.
	average bool
	// cluster keeps the columns of one cluster ("": all).
	cluster string
	// scale says at which scale the run tested it (Outcome.TestedAt).
	scale func(in *Input, c comparison) string
}

// evaluate decides the comparison; id keys its bootstrap streams.
func (c comparison) evaluate(id string) func(in *Input) (Outcome, error) {
	return func(in *Input) (Outcome, error) {
		present := in.rows(c.experiment)
		if len(present) == 0 {
			return Outcome{}, fmt.Errorf("%s is in eval.experiments but %s has no row of it", c.experiment, evaluation.MetricsFile)
		}
		claimed, missing := split(c.claimed, present)
		against, _ := split(c.against, present)
		// An oracle reads the future: it bounds, it is no baseline. The
		// registry's one predicate (Name.Oracle); not Name.Heuristic,
		// which would also drop the learned baselines some claims name
		// (marl-single, RIFLING, DL², DAS's ablations).
		against = slices.DeleteFunc(against, func(s string) bool { return schedulers.Name(s).Oracle() })
		out := Outcome{Value: math.NaN(), Threshold: c.threshold, HasCI: true, Headroom: math.NaN()}
		switch {
		case len(claimed) == 0:
			out.Verdict, out.Note = NotRun, in.absent(c.experiment, c.claimed, fmt.Sprintf("%s not among the rows of %s in this preset", displayAll(c.claimed), c.experiment))
			return out, nil
		case len(against) == 0:
			out.Verdict, out.Note = NotRun, in.absent(c.experiment, c.against, fmt.Sprintf("none of %s among the rows of %s in this preset", displayAll(c.against), c.experiment))
			return out, nil
		}
		var cols []column
		for _, col := range in.columns(c.experiment) {
			if c.cluster == "" || col.cluster == c.cluster {
				cols = append(cols, col)
			}
		}
		if c.cluster != "" && len(cols) == 0 {
			out.Verdict, out.Note = NotRun, fmt.Sprintf("cluster %s is not a column of %s in this preset", c.cluster, c.experiment)
			return out, nil
		}
		var clusters []string // the clusters each test covers
		for _, col := range cols {
			if !slices.Contains(clusters, col.cluster) {
				clusters = append(clusters, col.cluster)
			}
		}
		if c.average {
			cols = cols[:1] // one Average column, built from them all below
		}
		var tests []test
		for _, m := range c.metrics {
			for _, row := range claimed {
				for _, col := range cols {
					label, get := in.label(c.experiment, col), func(s string) series { return in.series(c.experiment, s, col, m) }
					if c.average {
						label, get = evaluation.AverageGroup, func(s string) series { return in.averaged(c.experiment, s, m) }
					}
					a := get(row)
					best, bestMean := "", math.Inf(1)
					for _, b := range against {
						if s := get(b); len(s) > 0 && s.mean() < bestMean {
							best, bestMean = b, s.mean()
						}
					}
					if len(a) == 0 || best == "" {
						continue // a skipped cell (a workload without its input)
					}
					ms, used := margins(a, get(best))
					iv, v := judge(ms, c.threshold, in.Seed, pipeline.Key(id), pipeline.Key(m.String()), pipeline.Key(row), pipeline.Key(label))
					seeds, models := spread(used)
					headroom := math.NaN()
					if m == jct {
						headroom = headroomMargin(bestMean, seriesOf(in, c, col, best).mean())
						v = powered(v, headroom, c.threshold)
					}
					tested := []string{col.cluster}
					if c.average {
						tested = clusters
					}
					why := in.notLearned(c.experiment, row, tested, len(clusters) > 1)
					v = learned(v, why)
					var parts []string
					if len(c.metrics) > 1 {
						parts = append(parts, m.String())
					}
					if len(claimed) > 1 {
						parts = append(parts, display(row))
					}
					parts = append(parts, "vs "+display(best))
					if len(cols) > 1 || c.average {
						parts = append(parts, "("+label+")")
					}
					tests = append(tests, test{label: strings.Join(parts, " "), iv: iv, verdict: v, seeds: seeds, models: models, headroom: headroom, notLearned: why})
				}
			}
		}
		if len(tests) == 0 {
			out.Verdict, out.Note = NotRun, "no cell of "+c.experiment+" has both rows"
			return out, nil
		}
		worst, verdict := allOf(tests)
		out.Verdict, out.CI, out.Value, out.Seeds, out.Models, out.Headroom = verdict, worst.iv, worst.iv.Mean, worst.seeds, worst.models, worst.headroom
		out.NotLearned = notLearnedOf(tests)
		out.Ours = percent(worst.iv.Mean) + " " + worst.label
		if len(tests) > 1 {
			out.Ours += fmt.Sprintf(" (the least of %d)", len(tests))
		}
		var notes []string
		if len(missing) > 0 {
			notes = append(notes, in.absent(c.experiment, missing, fmt.Sprintf("%s not among the rows in this preset", displayAll(missing)))+": the verdict is for the others")
		}
		if skipped := in.skipped(c.experiment); len(skipped) > 0 {
			notes = append(notes, fmt.Sprintf("columns configured but without results (skipped, as the experiment's table says): %s", strings.Join(skipped, ", ")))
		}
		out.Note = strings.Join(notes, "; ")
		if c.scale != nil {
			out.TestedAt = c.scale(in, c)
		}
		return out, nil
	}
}

// seriesOf is the floor of the comparison's column col (or, for an
// average claim, averaged over the columns) in the baseline row's
// samples.
func seriesOf(in *Input, c comparison, col column, row string) series {
	if c.average {
		return in.averaged(c.experiment, row, floor)
	}
	return in.series(c.experiment, row, col, floor)
}

// split is the names that are rows (in names' order) and those that are
// not.
func split(names, rows []string) (in, out []string) {
	for _, n := range names {
		if slices.Contains(rows, n) {
			in = append(in, n)
		} else {
			out = append(out, n)
		}
	}
	return in, out
}

// dasScale is the DAS experiments' scale: the evaluated jobs per cluster
// against the paper's 4,000 (the last 20 % of the first 20,000 jobs).
func dasScale(in *Input, c comparison) string {
	s := fmt.Sprintf("%d jobs (paper: 4,000)", in.jobCount(c.experiment, firstRow(in, c)))
	if c.experiment == evaluation.DASLoad {
		var rates []string
		for _, r := range evaluation.DASLoadSection.Get(in.Config).Rates {
			rates = append(rates, evaluation.LoadWorkloadName(r))
		}
		s += ", rates " + strings.Join(rates, ", ")
	}
	// Each learned row's training: its trainer and episodes against the
	// paper's (50 episodes of 1,000 jobs per learning rate); the models
	// behind a verdict are its n.
	for _, r := range c.claimed {
		if n, ok := in.Episodes[r]; ok {
			by := ""
			if t := training.TrainerOf(schedulers.Name(r)); t != "" {
				by = " by " + t + ","
			}
			s += fmt.Sprintf("; %s trained%s %d episodes (paper: 50)", r, by, n)
		}
	}
	return s
}

func firstRow(in *Input, c comparison) string {
	claimed, _ := split(c.claimed, in.rows(c.experiment))
	return claimed[0]
}

// marlScale is the MARL experiments' clusters, as the run configured them,
// against the paper's fat-tree of k = 20 (2,000 servers); the protocol
// against the paper's (§VI-A): the claimed learned rows' training episodes
// (about 200 until convergence, Fig. 10) and arrival pattern (the Google
// trace's), how the test jobs were placed (on arrival) and how many
// models (replicates) each row had; and the operating point.
func marlScale(in *Input, c comparison) string {
	e, err := evaluation.Lookup(c.experiment)
	if err != nil || e.Spec == nil {
		return ""
	}
	s := e.Spec()
	e.Configure(in.Config, &s)
	same := true
	for _, cl := range s.Clusters {
		same = same && cl.Spec.Topology == s.Clusters[0].Spec.Topology && cl.Spec.K == s.Clusters[0].Spec.K && cl.Spec.N == s.Clusters[0].Spec.N
	}
	var what string
	if first := s.Clusters[0].Spec; same && first.Topology == "fattree" {
		what = fmt.Sprintf("fat-tree k = %d", first.K)
	} else {
		var names []string
		for _, cl := range s.Clusters {
			names = append(names, cl.Name)
		}
		what = strings.Join(names, ", ")
	}
	what += " (paper: k = 20, 2,000 servers)"
	for _, r := range c.claimed {
		if n, ok := in.Episodes[r]; ok {
			arrivals := cmp.Or(in.TrainArrivals[r], "uniform")
			what += fmt.Sprintf("; %s trained %d episodes on %s arrivals (paper: about 200, Google-pattern)", r, n, arrivals)
		}
		if m := in.models(c.experiment, r); m > 0 {
			what += fmt.Sprintf(", %s", plural(m, "model", "models"))
		}
	}
	if s.Sim.Trigger == sim.TriggerEvent {
		what += "; test jobs placed on arrival (as the paper)"
	} else {
		what += "; test jobs placed in batches per interval (paper: on arrival)"
	}
	if op := operatingPoint(in, c.experiment, s.Sim.IntervalS); op != "" {
		what += "; " + op
	}
	return what
}

// operatingPoint says how busy the experiment's cluster was under its
// heuristics (schedulers.Name.Heuristic), as the tables' notes do: the
// mean over their cells of GPU and CPU utilisation and of the mean
// queueing delay (in intervals of intervalS); "" when the run recorded
// none.
func operatingPoint(in *Input, experiment string, intervalS float64) string {
	var gpu, cpu, queue float64
	n := 0
	for _, c := range in.Cells {
		if c.Experiment == experiment && schedulers.Name(c.Scheduler).Heuristic() && c.GPUUtil > 0 {
			gpu, cpu, queue = gpu+c.GPUUtil, cpu+c.CPUUtil, queue+c.MeanQueueS
			n++
		}
	}
	if n == 0 || !(intervalS > 0) {
		return ""
	}
	k := float64(n)
	return fmt.Sprintf("operating point under the heuristics: GPUs %.0f %%, cores %.0f %% busy, mean queueing %.2f intervals", 100*gpu/k, 100*cpu/k, queue/k/intervalS)
}

// skipped lists the experiment's configured columns (cluster/workload)
// that have no cell in the run's metrics: a workload skipped for want of
// its input (marl-arrivals' google without an arrivals table) narrows
// what a claim over "every column" tested.
func (in *Input) skipped(experiment string) []string {
	e, err := evaluation.Lookup(experiment)
	if err != nil || e.Spec == nil {
		return nil
	}
	s := e.Spec()
	e.Configure(in.Config, &s)
	have := in.columns(experiment)
	var out []string
	for _, cl := range s.Clusters {
		for _, w := range s.Workloads {
			if !slices.Contains(have, column{cl.Name, w.Name}) {
				out = append(out, cl.Name+"/"+w.Name)
			}
		}
	}
	return out
}

// models is the number of distinct models (replicates) of row among the
// experiment's cells.
func (in *Input) models(experiment, row string) int {
	seen := map[int32]bool{}
	for _, c := range in.Cells {
		if c.Experiment == experiment && c.Scheduler == row {
			seen[c.Replicate] = true
		}
	}
	return len(seen)
}
