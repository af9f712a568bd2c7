package evaluation

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// Row sources of a Table.
const (
	SourceOurs  = "ours"
	SourcePaper = "paper"
	// SourceBound is the floor's row: not a scheduler, the mean JCT no
	// scheduler can beat on the column's jobs (Headroom).
	SourceBound = "bound"
)

// FloorLabel is the label of a table's floor row.
const FloorLabel = "Floor (no scheduler beats it)"

// Table is an experiment's summary: one row per scheduler (and, labelled,
// per paper figure), one group of metric columns per cluster or workload,
// and an average group when there are several. Values are means over the
// seeds of each cell's mean; NaN means no value.
type Table struct {
	ID      string
	Title   string
	Groups  []string // column group labels
	Metrics []Metric // the columns of each group
	Rows    []TableRow
	Notes   []string
}

// Metric is one column of a group.
type Metric struct {
	Label  string // as displayed, with its unit
	Key    string // CSV column suffix
	Digits int    // decimals; negative: that many significant digits
}

// TableRow is one row of a Table.
type TableRow struct {
	Label  string // display name
	Source string // SourceOurs or SourcePaper
	// Values holds len(Groups)×len(Metrics) numbers, group-major.
	Values []float64
	// CI, when not nil, is parallel to Values: the 95 % bootstrap interval
	// of each value over its replicates (trained models × seeds); an
	// entry with N < 2 has none and prints as a plain value.
	CI []Interval
}

// CILevel is the confidence level of every interval a table prints.
const CILevel = 0.95

// hasCI reports whether a value of the row has an interval.
func (r TableRow) hasCI(i int) bool { return r.CI != nil && r.CI[i].Valid() }

// hasCI reports whether any value of the table has an interval.
func (t *Table) hasCI() bool {
	for _, r := range t.Rows {
		for i := range r.CI {
			if r.hasCI(i) {
				return true
			}
		}
	}
	return false
}

// Table summarises the report. JCT is in minutes for event-triggered
// experiments and in scheduling intervals for interval-triggered ones (as
// MARL Fig. 7). Column groups are the clusters (one workload), the
// workloads (one cluster) or cluster/workload pairs; groups whose cells
// were all skipped are left out and named in the notes. When the
// experiment's registration has a Reference, the paper's figures follow
// our rows, labelled "(paper)".
func (r *Report) Table() *Table {
	s := r.Spec
	jctUnit, jctScale, jctKey := "min", 60.0, "jct_min"
	if s.Sim.Trigger == sim.TriggerInterval {
		jctUnit, jctScale, jctKey = "intervals", s.Sim.IntervalS, "jct_intervals"
	}
	t := &Table{
		ID:      s.Experiment,
		Title:   fmt.Sprintf("%s: mean JCT (%s) and mean fee ($) per scheduler", s.Experiment, jctUnit),
		Metrics: []Metric{{"JCT (" + jctUnit + ")", jctKey, 3}, {"Fee ($)", "fee_usd", 3}},
	}
	type group struct {
		label  string
		ci, wi int
	}
	var groups []group
	for ci, c := range s.Clusters {
		for wi, w := range s.Workloads {
			g := group{ci: ci, wi: wi}
			switch {
			case len(s.Workloads) == 1:
				g.label = title(c.Name)
			case len(s.Clusters) == 1:
				g.label = title(w.Name)
			default:
				g.label = title(c.Name) + "/" + w.Name
			}
			ran := false
			for _, cr := range r.Cells {
				ran = ran || (cr.Cell.ci == ci && cr.Cell.wi == wi)
			}
			if ran {
				groups = append(groups, g)
			}
		}
	}
	for _, g := range groups {
		t.Groups = append(t.Groups, g.label)
	}
	avg := len(groups) > 1
	if avg {
		t.Groups = append(t.Groups, AverageGroup)
	}
	nm := len(t.Metrics)
	anyCI := false
	for _, si := range oraclesLast(r.Names) {
		canon := r.Names[si]
		row := TableRow{Label: schedulers.Display(string(canon)), Source: SourceOurs, Values: make([]float64, len(t.Groups)*nm)}
		ci := make([]Interval, len(t.Groups)*nm)
		// units[gi] are the group's replicates (trained model, seed) in
		// cell order, and samples[gi][k] metric k of each.
		units := make([][]Cell, len(groups))
		samples := make([][][]float64, len(groups))
		for gi, g := range groups {
			var jct, fee float64
			var n int
			samples[gi] = make([][]float64, nm)
			for _, cr := range r.Cells {
				if cr.Cell.ci == g.ci && cr.Cell.wi == g.wi && cr.Cell.si == si {
					jct += cr.Metrics.MeanJCTS / jctScale
					fee += cr.Metrics.MeanFeeUSD
					n++
					units[gi] = append(units[gi], cr.Cell)
					samples[gi][0] = append(samples[gi][0], cr.Metrics.MeanJCTS/jctScale)
					samples[gi][1] = append(samples[gi][1], cr.Metrics.MeanFeeUSD)
				}
			}
			row.Values[gi*nm], row.Values[gi*nm+1] = jct/float64(n), fee/float64(n)
			for k := 0; k < nm; k++ {
				ci[gi*nm+k] = r.interval(samples[gi][k], s.Clusters[g.ci].Name, s.Workloads[g.wi].Name, canon, t.Metrics[k].Key)
			}
		}
		if avg {
			for k := 0; k < nm; k++ {
				var sum float64
				for gi := range groups {
					sum += row.Values[gi*nm+k]
				}
				row.Values[len(groups)*nm+k] = sum / float64(len(groups))
			}
			// The average has an interval when every group has the same
			// replicates: each replicate's average over the groups is one
			// sample.
			if sameUnits(units) && len(units[0]) >= 2 {
				for k := 0; k < nm; k++ {
					per := make([]float64, len(units[0]))
					for u := range per {
						for gi := range groups {
							per[u] += samples[gi][k][u]
						}
						per[u] /= float64(len(groups))
					}
					ci[len(groups)*nm+k] = r.interval(per, AverageGroup, "", canon, t.Metrics[k].Key)
				}
			}
		}
		for i := range ci {
			if ci[i].Valid() {
				row.CI, anyCI = ci, true
				break
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if len(groups) > 0 {
		floor := TableRow{Label: FloorLabel, Source: SourceBound, Values: make([]float64, len(t.Groups)*nm)}
		for gi, g := range groups {
			floor.Values[gi*nm] = r.columnMean(g.ci, g.wi, func(m sim.Metrics) float64 { return m.FloorJCTS }) / jctScale
			floor.Values[gi*nm+1] = math.NaN()
		}
		if avg {
			var sum float64
			for gi := range groups {
				sum += floor.Values[gi*nm]
			}
			floor.Values[len(groups)*nm], floor.Values[len(groups)*nm+1] = sum/float64(len(groups)), math.NaN()
		}
		t.Rows = append(t.Rows, floor)
	}
	t.Rows = append(t.Rows, r.paperRows(t)...)
	t.Notes = r.notes(groups != nil)
	for _, f := range r.Failed {
		t.Notes = append(t.Notes, fmt.Sprintf("Row %s failed at cell %s, and its row stopped there (its values are empty): %s",
			schedulers.Display(string(f.Scheduler)), f.Cell.Key(), f.Err))
	}
	if anyCI {
		t.Notes = append(t.Notes, r.ciNote())
	}
	if slices.ContainsFunc(r.Names, schedulers.Name.Oracle) {
		t.Notes = append(t.Notes, schedulers.OracleNote)
	}
	bounds := make([]string, len(groups))
	for gi, g := range groups {
		bounds[gi] = r.floorBound(g.ci, g.wi)
	}
	if n := headroomNote(t, r.Names, bounds); n != "" {
		t.Notes = append(t.Notes, n)
	}
	if n := marginNote(t, r.Names); n != "" {
		t.Notes = append(t.Notes, n)
	}
	var points []string
	for gi, g := range groups {
		points = append(points, r.operatingPoint(t.Groups[gi], g.ci, g.wi))
	}
	if len(points) > 0 {
		t.Notes = append(t.Notes, "Operating point (under each column's best heuristic, means over seeds): "+strings.Join(points, "; ")+".")
	}
	for _, g := range groups {
		if n := r.wilcoxonNote(g.label, g.ci, g.wi); n != "" {
			t.Notes = append(t.Notes, n)
		}
	}
	return t
}

// oraclesLast lists the indices of names with the oracles (rows that read
// the future) after the others, each part in its order: the oracle rows
// form a block of their own at the foot of the table.
func oraclesLast(names []schedulers.Name) []int {
	var fair, oracle []int
	for i, n := range names {
		if n.Oracle() {
			oracle = append(oracle, i)
		} else {
			fair = append(fair, i)
		}
	}
	return append(fair, oracle...)
}

// interval is the bootstrap interval of one table value over its
// replicates, seeded from the run seed and the value's place (experiment,
// cluster, workload, scheduler, metric) so that it is the same bytes on
// every run whatever the order tables are built in.
func (r *Report) interval(xs []float64, cluster, workload string, scheduler schedulers.Name, metric string) Interval {
	if len(xs) < 2 {
		return Interval{N: len(xs)}
	}
	src := pipeline.RandSource(r.Seed, StreamCI, pipeline.Key(r.Spec.Experiment), pipeline.Key(cluster), pipeline.Key(workload), pipeline.Key(scheduler), pipeline.Key(metric))
	return BootstrapMeanCI(xs, CILevel, BootstrapResamples, src)
}

// sameUnits reports whether every group ran the same replicates (trained
// model and seed), in the same order.
func sameUnits(units [][]Cell) bool {
	for _, u := range units[1:] {
		if !slices.EqualFunc(u, units[0], func(a, b Cell) bool { return a.Seed == b.Seed && a.Replicate == b.Replicate }) {
			return false
		}
	}
	return len(units) > 0
}

// ciNote says how a table's intervals were made and which rows have
// several trained models.
func (r *Report) ciNote() string {
	var reps []string
	for _, canon := range r.Names {
		var on []string
		same := true
		for _, c := range r.Spec.Clusters {
			n := r.Spec.ReplicatesOf(canon, c.Name)
			same = same && n == r.Spec.ReplicatesOf(canon, r.Spec.Clusters[0].Name)
			if n > 1 {
				on = append(on, fmt.Sprintf("%d on %s", n, c.Name))
			}
		}
		switch {
		case len(on) == 0:
		case same:
			reps = append(reps, fmt.Sprintf("%s %d", schedulers.Display(string(canon)), r.Spec.ReplicatesOf(canon, r.Spec.Clusters[0].Name)))
		default:
			reps = append(reps, fmt.Sprintf("%s %s (1 elsewhere)", schedulers.Display(string(canon)), strings.Join(on, ", ")))
		}
	}
	n := fmt.Sprintf("x ± h: the mean over a value's replicates (independently trained models × seeds) and its %.0f %% percentile-bootstrap interval (%d resamples, seeded from the run seed and the value's cell and metric), h the larger distance from the mean to an endpoint; the CSV's _ci_lo and _ci_hi columns hold the endpoints. Values without ± have one replicate.",
		100*CILevel, BootstrapResamples)
	if len(reps) > 0 {
		n += " Trained models per learned row (train.seeds): " + strings.Join(reps, ", ") + "."
	}
	return n
}

// columnMean is the mean over the seeds of a column group's cells of
// f(metrics), one value per seed (the first cell of the seed): for the
// quantities every scheduler of a seed shares, the floor.
func (r *Report) columnMean(ci, wi int, f func(sim.Metrics) float64) float64 {
	seen := map[int]bool{}
	var sum float64
	for _, cr := range r.Cells {
		if c := cr.Cell; c.ci == ci && c.wi == wi && !seen[c.Seed] {
			seen[c.Seed] = true
			sum += f(cr.Metrics)
		}
	}
	return sum / float64(len(seen))
}

// bestHeuristic is the row (an index of t.Rows) of the lowest mean JCT in
// column group gi among the heuristics (neither learned nor oracle), -1
// when there is none.
func bestHeuristic(t *Table, names []schedulers.Name, gi int) int {
	nm := len(t.Metrics)
	best, bi := math.Inf(1), -1
	// t.Rows are in oraclesLast(names) order.
	for i, si := range oraclesLast(names) {
		if names[si].Heuristic() {
			if v := t.Rows[i].Values[gi*nm]; v < best {
				best, bi = v, i
			}
		}
	}
	return bi
}

// floorRow is the table's floor row, nil when it has none.
func floorRow(t *Table) *TableRow {
	for i := range t.Rows {
		if t.Rows[i].Source == SourceBound {
			return &t.Rows[i]
		}
	}
	return nil
}

// floorBound names the bound that gives the floor of column group (ci,
// wi) (sim.Floor.Name), over its seeds: "mean-busy/gpu" when one bound
// gives it at every seed, "mean-busy/gpu at 2 of 3 seeds, standalone at 1"
// (most seeds first) when they differ; "" when no cell names one (a run
// from before the floor named its bound).
func (r *Report) floorBound(ci, wi int) string {
	seen := map[int]bool{}
	count := map[string]int{}
	for _, cr := range r.Cells {
		if c := cr.Cell; c.ci == ci && c.wi == wi && !seen[c.Seed] && cr.Metrics.FloorBound != "" {
			seen[c.Seed] = true
			count[cr.Metrics.FloorBound]++
		}
	}
	names := slices.Sorted(maps.Keys(count))
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	slices.SortStableFunc(names, func(a, b string) int { return count[b] - count[a] })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s at %d", n, count[n])
	}
	parts[0] += fmt.Sprintf(" of %d seeds", len(seen))
	return strings.Join(parts, ", ")
}

// headroomNote gives, per column group, the floor, the bound that gives
// it (bounds, by group: floorBound), the best heuristic and the headroom
// (best − floor) / floor, with the largest margin by which any scheduler
// could beat the best heuristic there (MaxMargin).
func headroomNote(t *Table, names []schedulers.Name, bounds []string) string {
	fr := floorRow(t)
	if fr == nil {
		return ""
	}
	nm := len(t.Metrics)
	var parts []string
	for gi, g := range t.Groups {
		bi := bestHeuristic(t, names, gi)
		floor := fr.Values[gi*nm]
		if bi < 0 || !(floor > 0) {
			continue
		}
		best := t.Rows[bi].Values[gi*nm]
		h := (best - floor) / floor
		var bound string
		if gi < len(bounds) && bounds[gi] != "" {
			bound = " (" + bounds[gi] + ")"
		}
		parts = append(parts, fmt.Sprintf("%s: floor %s%s, best heuristic %s %s, headroom %.1f %% (no scheduler can beat it by more than %.1f %%)",
			g, display(floor, t.Metrics[0]), bound, t.Rows[bi].Label, display(best, t.Metrics[0]), 100*h, 100*MaxMargin(h)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Floor and headroom (" + t.Metrics[0].Label + "): the floor is a mean JCT no scheduler can beat on the column's jobs (each at its standalone speed from the first decision point, and no resource busier than the cluster holds; in brackets the bound that gives it: standalone, or capacity, mean-busy or packing over a resource); headroom = (best heuristic − floor) / floor, the heuristics being the rows neither learned nor oracle: " + strings.Join(parts, "; ") + "."
}

// marginNote gives, per column group, each learned row's mean JCT margin
// over the best heuristic row: (best heuristic − learned) / best
// heuristic, positive when the learned scheduler is better (the MARL
// paper's "improvement"), and the share of the column's headroom it
// captured, (best − learned) / (best − floor).
func marginNote(t *Table, names []schedulers.Name) string {
	var learned []int
	for i, si := range oraclesLast(names) {
		if names[si].Learned() {
			learned = append(learned, i)
		}
	}
	if len(learned) == 0 {
		return ""
	}
	nm := len(t.Metrics)
	fr := floorRow(t)
	var parts []string
	for gi, g := range t.Groups {
		bi := bestHeuristic(t, names, gi)
		if bi < 0 {
			continue
		}
		best := t.Rows[bi].Values[gi*nm]
		if !(best > 0) {
			continue
		}
		var ms []string
		for _, i := range learned {
			v := t.Rows[i].Values[gi*nm]
			m := fmt.Sprintf("%s %+.1f %%", t.Rows[i].Label, 100*(best-v)/best)
			if fr != nil && best > fr.Values[gi*nm] {
				m += fmt.Sprintf(" (share of headroom %+.0f %%)", 100*(best-v)/(best-fr.Values[gi*nm]))
			}
			ms = append(ms, m)
		}
		parts = append(parts, fmt.Sprintf("%s (vs %s): %s", g, t.Rows[bi].Label, strings.Join(ms, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Mean-JCT margin of each learned row over the best heuristic of its column, (heuristic − learned) / heuristic, positive when the learned row is better, and its share of the headroom, (heuristic − learned) / (heuristic − floor): " + strings.Join(parts, "; ") + "."
}

// operatingPoint states how loaded column group (ci, wi) is: GPU and CPU
// utilisation and mean queueing delay under its best heuristic (the
// lowest mean JCT over the seeds among the heuristic rows), means over
// the seeds, and the headroom. "" when the group has no heuristic.
func (r *Report) operatingPoint(label string, ci, wi int) string {
	best, bj := math.Inf(1), -1
	for si, canon := range r.Names {
		if !canon.Heuristic() {
			continue
		}
		var sum float64
		n := 0
		for _, cr := range r.Cells {
			if c := cr.Cell; c.ci == ci && c.wi == wi && c.si == si {
				sum += cr.Metrics.MeanJCTS
				n++
			}
		}
		if n > 0 && sum/float64(n) < best {
			best, bj = sum/float64(n), si
		}
	}
	if bj < 0 {
		return label + ": no heuristic row"
	}
	var gpu, cpu, queue, floor float64
	n := 0
	for _, cr := range r.Cells {
		if c := cr.Cell; c.ci == ci && c.wi == wi && c.si == bj {
			gpu += cr.Metrics.GPUUtil
			cpu += cr.Metrics.CPUUtil
			queue += cr.Metrics.MeanQueueS
			floor += cr.Metrics.FloorJCTS
			n++
		}
	}
	k := float64(n)
	unit, scale := "min", 60.0
	if r.Spec.Sim.Trigger == sim.TriggerInterval {
		unit, scale = "intervals", r.Spec.Sim.IntervalS
	}
	return fmt.Sprintf("%s: GPU %.0f %%, CPU %.0f %% busy, mean queueing delay %s %s, headroom %.1f %% (%s)",
		label, 100*gpu/k, 100*cpu/k, FormatValue(queue/k/scale, 3), unit, 100*(best-floor/k)/(floor/k), schedulers.Display(string(r.Names[bj])))
}

// wilcoxonNote compares, in one column group, every scheduler with the
// spec's first by the Wilcoxon signed-rank test on per-job JCT and fee,
// pairing each job with itself (pooled over seeds). Pairs need the same
// jobs in both cells (the same ids in the same order, compared by their
// hash, jobPairs), which holds because every cell of a group replays the
// same jobs to completion.
func (r *Report) wilcoxonNote(label string, ci, wi int) string {
	s := r.Spec
	if len(s.Schedulers) < 2 {
		return ""
	}
	// Jobs pair with themselves in the same seed: a learned row's first
	// trained model (replicate 0) stands for it, as the other models
	// replay the same jobs.
	cells := func(si int) []*jobPairs {
		var out []*jobPairs
		for i := range r.Cells {
			if c := r.Cells[i].Cell; c.ci == ci && c.wi == wi && c.si == si && c.Replicate == 0 {
				out = append(out, r.Cells[i].pairs())
			}
		}
		return out
	}
	ref := cells(0)
	var parts []string
	for si := 1; si < len(s.Schedulers); si++ {
		other := cells(si)
		var ja, jb, fa, fb []float64
		ok := len(other) == len(ref)
		for k := 0; ok && k < len(ref); k++ {
			a, b := ref[k], other[k]
			if ok = a.n == b.n && a.ids == b.ids; ok {
				ja, jb = append(ja, a.jct...), append(jb, b.jct...)
				fa, fb = append(fa, a.fee...), append(fb, b.fee...)
			}
		}
		if !ok || len(ja) == 0 {
			continue
		}
		wj, err1 := WilcoxonSignedRank(jb, ja)
		wf, err2 := WilcoxonSignedRank(fb, fa)
		if err1 != nil || err2 != nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s / %s", schedulers.Display(string(r.Names[si])), formatP(wj.P), formatP(wf.P)))
	}
	if len(parts) == 0 {
		return ""
	}
	first := ""
	if len(r.Spec.Replicates) > 0 {
		first = " (a learned row with several trained models: its first, replicate 0)"
	}
	return fmt.Sprintf("%s: Wilcoxon signed-rank p-values (two-sided, per-job pairs, zero differences dropped) of JCT / fee against %s%s: %s.",
		label, schedulers.Display(string(r.Names[0])), first, strings.Join(parts, "; "))
}

func formatP(p float64) string {
	if p < 1e-300 {
		return "<1e-300" // erfc underflows
	}
	if p < 1e-4 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.4f", p)
}

// reference is the paper's figures registered for the report's
// experiment, if any.
func (r *Report) reference() *Reference {
	if e, err := Lookup(r.Spec.Experiment); err == nil {
		return e.Reference
	}
	return nil
}

// comparable reports whether the registered reference's figures were
// measured on the workloads this report read (Reference.Comparable of
// each trace workload's source), and why not.
func (r *Report) comparable() (bool, string) {
	ref := r.reference()
	for _, w := range r.Workloads {
		if w.Skipped != "" || r.Spec.Workloads[workloadIndex(r.Spec, w.Workload)].Kind != KindTrace {
			continue
		}
		if ok, why := ref.Comparable(w.Source); !ok {
			return false, why
		}
	}
	return true, ""
}

// paperRows are the registered reference's figures for the schedulers of
// the spec, when the spec has a single workload (the paper's tables are
// per cluster).
func (r *Report) paperRows(t *Table) []TableRow {
	ref := r.reference()
	if ref == nil || len(r.Spec.Workloads) != 1 {
		return nil
	}
	if ok, _ := r.comparable(); !ok {
		return nil
	}
	var rows []TableRow
	for _, canon := range r.Names {
		if v, ok := ref.Values(string(canon), t.Groups, len(t.Metrics)); ok {
			rows = append(rows, TableRow{Label: schedulers.Display(string(canon)) + " (paper)", Source: SourcePaper, Values: v})
		}
	}
	return rows
}

func (r *Report) notes(ran bool) []string {
	s := r.Spec
	var n []string
	for _, w := range r.Workloads {
		if w.Cluster != s.Clusters[0].Name && s.Workloads[workloadIndex(s, w.Workload)].Kind == KindTrace {
			continue // a trace is the same on every cluster
		}
		switch {
		case w.Skipped != "":
			n = append(n, fmt.Sprintf("Workload %s on %s: skipped: %s.", w.Workload, w.Cluster, w.Skipped))
		case s.Workloads[workloadIndex(s, w.Workload)].Kind == KindTrace:
			wl := s.Workloads[workloadIndex(s, w.Workload)]
			rate := ""
			if wl.ArrivalRate != 0 && wl.ArrivalRate != 1 {
				rate = fmt.Sprintf(", arriving at %g× the trace's rate", wl.ArrivalRate)
			}
			n = append(n, fmt.Sprintf("Workload %s (seed %d): %s, %d jobs read, %d pruned (do not fit every cluster: %s), %d beyond the first %d, %d train, %d evaluated%s.",
				w.Workload, w.Seed, w.Source, w.Read, w.Pruned, clusterNames(s), w.Beyond, wl.MaxJobs, w.Train, w.Test, rate))
		default:
			wl := s.Workloads[workloadIndex(s, w.Workload)]
			jpp, paper := wl.JobsPerPod, ""
			if jpp == 0 {
				for _, c := range s.Clusters {
					if built, err := c.Spec.Build(); c.Name == w.Cluster && err == nil {
						jpp, paper = MARLPaperLoad(built), " (the paper's load per server)"
					}
				}
			}
			n = append(n, fmt.Sprintf("Workload %s on %s (seed %d): %s, %g jobs per pod%s per %g s interval for %d intervals, %d jobs; %s.",
				w.Workload, w.Cluster, w.Seed, w.Source, jpp, paper, s.Sim.IntervalS, wl.Intervals, w.Test, shapeNote(wl.Shape)))
		}
	}
	if !ran {
		n = append(n, "No cell ran.")
	}
	n = append(n, s.Notes...)
	n = append(n, fmt.Sprintf("Simulator: %s triggers%s, %s; %.2f $/GPU-hour; %d seed(s) per cell, run seed %d; values are means over seeds.",
		s.Sim.Trigger, ownTriggers(s), speedNote(s.Sim), s.Sim.PriceGPUHour, s.Seeds, r.Seed))
	if restart := restartNote(s); restart != "" {
		n = append(n, restart)
	}
	if ref := r.reference(); ref != nil {
		if ok, why := r.comparable(); !ok {
			n = append(n, "The paper's figures are not shown: "+why+".")
		} else {
			n = append(n, ref.Note)
		}
	}
	return n
}

// ownTriggers names the rows that run under a trigger of their own
// (schedulers.Info.Trigger, as runCell applies it), "" when none does.
func ownTriggers(s Spec) string {
	var own []string
	for _, name := range s.Schedulers {
		if info, ok := schedulers.Lookup(name); ok && info.Trigger != "" && info.Trigger != s.Sim.Trigger {
			own = append(own, fmt.Sprintf("%s %s", schedulers.Display(name), info.Trigger))
		}
	}
	if len(own) == 0 {
		return ""
	}
	return " (rows with a trigger of their own: " + strings.Join(own, ", ") + ")"
}

// restartNote says what resuming a preempted job costs in each workload
// that sets it, "" when none does.
func restartNote(s Spec) string {
	var ws []string
	for _, w := range s.Workloads {
		if w.RestartS > 0 {
			ws = append(ws, fmt.Sprintf("%s %g s", w.Name, w.RestartS))
		}
	}
	if len(ws) == 0 {
		return ""
	}
	return fmt.Sprintf("A preempted job pays a restart cost when it resumes (extra standalone seconds): %s; %s s elsewhere.", strings.Join(ws, ", "), s.Sim.RestartS)
}

// speedNote says which speed model produced a table (sim.speed), in
// which environment (sim.environment) and, where interference is
// modelled, under which socket rule (sim.socket).
func speedNote(c sim.Config) string {
	env := "no calibrated environment (simulator defaults)"
	if c.Environment != "" {
		env = "environment " + c.Environment
	}
	socket := c.Socket
	if socket == "" {
		socket = sim.SocketMostFree
	}
	cj := ""
	if c.CPULoad == sim.CPULoadProfile {
		cj = ", a worker's CPU load C_J its model's standalone profile (capped at its request)"
	}
	switch c.Speed {
	case sim.SpeedStandalone:
		return "standalone speed (trace replay: jobs run for their recorded durations), " + env
	default:
		return "model speed (interference and communication), " + env + ", instances homed on the " + socket + " socket" + cj
	}
}

// shapeNote says what a MARL workload's jobs request and how long they
// run (sim.job_shape), and which models have a shape of their own.
func shapeNote(s datasets.MARLShape) string {
	r := s.Resolved()
	name := "the paper's job shape"
	if !s.IsZero() {
		name = "job shape set by sim.job_shape"
	}
	out := fmt.Sprintf("%s: %d–%d workers of %g GPU + %g cores, %d–%d PSs of %g cores, %g–%g min standalone",
		name, r.MinWorkers, r.MaxWorkers, r.WorkerGPU, r.WorkerCPU, r.MinPS, r.MaxPS, r.PSCPU, r.MinDurationS/60, r.MaxDurationS/60)
	if len(r.Models) > 0 {
		var names []string
		for _, m := range r.Models {
			names = append(names, m.Model)
		}
		out += " (" + strings.Join(names, ", ") + ": their own)"
	}
	return out
}

func workloadIndex(s Spec, name string) int {
	for i, w := range s.Workloads {
		if w.Name == name {
			return i
		}
	}
	return 0
}

func clusterNames(s Spec) string {
	var out []string
	for _, c := range s.Clusters {
		out = append(out, c.Name)
	}
	return strings.Join(out, ", ")
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (t *Table) format(v float64, m Metric) string {
	if math.IsNaN(v) {
		return "—"
	}
	if m.Digits < 0 { // significant digits, for p-values
		return fmt.Sprintf("%.*g", -m.Digits, v)
	}
	return fmt.Sprintf("%.*f", m.Digits, v)
}

// display formats a value for people (Markdown): three significant
// digits, never fewer than the integer part, and never more decimals than
// the metric's own (a count stays an integer); p-values as format.
func display(v float64, m Metric) string {
	switch {
	case v == 0:
		return "0"
	case math.IsNaN(v) || m.Digits <= 0 || math.IsInf(v, 0):
		return (&Table{}).format(v, m)
	}
	d := min(max(2-int(math.Floor(math.Log10(math.Abs(v)))), 0), m.Digits)
	return fmt.Sprintf("%.*f", d, v)
}

// FormatValue formats v as the Markdown tables do: three significant
// digits, never fewer than the integer part, and at most decimals
// decimals; negative decimals mean that many significant digits (as
// p-values are written); NaN is "—". Other packages' tables (the claims
// scoreboard) use it so that every table of a report reads alike.
func FormatValue(v float64, decimals int) string { return display(v, Metric{Digits: decimals}) }

// displayCI is display, followed by " ± h" when the value has an interval:
// h, the larger distance from the mean to an endpoint, with the value's
// decimals.
func displayCI(v float64, iv Interval, m Metric) string {
	if !iv.Valid() || math.IsNaN(v) || m.Digits < 0 {
		return display(v, m)
	}
	h := max(iv.Hi-v, v-iv.Lo)
	d := m.Digits
	if v != 0 && !math.IsInf(v, 0) {
		d = min(max(2-int(math.Floor(math.Log10(math.Abs(v)))), 0), m.Digits)
	}
	return display(v, m) + " ± " + fmt.Sprintf("%.*f", d, h)
}

// cell is the Markdown of value i of the row.
func (r TableRow) cell(i int, m Metric) string {
	if r.hasCI(i) {
		return displayCI(r.Values[i], r.CI[i], m)
	}
	return display(r.Values[i], m)
}

// MaxColumns is the widest Markdown table we write: wider tables are split
// (by cluster, or by metric) so that the report fits a page.
const MaxColumns = 10

// Markdown renders the table with its title and notes, for people: three
// significant digits, no sub-table wider than MaxColumns. When the table
// has the paper's rows, each column group is a sub-table with ours, the
// paper's and the difference side by side; otherwise a table too wide
// is split by the part of its group labels before "/" (the cluster of
// cluster/workload groups), then by metric. The CSV keeps one wide row
// per scheduler for machines.
func (t *Table) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", t.Title)
	if t.hasPaper() {
		t.sideBySide(&b)
	} else {
		groups := make([]int, len(t.Groups))
		for i := range groups {
			groups[i] = i
		}
		t.subTables(&b, "", groups)
	}
	if len(t.Notes) > 0 {
		for _, n := range t.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.Bytes()
}

func (t *Table) hasPaper() bool {
	for _, r := range t.Rows {
		if r.Source == SourcePaper {
			return true
		}
	}
	return false
}

// sideBySide writes one sub-table per column group: per metric our value,
// the paper's and Δ % = (ours − paper) / paper (no Δ for p-values).
func (t *Table) sideBySide(b *bytes.Buffer) {
	nm := len(t.Metrics)
	paper := map[string]TableRow{}
	for _, r := range t.Rows {
		if r.Source == SourcePaper {
			paper[strings.TrimSuffix(r.Label, " (paper)")] = r
		}
	}
	for gi, g := range t.Groups {
		if len(t.Groups) > 1 {
			fmt.Fprintf(b, "## %s\n\n", g)
		}
		b.WriteString("| Scheduler |")
		align := "|---|"
		for _, m := range t.Metrics {
			fmt.Fprintf(b, " %s ours | paper |", m.Label)
			align += "---:|---:|"
			if m.Digits >= 0 {
				b.WriteString(" Δ % |")
				align += "---:|"
			}
		}
		b.WriteString("\n" + align + "\n")
		for _, r := range t.Rows {
			if r.Source == SourcePaper {
				continue
			}
			p, ok := paper[r.Label]
			fmt.Fprintf(b, "| %s |", r.Label)
			for mi, m := range t.Metrics {
				ours, ref := r.Values[gi*nm+mi], math.NaN()
				if ok {
					ref = p.Values[gi*nm+mi]
				}
				fmt.Fprintf(b, " %s | %s |", r.cell(gi*nm+mi, m), display(ref, m))
				if m.Digits >= 0 {
					delta := "—"
					if !math.IsNaN(ours) && !math.IsNaN(ref) && ref != 0 {
						delta = fmt.Sprintf("%+.0f", 100*(ours-ref)/ref)
					}
					fmt.Fprintf(b, " %s |", delta)
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
}

// subTables writes the groups as one table when it fits MaxColumns, else
// one sub-table per label prefix (the part before "/"), else per metric
// with at most MaxColumns−1 groups each.
func (t *Table) subTables(b *bytes.Buffer, heading string, groups []int) {
	nm := len(t.Metrics)
	if 1+len(groups)*nm <= MaxColumns {
		if heading != "" {
			fmt.Fprintf(b, "## %s\n\n", heading)
		}
		t.grid(b, groups, nil, heading)
		return
	}
	if heading == "" {
		var order []string
		parts := map[string][]int{}
		for _, gi := range groups {
			prefix, _, found := strings.Cut(t.Groups[gi], "/")
			if !found {
				prefix = t.Groups[gi]
			}
			if _, ok := parts[prefix]; !ok {
				order = append(order, prefix)
			}
			parts[prefix] = append(parts[prefix], gi)
		}
		if len(order) > 1 && len(order) < len(groups) {
			for _, p := range order {
				t.subTables(b, p, parts[p])
			}
			return
		}
	}
	for mi, m := range t.Metrics {
		for lo := 0; lo < len(groups); lo += MaxColumns - 1 {
			chunk := groups[lo:min(lo+MaxColumns-1, len(groups))]
			title := m.Label
			if heading != "" {
				title = heading + ": " + m.Label
			}
			fmt.Fprintf(b, "## %s\n\n", title)
			t.grid(b, chunk, []int{mi}, heading)
		}
	}
}

// grid writes one Markdown table of the rows over the given groups and
// metrics (nil: all), dropping the groups' prefix before "/" when it is
// the sub-table's heading.
func (t *Table) grid(b *bytes.Buffer, groups, metrics []int, prefix string) {
	nm := len(t.Metrics)
	if metrics == nil {
		for mi := range t.Metrics {
			metrics = append(metrics, mi)
		}
	}
	b.WriteString("| Scheduler |")
	for _, gi := range groups {
		g := strings.TrimPrefix(t.Groups[gi], prefix+"/")
		for _, mi := range metrics {
			if len(metrics) == 1 && len(t.Metrics) > 1 {
				fmt.Fprintf(b, " %s |", g) // the metric is the sub-table's heading
			} else {
				fmt.Fprintf(b, " %s %s |", g, t.Metrics[mi].Label)
			}
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(groups)*len(metrics)) + "\n")
	for _, row := range t.Rows {
		fmt.Fprintf(b, "| %s |", row.Label)
		for _, gi := range groups {
			for _, mi := range metrics {
				fmt.Fprintf(b, " %s |", row.cell(gi*nm+mi, t.Metrics[mi]))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// CSV renders the table as one header line and one line per row:
// scheduler, source (ours or paper), then <group>_<metric> columns; empty
// where there is no value. When a value of the table has an interval,
// every <group>_<metric> column is followed by <group>_<metric>_ci_lo and
// _ci_hi, empty where the value has none. Notes are not included.
func (t *Table) CSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	withCI := t.hasCI()
	head := []string{"scheduler", "source"}
	for _, g := range t.Groups {
		for _, m := range t.Metrics {
			head = append(head, csvKey(g)+"_"+m.Key)
			if withCI {
				head = append(head, csvKey(g)+"_"+m.Key+"_ci_lo", csvKey(g)+"_"+m.Key+"_ci_hi")
			}
		}
	}
	w.Write(head)
	for _, row := range t.Rows {
		rec := []string{row.Label, row.Source}
		for i, v := range row.Values {
			digits := t.Metrics[i%len(t.Metrics)].Digits
			num := func(v float64) string {
				if math.IsNaN(v) {
					return ""
				}
				return fmt.Sprintf("%.*f", digits, v)
			}
			rec = append(rec, num(v))
			if withCI {
				if row.hasCI(i) {
					rec = append(rec, num(row.CI[i].Lo), num(row.CI[i].Hi))
				} else {
					rec = append(rec, "", "")
				}
			}
		}
		w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

func csvKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

var texEscaper = strings.NewReplacer(`\`, `\textbackslash{}`, "&", `\&`, "%", `\%`, "$", `\$`, "#", `\#`, "_", `\_`,
	"{", `\{`, "}", `\}`, "~", `\textasciitilde{}`, "^", `\textasciicircum{}`, "—", "--")

// LaTeX renders a tabular environment (no packages needed): a header row
// of groups spanning their metrics, a row of metric labels, then the rows,
// with a rule before the paper's rows.
func (t *Table) LaTeX() []byte {
	var b bytes.Buffer
	nm := len(t.Metrics)
	fmt.Fprintf(&b, "%% %s\n", texEscaper.Replace(t.Title))
	b.WriteString(`\begin{tabular}{l`)
	for range t.Groups {
		b.WriteString("|" + strings.Repeat("r", nm))
	}
	b.WriteString("}\n\\hline\n")
	for _, g := range t.Groups {
		fmt.Fprintf(&b, " & \\multicolumn{%d}{c}{%s}", nm, texEscaper.Replace(g))
	}
	b.WriteString(" \\\\\nScheduler")
	for range t.Groups {
		for _, m := range t.Metrics {
			fmt.Fprintf(&b, " & %s", texEscaper.Replace(m.Label))
		}
	}
	b.WriteString(" \\\\\n\\hline\n")
	prev := SourceOurs
	for _, row := range t.Rows {
		if row.Source != prev {
			b.WriteString("\\hline\n")
			prev = row.Source
		}
		b.WriteString(texEscaper.Replace(row.Label))
		for i, v := range row.Values {
			fmt.Fprintf(&b, " & %s", texEscaper.Replace(t.format(v, t.Metrics[i%nm])))
			if row.hasCI(i) {
				fmt.Fprintf(&b, " $\\pm$ %s", t.format(max(row.CI[i].Hi-v, v-row.CI[i].Lo), t.Metrics[i%nm]))
			}
		}
		b.WriteString(" \\\\\n")
	}
	b.WriteString("\\hline\n\\end{tabular}\n")
	return b.Bytes()
}
