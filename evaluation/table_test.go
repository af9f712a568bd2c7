package evaluation

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/das"
)

// TestMarkdownWidth builds das-load's shape (three clusters × three rates
// plus the average, two metrics: 21 columns in one table) and a table
// with too many plain groups, and checks that no Markdown table row has
// more than MaxColumns cells and that every value is still shown.
func TestMarkdownWidth(t *testing.T) {
	metrics := []Metric{{"JCT (min)", "jct_min", 3}, {"Fee ($)", "fee_usd", 3}}
	var groups []string
	for _, c := range []string{"Small", "Medium", "Large"} {
		for _, r := range []string{"x0.5", "x1", "x2"} {
			groups = append(groups, c+"/"+r)
		}
	}
	groups = append(groups, AverageGroup)
	var plain []string
	for i := range 12 {
		plain = append(plain, string(rune('A'+i)))
	}
	for _, gs := range [][]string{groups, plain} {
		tab := &Table{Title: "t", Groups: gs, Metrics: metrics}
		for r := range 2 {
			row := TableRow{Label: "s" + string(rune('0'+r)), Source: SourceOurs}
			for i := range len(gs) * len(metrics) {
				row.Values = append(row.Values, float64(1000*r+i)+0.123)
			}
			tab.Rows = append(tab.Rows, row)
		}
		md := string(tab.Markdown())
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "|") && strings.Count(line, "|")-1 > MaxColumns {
				t.Errorf("row with %d columns:\n%s", strings.Count(line, "|")-1, line)
			}
		}
		for _, row := range tab.Rows {
			for i, v := range row.Values {
				if want := " " + display(v, metrics[i%2]) + " |"; !strings.Contains(md, want) {
					t.Errorf("value %v (%q) missing:\n%s", v, want, md)
				}
			}
		}
		if gs[0] == "Small/x0.5" && !strings.Contains(md, "## Small") {
			t.Errorf("das-load shape not split by cluster:\n%s", md)
		}
	}
}

func TestDisplaySignificantDigits(t *testing.T) {
	m := Metric{Digits: 3}
	for _, tc := range []struct {
		v    float64
		want string
	}{{398.327, "398"}, {14.778, "14.8"}, {1234.5, "1234"}, {0.12345, "0.123"}, {0.0012345, "0.001"}, {0, "0"}, {math.NaN(), "—"}, {-3.14159, "-3.14"}} {
		if got := display(tc.v, m); got != tc.want {
			t.Errorf("display(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := display(4, Metric{Digits: 0}); got != "4" {
		t.Errorf("count: %q", got)
	}
}

// TestLinePlots: das-load (one trace at several rates) and das-tuning
// (RIFLING and the h/τ models) are drawn as line plots over the quantity,
// as their registrations declare (Experiment.Plot); anything else as bars,
// even a report of another experiment with their shape. A made-up report suffices:
// the plot reads only the spec, the names and the cells' metrics.
func TestLinePlots(t *testing.T) {
	fake := func(id string, names []string, workloads []Workload) *Report {
		r := &Report{Spec: Spec{Experiment: id, Clusters: []Cluster{{Name: "small"}, {Name: "medium"}}, Workloads: workloads, Seeds: 1}}
		for si, n := range names {
			r.Names = append(r.Names, schedulers.Name(n))
			for ci := range r.Spec.Clusters {
				for wi := range workloads {
					r.Cells = append(r.Cells, CellResult{Cell: Cell{ci: ci, wi: wi, si: si},
						Metrics: sim.Metrics{MeanJCTS: float64(60 * (100 + 10*si + ci + wi)), MeanFeeUSD: float64(10 + si)}})
				}
			}
		}
		return r
	}
	trace := Workload{Name: "pai", Kind: KindTrace}
	load := fake(DASLoad, []string{DASRIFLING, "das"}, loadWorkloads(trace, []float64{0.5, 1, 2}))
	tuning := fake(DASTuning, append([]string{DASRIFLING, "rifling"}, das.TuningNames()...), []Workload{trace})
	table1 := fake(DASTable1, []string{"fifo-firstfit", "tetris"}, []Workload{trace})
	notTuning := fake(DASTable1, append([]string{"rifling"}, das.TuningNames()...), []Workload{trace})
	for _, tc := range []struct {
		r              *Report
		rate, tuning   bool
		want, dontWant string
	}{
		{load, true, false, "over the arrival rate", ""},
		{tuning, false, true, "over attention heads h", "RIFLING"},
		{table1, false, false, "mean JCT (min)", "over"},
		{notTuning, false, true, "mean JCT (min)", "over attention heads h"},
	} {
		// das-tuning's registration names RIFLING's rows as its references.
		refs := []schedulers.Name{DASRIFLING, "rifling"}
		if tc.r.overRate() != tc.rate || tc.r.overTuning(refs) != tc.tuning {
			t.Errorf("%v: overRate %v overTuning %v, want %v %v", tc.r.Names, tc.r.overRate(), tc.r.overTuning(refs), tc.rate, tc.tuning)
		}
		svg, png, err := tc.r.Plot()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(svg), tc.want) || (tc.dontWant != "" && strings.Contains(string(svg), tc.dontWant)) || !strings.HasPrefix(string(png), "\x89PNG") {
			t.Errorf("%v: plot lacks %q or has %q", tc.r.Names, tc.want, tc.dontWant)
		}
	}
}

// TestOracleRowsApart: rows that read the future come after the others,
// whatever the configured order, with the one-line note that explains
// them, and are never the best heuristic a learned row's margin is over.
func TestOracleRowsApart(t *testing.T) {
	r := &Report{Spec: Spec{Experiment: "t", Clusters: []Cluster{{Name: "small"}}, Workloads: []Workload{{Name: "pai", Kind: KindTrace}}, Seeds: 1}}
	jct := map[string]float64{"malo-oracle": 50, "fifo-firstfit": 100, "das": 90, "tetris": 110}
	for si, n := range []string{"malo-oracle", "fifo-firstfit", "das", "tetris"} {
		r.Names = append(r.Names, schedulers.Name(n))
		r.Cells = append(r.Cells, CellResult{Cell: Cell{si: si}, Metrics: sim.Metrics{MeanJCTS: 60 * jct[n], MeanFeeUSD: 1}})
	}
	tb := r.Table()
	var labels []string
	for _, row := range tb.Rows {
		labels = append(labels, row.Label)
	}
	if want := []string{"FIFO-FirstFit", "DAS", "Tetris", "MALO (oracle)", FloorLabel}; !slices.Equal(labels, want) {
		t.Errorf("rows %q, want %q", labels, want)
	}
	notes := strings.Join(tb.Notes, "\n")
	if !strings.Contains(notes, schedulers.OracleNote) {
		t.Errorf("notes lack the oracle line: %s", notes)
	}
	if !strings.Contains(notes, "(vs FIFO-FirstFit): DAS +10.0 %") {
		t.Errorf("margin not over the best non-oracle heuristic: %s", notes)
	}
}

// TestDASTrainingFlagsFIFO: das-table1-training averages the Adam steps
// of the training episodes, shows the last validation's share of
// decisions unlike FIFO-FirstFit's beside its untrained reference's, and
// names in its notes the models under FIFOLike and those less than
// FIFOLike further from FIFO-FirstFit than their untrained reference, not
// those above both nor those that do not measure it.
func TestDASTrainingFlagsFIFO(t *testing.T) {
	share := func(v float64) *float64 { return &v }
	curve := func(name string, steps [2]int64, last, untrained *float64) LearningCurve {
		return LearningCurve{Scheduler: name, Cluster: "small", Rows: []training.Curve{
			{Split: "train", Episode: 0, AdamSteps: steps[0]}, {Split: "train", Episode: 1, AdamSteps: steps[1]},
			{Split: "validation", Episode: 1, MeanJCT: 6000, NotFIFO: last, UntrainedNotFIFO: untrained}}}
	}
	in := DerivedData{Parent: Spec{Clusters: []Cluster{{Name: "small"}}}, Curves: []LearningCurve{
		curve("das", [2]int64{3000, 3200}, share(0.3), share(0.2)), curve("das-mappo", [2]int64{100, 140}, share(0.02), share(0)),
		curve("dl2", [2]int64{}, nil, nil), curve("da", [2]int64{3000, 3000}, share(0.18), share(0.2)),
		curve("da+mc", [2]int64{3000, 3000}, share(0.473), share(0.429))}}
	tb := dasTrainingTable(in)
	if got := tb.Rows[0].Values; got[0] != 3100 || math.Abs(got[1]-30) > 1e-9 || math.Abs(got[2]-20) > 1e-9 || got[3] != 100 {
		t.Errorf("das row %v, want [3100 30 20 100]", got)
	}
	if v := tb.Rows[2].Values; !math.IsNaN(v[0]) || !math.IsNaN(v[1]) || !math.IsNaN(v[2]) {
		t.Errorf("dl2 row %v: it measures none", v)
	}
	notes := strings.Join(tb.Notes, "\n")
	if !strings.Contains(notes, "FIFO-FirstFit under another name: DAS (MAPPO) (2.0 %).") {
		t.Errorf("notes do not flag das-mappo alone as FIFO-like: %s", notes)
	}
	want := "did not measurably learn to schedule at this budget: DAS (MAPPO) (2.0 % against 0.0 %), DA (18.0 % against 20.0 %), DA+MC (47.3 % against 42.9 %)."
	if !strings.Contains(notes, want) {
		t.Errorf("notes do not flag das-mappo, da and da+mc alone as less than 5 points further than their untrained reference: %s", notes)
	}
}
