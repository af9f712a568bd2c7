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
)

// metric is a cell figure a claim compares.
type metric int

const (
	jct metric = iota
	fee
	// floor is the cell's floor of mean JCT: the same for every row of a
	// sample (seed) in a column.
	floor
)

func (m metric) String() string {
	if m == fee {
		return "fee"
	}
	return "JCT"
}

func (m metric) of(c Cell) float64 {
	switch m {
	case fee:
		return c.MeanFeeUSD
	case floor:
		return c.FloorJCTS
	}
	return c.MeanJCTS
}

// sample names one sample of a row: a seed of the workload and a
// replicate of the learned model (0 for a heuristic).
type sample struct{ seed, replicate int32 }

func compareSamples(a, b sample) int {
	return cmp.Or(cmp.Compare(a.seed, b.seed), cmp.Compare(a.replicate, b.replicate))
}

// series is one row's figure in one column (or averaged over columns), by
// sample.
type series map[sample]float64

func (s series) samples() []sample {
	keys := make([]sample, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareSamples)
	return keys
}

func (s series) mean() float64 {
	sum := 0.0
	for _, k := range s.samples() { // sorted: the same sum on every run
		sum += s[k]
	}
	return sum / float64(len(s))
}

// matching is the value to compare with sample k of another row: this
// row's own value for k when it has one (two learned rows with the same
// replicates and seeds), else its mean over replicates at k's seed (a
// heuristic, which has replicate 0 only).
func (s series) matching(k sample) (float64, bool) {
	if v, ok := s[k]; ok {
		return v, true
	}
	sum, n := 0.0, 0
	for _, o := range s.samples() {
		if o.seed == k.seed {
			sum += s[o]
			n++
		}
	}
	return sum / float64(n), n > 0
}

// column is one cluster/workload pair of an experiment.
type column struct{ cluster, workload string }

// columns lists the experiment's columns in cell order.
func (in *Input) columns(experiment string) []column {
	var out []column
	for _, c := range in.Cells {
		if k := (column{c.Cluster, c.Workload}); c.Experiment == experiment && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// label names a column as the experiment's tables do: the cluster when
// the workloads are one, the workload when the clusters are one.
func (in *Input) label(experiment string, col column) string {
	clusters, workloads := map[string]bool{}, map[string]bool{}
	for _, c := range in.columns(experiment) {
		clusters[c.cluster], workloads[c.workload] = true, true
	}
	switch {
	case len(workloads) == 1:
		return title(col.cluster)
	case len(clusters) == 1:
		return title(col.workload)
	}
	return title(col.cluster) + "/" + col.workload
}

// rows lists the schedulers of the experiment, in cell order.
func (in *Input) rows(experiment string) []string {
	var out []string
	for _, c := range in.Cells {
		if c.Experiment == experiment && !slices.Contains(out, c.Scheduler) {
			out = append(out, c.Scheduler)
		}
	}
	return out
}

// series is the figure m of scheduler in the experiment's column col.
func (in *Input) series(experiment, scheduler string, col column, m metric) series {
	s := series{}
	for _, c := range in.Cells {
		if c.Experiment == experiment && c.Scheduler == scheduler && c.Cluster == col.cluster && c.Workload == col.workload {
			s[sample{c.Seed, c.Replicate}] = m.of(c)
		}
	}
	return s
}

// averaged is the figure m of scheduler averaged over the experiment's
// columns (the papers' Average column), for the samples every column has.
func (in *Input) averaged(experiment, scheduler string, m metric) series {
	cols := in.columns(experiment)
	out := series{}
	for i, col := range cols {
		s := in.series(experiment, scheduler, col, m)
		for k, v := range s {
			if i == 0 {
				out[k] = v / float64(len(cols))
			} else if _, ok := out[k]; ok {
				out[k] += v / float64(len(cols))
			}
		}
		for k := range out {
			if _, ok := s[k]; !ok {
				delete(out, k)
			}
		}
	}
	return out
}

// jobCount is the number of evaluated jobs of the scheduler's cells in the
// experiment (the largest, should cells differ).
func (in *Input) jobCount(experiment, scheduler string) int32 {
	var n int32
	for _, c := range in.Cells {
		if c.Experiment == experiment && c.Scheduler == scheduler {
			n = max(n, c.Jobs)
		}
	}
	return n
}

// margins is, per sample of a, 100·(b − a)/b: how much lower (better) a's
// figure is than b's, in per cent, b's value matched to the sample; and
// the samples used.
func margins(a, b series) ([]float64, []sample) {
	var out []float64
	var used []sample
	for _, k := range a.samples() {
		if v, ok := b.matching(k); ok && v != 0 {
			out, used = append(out, 100*(v-a[k])/v), append(used, k)
		}
	}
	return out, used
}

// spread counts the distinct seeds and replicates (independently trained
// models) among samples: an interval over seeds of one model says nothing
// of training noise, and the scoreboard says which it is.
func spread(samples []sample) (seeds, models int) {
	ss, ms := map[int32]bool{}, map[int32]bool{}
	for _, s := range samples {
		ss[s.seed], ms[s.replicate] = true, true
	}
	return len(ss), len(ms)
}

// test is one comparison of a claim (a column, a metric, a row) and its
// verdict.
type test struct {
	label   string // what was compared, for people
	iv      evaluation.Interval
	verdict Verdict
	// seeds and models count the samples' seeds and replicates.
	seeds, models int
	// headroom is the largest margin (per cent) a scheduler at the floor
	// would have over the baseline; NaN when unknown or not a JCT test.
	headroom float64
	// notLearned says why the claimed row's models did not learn; "" when
	// they did (Outcome.NotLearned).
	notLearned string
}

// stream is the claims' bootstrap stream; a test's key under it is its
// claim's id and what it compares, or keyLoadTrend for das-load's trend.
const (
	stream       pipeline.Stream = "claims"
	keyLoadTrend pipeline.Key    = "das-load-trend"
)

// judge decides "the mean of samples exceeds threshold" (doc.go): from
// the point value with one sample, from the 95 % bootstrap interval with
// more. The bootstrap draws from the stream (run seed, "claims", key...).
func judge(samples []float64, threshold float64, seed uint64, key ...pipeline.Key) (evaluation.Interval, Verdict) {
	iv := evaluation.BootstrapMeanCI(samples, 0.95, evaluation.BootstrapResamples, pipeline.RandSource(seed, stream, key...))
	switch {
	case iv.N == 0:
		return iv, NotRun
	case !iv.Valid():
		if iv.Mean > threshold {
			return iv, Holds
		}
		return iv, DoesNotHold
	case iv.Lo > threshold:
		return iv, Holds
	case iv.Hi <= threshold:
		return iv, DoesNotHold
	}
	return iv, Inconclusive
}

// allOf combines the tests of a claim that must hold in every column (and
// metric, and row): it does not hold when one test does not, is
// inconclusive when none fails but one is inconclusive, holds when all
// hold. worst, the test shown, is one that decides the verdict: of the
// tests with the combined verdict, the one with the lowest point value.
//
// A test that could not hold for want of headroom (Untestable) ranks
// between: a claim over every column is untestable when one column could
// not show it and none showed it false.
func allOf(tests []test) (worst test, v Verdict) {
	severity := map[Verdict]int{Holds: 0, Inconclusive: 1, Untestable: 2, DoesNotHold: 3}
	for i, t := range tests {
		s, w := severity[t.verdict], severity[worst.verdict]
		if i == 0 || s > w || (s == w && t.iv.Mean < worst.iv.Mean) {
			worst = t
		}
	}
	return worst, worst.verdict
}

// headroomMargin is the margin, in per cent, of a scheduler at the floor
// over a baseline of mean JCT baseline: the most any scheduler could show
// (evaluation.MaxMargin). NaN without a positive floor (a run from before
// floors) or baseline.
func headroomMargin(baseline, floor float64) float64 {
	if !(floor > 0) || !(baseline > 0) {
		return math.NaN()
	}
	return 100 * (baseline - floor) / baseline
}

// powered is the verdict of a margin test on mean JCT given its headroom:
// one that did not hold (or was inconclusive) where even a scheduler at
// the floor could not reach the threshold is untestable there; a test
// that holds, or fails where the headroom allowed, keeps its verdict.
func powered(v Verdict, headroom, threshold float64) Verdict {
	if (v == DoesNotHold || v == Inconclusive) && headroom < threshold {
		return Untestable
	}
	return v
}

// learned is the verdict of a test whose claimed row's models did not
// measurably learn (why, Input.notLearned): untestable here, whatever
// the data said. A claim that held with such a model is as unsupported
// as one that failed: an untrained policy beating the baselines is not
// the learned method winning. A test not run stays so.
func learned(v Verdict, why string) Verdict {
	if why != "" && v != NotRun {
		return Untestable
	}
	return v
}

// notLearnedOf is the distinct reasons of tests whose claimed row did not
// learn, joined (Outcome.NotLearned).
func notLearnedOf(tests []test) string {
	var out []string
	for _, t := range tests {
		if t.notLearned != "" && !slices.Contains(out, t.notLearned) {
			out = append(out, t.notLearned)
		}
	}
	return strings.Join(out, "; ")
}

// percent formats a margin in per cent with three significant digits and
// its sign.
func percent(v float64) string {
	s := evaluation.FormatValue(v, 1)
	if v > 0 {
		s = "+" + s
	}
	return s + " %"
}

// interval formats a margin's interval.
func interval(iv evaluation.Interval) string {
	return fmt.Sprintf("[%s, %s] %%", strings.TrimSuffix(percent(iv.Lo), " %"), strings.TrimSuffix(percent(iv.Hi), " %"))
}

func display(name string) string { return schedulers.Display(name) }

func displayAll(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = display(n)
	}
	return strings.Join(out, ", ")
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
