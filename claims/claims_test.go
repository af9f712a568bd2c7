package claims

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
)

// cellsOf is one cell per replicate of the scheduler in an experiment's
// column at a seed, with the given mean JCTs (s) and fees (the same).
func cellsOf(exp, cluster, workload, sched string, seed int32, values ...float64) []Cell {
	var out []Cell
	for r, v := range values {
		out = append(out, Cell{Experiment: exp, Cluster: cluster, Workload: workload, Scheduler: sched, Seed: seed, Replicate: int32(r), Jobs: 100, MeanJCTS: v, MeanFeeUSD: v})
	}
	return out
}

func config(experiments ...string) *evaluation.Config {
	c := &evaluation.Config{Experiments: experiments}
	evaluation.MARLArrivalsSection.Edit(c, func(s *evaluation.MARLArrivalsConfig) { s.K = 4 })
	evaluation.DASLoadSection.Edit(c, func(s *evaluation.DASLoadConfig) { s.Rates = []float64{0.5, 1, 2} })
	return c
}

func evaluate(t *testing.T, in *Input) map[string]Row {
	t.Helper()
	rows, err := Evaluate(in)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Row{}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out
}

// marlFig7 is marl-arrivals with LIF at 10 intervals and MARL
// (device-level) at the given values, one per replicate.
func marlFig7(device ...float64) []Cell {
	c := cellsOf(evaluation.MARLArrivals, "fattree-k4", "uniform", "lif", 1, 10)
	c = append(c, cellsOf(evaluation.MARLArrivals, "fattree-k4", "uniform", "tetris-pack", 1, 12)...)
	return append(c, cellsOf(evaluation.MARLArrivals, "fattree-k4", "uniform", "marl-device", 1, device...)...)
}

// TestComparisonVerdicts walks every verdict of a comparison claim (MARL
// Fig. 7: at least 20 % below the best baseline) through the rule of
// doc.go.
func TestComparisonVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     *evaluation.Config
		cells   []Cell
		verdict Verdict
		text    string // verdictText
		ci      string // ciText
	}{
		// Margins over LIF 30, 31, 29 %: the interval is above 20.
		{"holds", config(evaluation.MARLArrivals), marlFig7(7.0, 6.9, 7.1), Holds, "holds", "[+29.0, +31.0] % (n = 3: 1 seed × 3 models)"},
		// 5, 6, 4 %: the interval is below 20.
		{"does not hold", config(evaluation.MARLArrivals), marlFig7(9.5, 9.4, 9.6), DoesNotHold, "does not hold", "[+4.0, +6.0] % (n = 3: 1 seed × 3 models)"},
		// 12, 28, 22 %: a resample of three 12s (probability 1/27 > 2.5 %)
		// puts the lower end at 12, three 28s the upper at 28: across 20.
		{"inconclusive", config(evaluation.MARLArrivals), marlFig7(8.8, 7.2, 7.8), Inconclusive, "inconclusive", "[+12.0, +28.0] % (n = 3: 1 seed × 3 models)"},
		{"one sample holds", config(evaluation.MARLArrivals), marlFig7(7.0), Holds, "holds (n = 1)", "n = 1"},
		{"one sample does not hold", config(evaluation.MARLArrivals), marlFig7(9.5), DoesNotHold, "does not hold (n = 1)", "n = 1"},
		{"experiment not listed", config(), nil, NotRun, "not run in this preset", "—"},
		{"row not run", config(evaluation.MARLArrivals), marlFig7()[:2], NotRun, "not run in this preset", "—"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, &Input{Run: Run{Config: tc.cfg, Seed: 1}, Cells: tc.cells})["marl-fig7"]
			if r.Verdict != tc.verdict || r.VerdictText() != tc.text || r.CIText() != tc.ci {
				t.Errorf("verdict %q, %q, CI %q; want %q, %q, %q (%+v)", r.Verdict, r.VerdictText(), r.CIText(), tc.verdict, tc.text, tc.ci, r.Outcome)
			}
			if tc.verdict == NotRun && r.Note == "" {
				t.Errorf("not run without a reason")
			}
			if tc.verdict != NotRun && !strings.Contains(r.Ours, "vs LIF") {
				t.Errorf("ours %q: want the margin over the best baseline, LIF", r.Ours)
			}
			// Only uniform ran of marl-arrivals' three workloads.
			if tc.verdict != NotRun && !strings.Contains(r.Note, "fattree-k4/poisson, fattree-k4/google") {
				t.Errorf("note %q: want the configured columns without results", r.Note)
			}
		})
	}
}

// TestMatchingSamples checks that a learned row's samples are compared
// with the baseline at the same seed (a heuristic) and the same replicate
// (a learned baseline), not with its overall mean.
func TestMatchingSamples(t *testing.T) {
	// Seed 1: LIF 10, device 7; seed 2: LIF 20, device 14: 30 % on both.
	// Against LIF's overall mean (15) they would be 53 % and 7 %.
	var cells []Cell
	for _, s := range []struct {
		seed      int32
		lif, marl float64
	}{{1, 10, 7}, {2, 20, 14}} {
		cells = append(cells, cellsOf(evaluation.MARLArrivals, "fattree-k4", "uniform", "lif", s.seed, s.lif)...)
		cells = append(cells, cellsOf(evaluation.MARLArrivals, "fattree-k4", "uniform", "marl-device", s.seed, s.marl)...)
	}
	// das-load: RIFLING's fee 10, 11, 12 by replicate, DAS's 10 % below
	// each; against RIFLING's mean the margins would spread (18 %, 10 %, 2 %).
	for _, w := range []string{"x0.5", "x1", "x2"} {
		cells = append(cells, cellsOf(evaluation.DASLoad, "small", w, evaluation.DASRIFLING, 1, 10, 11, 12)...)
		cells = append(cells, cellsOf(evaluation.DASLoad, "small", w, "das", 1, 9, 9.9, 10.8)...)
	}
	rows := evaluate(t, &Input{Run: Run{Config: config(evaluation.MARLArrivals, evaluation.DASLoad), Seed: 1}, Cells: cells})
	for id, want := range map[string]float64{"marl-fig7": 30, "das-load-fee": 10} {
		r := rows[id]
		if r.CI.N < 2 || math.Abs(r.CI.Lo-want) > 1e-9 || math.Abs(r.CI.Hi-want) > 1e-9 {
			t.Errorf("%s: interval %+v, want [%g, %g] over matched samples", id, r.CI, want, want)
		}
	}
	if got := rows["marl-fig7"].samplesText(); got != "n = 2: 2 seeds × 1 model" {
		t.Errorf("marl-fig7 samples %q, want two seeds of one model", got)
	}
	// The JCT gain is 10 % at every rate: it does not grow.
	if r := rows["das-load-trend"]; r.Verdict != DoesNotHold || math.Abs(r.Value) > 1e-9 {
		t.Errorf("das-load-trend: %q, value %g; want does not hold at 0", r.Verdict, r.Value)
	}
}

func calibrationRows() []CalibrationRow {
	return []CalibrationRow{
		{Environment: "marl-paper", Target: "Fig. 1(a): mean slowdown, bin packing", Paper: "30.0 %", Ours: "29.0 %", Tolerance: "±3 points", Within: true},
		{Environment: "marl-paper", Target: "Fig. 3(a): mean slowdown, load balancing", Paper: "37.0 %", Ours: "45.0 %", Tolerance: "±3 points", Within: false},
		{Environment: "marl-paper", Target: "Fig. 1(b): beside 1 CTC, ResNet-50 slower than VGG-16", Paper: "yes", Ours: "2 % vs 1 %", Tolerance: "ordering", Within: true},
		{Environment: "marl-paper", Target: "Fig. 2(b): same CPU slower than different CPUs", Paper: "yes", Ours: "3 % vs 0 %", Tolerance: "ordering", Within: true},
		{Environment: "marl-paper", Target: "MARL Table III: our model is the lowest", Paper: "yes", Ours: "6 % vs 5 %", Tolerance: "ordering", Within: false},
		{Environment: "marl-paper", Target: "Fig. 4: a target no claim reads", Paper: "1", Ours: "1", Tolerance: "exact", Within: true},
	}
}

// TestCalibrationClaims: a target within tolerance holds, one outside
// does not, das-paper's are not run when the preset does not fit it, and
// a row no claim reads keeps a row of its own.
func TestCalibrationClaims(t *testing.T) {
	in := &Input{Run: Run{Config: config(evaluation.Calibration), Seed: 1}, Calibration: calibrationRows()}
	rows := evaluate(t, in)
	for id, want := range map[string]Verdict{"cal-marl-fig1a": Holds, "cal-marl-fig3a": DoesNotHold, "cal-marl-table3": DoesNotHold,
		"cal-marl-fig1b": Holds, "cal-das-small": NotRun, "cal-row-6": Holds} {
		if got := rows[id].Verdict; got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if r := rows["cal-marl-fig3a"]; r.PaperFigure() != "37.0 %" || r.Ours != "45.0 %" || r.CIText() != "—" {
		t.Errorf("cal-marl-fig3a: paper %q ours %q CI %q", r.PaperFigure(), r.Ours, r.CIText())
	}
	evaluation.CalibrationSection.Set(in.Config, evaluation.CalibrationConfig{DAS: true}) // fitted, yet no row: the table and the claims disagree
	if _, err := Evaluate(in); err == nil || !strings.Contains(err.Error(), "das-paper") {
		t.Errorf("das-paper fitted without rows: error %v, want one naming das-paper", err)
	}
}

// wilcoxonInput is das-table1 on Small with DAS and RIFLING, whose
// per-job JCT and fee differ by delta(i) for job i.
func wilcoxonInput(t *testing.T, delta func(i int) float64) *Input {
	cells := append(cellsOf(evaluation.DASTable1, "small", "pai", evaluation.DASRIFLING, 1, 100), cellsOf(evaluation.DASTable1, "small", "pai", "das", 1, 100)...)
	var jobs []Job
	for i := range 40 {
		id := string(rune('a'+i%26)) + string(rune('a'+i/26))
		base := 100 + float64(i)
		jobs = append(jobs,
			Job{Experiment: evaluation.DASTable1, Cluster: "small", Workload: "pai", Scheduler: evaluation.DASRIFLING, Seed: 1, JobID: id, JCTS: base, FeeUSD: base},
			Job{Experiment: evaluation.DASTable1, Cluster: "small", Workload: "pai", Scheduler: "das", Seed: 1, JobID: id, JCTS: base + delta(i), FeeUSD: base + delta(i)})
	}
	return &Input{Run: Run{Config: config(evaluation.DASTable1), Seed: 1}, Cells: cells, Results: func() ([]Job, error) { return jobs, nil }}
}

func TestWilcoxonClaim(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delta func(int) float64
		want  Verdict
		ours  string
	}{
		{"DAS lower on every job", func(i int) float64 { return -1 - float64(i) }, Holds, "(DAS lower)"},
		{"RIFLING lower, significantly", func(i int) float64 { return 1 + float64(i) }, DoesNotHold, "(RIFLING (PPO) lower)"},
		{"no difference to speak of", func(i int) float64 { return float64(i%2*2-1) * float64(i) }, DoesNotHold, "JCT p = "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, wilcoxonInput(t, tc.delta))["das-wilcoxon-small"]
			if r.Verdict != tc.want || !strings.Contains(r.Ours, tc.ours) || r.VerdictText() != string(tc.want)+" (n = 1)" {
				t.Errorf("%q (%q), ours %q; want %q with %q", r.Verdict, r.VerdictText(), r.Ours, tc.want, tc.ours)
			}
		})
	}
	// Without DAS the results are not read.
	in := wilcoxonInput(t, func(int) float64 { return 0 })
	in.Cells = in.Cells[:1]
	in.Results = func() ([]Job, error) { t.Fatal("results read for a claim not run"); return nil, nil }
	if r := evaluate(t, in)["das-wilcoxon-small"]; r.Verdict != NotRun {
		t.Errorf("without DAS: %q, want not run", r.Verdict)
	}
	// DAS Table 3 is against RIFLING as the paper ran it (PPO): beside the
	// tabular form alone it is not run.
	in = wilcoxonInput(t, func(i int) float64 { return -1 - float64(i) })
	in.Cells = append(cellsOf(evaluation.DASTable1, "small", "pai", "rifling", 1, 100), in.Cells[1:]...)
	in.Results = func() ([]Job, error) { t.Fatal("results read for a claim not run"); return nil, nil }
	if r := evaluate(t, in)["das-wilcoxon-small"]; r.Verdict != NotRun || !strings.Contains(r.Note, "RIFLING (PPO)") {
		t.Errorf("beside tabular RIFLING only: %q (%s), want not run naming RIFLING (PPO)", r.Verdict, r.Note)
	}
}

// TestScoreboardBytes: the same inputs give the same bytes (the bootstrap
// is seeded from the run seed), the table is no wider than the report
// allows, and Write puts both files in tables/.
func TestScoreboardBytes(t *testing.T) {
	in := func() *Input {
		return &Input{Run: Run{Config: config(evaluation.MARLArrivals, evaluation.Calibration), Seed: 7}, Cells: marlFig7(8.8, 7.2, 7.8), Calibration: calibrationRows()}
	}
	a, err := Evaluate(in())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Evaluate(in())
	if !bytes.Equal(Markdown(a), Markdown(b)) || !bytes.Equal(CSV(a), CSV(b)) {
		t.Fatal("two evaluations of the same inputs differ")
	}
	md := string(Markdown(a))
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "|") && strings.Count(line, "|")-strings.Count(line, `\|`)-1 > evaluation.MaxColumns {
			t.Errorf("row of more than %d columns: %s", evaluation.MaxColumns, line)
		}
	}
	if !strings.Contains(md, "| `marl-fig7` | MARL Fig. 7 |") || !strings.Contains(md, "**inconclusive**") {
		t.Errorf("scoreboard lacks marl-fig7's inconclusive row:\n%s", md)
	}
	if lines := strings.Count(string(CSV(a)), "\n"); lines != len(a)+1 {
		t.Errorf("CSV has %d lines for %d claims", lines, len(a))
	}
}

// TestLoad reads a run directory whose metrics have no replicate column
// (runs from before replicates) and one whose metrics have it.
func TestLoad(t *testing.T) {
	// Both layouts spelled out, not evaluation.MetricsRow, whose columns
	// change when replicates arrive.
	type before struct {
		Experiment string  `parquet:"experiment"`
		Cluster    string  `parquet:"cluster"`
		Workload   string  `parquet:"workload"`
		Scheduler  string  `parquet:"scheduler"`
		Seed       int32   `parquet:"seed"`
		Jobs       int32   `parquet:"jobs"`
		MeanJCTS   float64 `parquet:"mean_jct_s"`
		MeanFeeUSD float64 `parquet:"mean_fee_usd"`
	}
	type after struct {
		before
		Replicate int32 `parquet:"replicate"`
	}
	for _, tc := range []struct {
		name  string
		write func(path string) error
		want  int32
	}{
		{"no replicate column", func(p string) error {
			return datasets.WriteParquet(p, datasets.FileMeta{}, []before{{Experiment: evaluation.MARLArrivals, Scheduler: "lif", MeanJCTS: 3}})
		}, 0},
		{"replicate column", func(p string) error {
			return datasets.WriteParquet(p, datasets.FileMeta{}, []after{{before{Experiment: evaluation.MARLArrivals, Scheduler: "lif", MeanJCTS: 3}, 2}})
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "eval"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(filepath.Join(dir, filepath.FromSlash(evaluation.MetricsFile))); err != nil {
				t.Fatal(err)
			}
			rows, err := Write(dir, Run{Config: config(evaluation.MARLArrivals), Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			in, err := Load(dir, Run{Config: config(evaluation.MARLArrivals), Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(in.Cells) != 1 || in.Cells[0].Replicate != tc.want || in.Cells[0].MeanJCTS != 3 {
				t.Errorf("cells %+v, want one of replicate %d", in.Cells, tc.want)
			}
			for _, f := range []string{MarkdownFile, CSVFile} {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
					t.Errorf("%s not written: %v", f, err)
				}
			}
			if len(rows) != len(All()) {
				t.Errorf("%d rows for %d claims", len(rows), len(All()))
			}
		})
	}
}

func TestReadCalibrationErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, data, want string }{
		{"bad header", "environment,target\n", "header"},
		{"bad within", "environment,target,paper,ours_before,ours,tolerance,within\nmarl-paper,t,1,1,1,x,maybe\n", "line 2: field within"},
	} {
		p := filepath.Join(dir, tc.name+".csv")
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCalibration(p); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming %s and %q", tc.name, err, p, tc.want)
		}
	}
}

// TestAllOfShowsDecidingTest: the test shown is one with the combined
// verdict, even when another has a lower point value but a wider,
// inconclusive interval.
func TestAllOfShowsDecidingTest(t *testing.T) {
	worst, v := allOf([]test{
		{label: "wide", iv: evaluation.Interval{Mean: 1, Lo: -10, Hi: 12, N: 3}, verdict: Inconclusive},
		{label: "narrow", iv: evaluation.Interval{Mean: 3, Lo: 2, Hi: 4, N: 3}, verdict: DoesNotHold},
		{label: "fine", iv: evaluation.Interval{Mean: 30, Lo: 25, Hi: 35, N: 3}, verdict: Holds},
	})
	if v != DoesNotHold || worst.label != "narrow" {
		t.Errorf("allOf: %q shown %q, want does not hold shown narrow", v, worst.label)
	}
}

// TestDASClaimsOnlyOnPaperTrace: a DAS claim tested on a trace that is not
// the DAS paper's says so ("not comparable: trace elasticflow") instead of
// a verdict or "not run in this preset" (issue 30); on the paper's trace
// (or where the trace is not known) it is decided as before; MARL claims,
// whose workloads are generated as the paper describes, are never set
// aside for the trace.
func TestDASClaimsOnlyOnPaperTrace(t *testing.T) {
	delta := func(i int) float64 { return -1 - float64(i) }
	for _, tc := range []struct {
		trace string
		want  Verdict
	}{{"", Holds}, {"pai-sim", Holds}, {"pai-v2020", Holds}, {"elasticflow", NotComparable}, {"synthetic-pai", NotComparable}} {
		in := wilcoxonInput(t, delta)
		in.Trace = tc.trace
		r := evaluate(t, in)["das-wilcoxon-small"]
		if r.Verdict != tc.want {
			t.Errorf("trace %q: %q, want %q", tc.trace, r.Verdict, tc.want)
		}
		if tc.want == NotComparable && !strings.Contains(r.Note, "not comparable: trace "+tc.trace) {
			t.Errorf("trace %q: note %q does not name the trace", tc.trace, r.Note)
		}
		md := string(Markdown([]Row{r}))
		if tc.want == NotComparable && !strings.Contains(md, "1 not comparable") {
			t.Errorf("trace %q: the scoreboard does not count it:\n%s", tc.trace, md)
		}
	}
	in := &Input{Run: Run{Config: config(evaluation.MARLArrivals), Seed: 1, Trace: "elasticflow"}, Cells: marlFig7(7.0)}
	if r := evaluate(t, in)["marl-fig7"]; r.Verdict == NotComparable {
		t.Errorf("a MARL claim set aside for the run's trace: %+v", r)
	}
}

// TestMARLScaleSaysTraining: a MARL claim's "tested at" names the cluster,
// the protocol (where the run says, the episodes its learned row was
// trained for and their arrival pattern; the test jobs' placement; the
// number of models), each beside the paper's.
func TestMARLScaleSaysTraining(t *testing.T) {
	c := comparison{experiment: evaluation.MARLArrivals, claimed: []string{"marl-device"}}
	in := &Input{Run: Run{Config: config(evaluation.MARLArrivals)}}
	got := marlScale(in, c)
	if !strings.HasPrefix(got, "fat-tree k = 4 (paper: k = 20, 2,000 servers); test jobs placed in batches per interval (paper: on arrival)") || strings.Contains(got, "episodes") || strings.Contains(got, "model") {
		t.Errorf("no episodes or models known: %q", got)
	}
	in.Episodes = map[string]int{"marl-device": 17, "marl-single": 5}
	if got := marlScale(in, c); !strings.HasSuffix(got, "; marl-device trained 17 episodes on uniform arrivals (paper: about 200, Google-pattern); test jobs placed in batches per interval (paper: on arrival)") {
		t.Errorf("with episodes: %q", got)
	}
	// The paper's protocol: Google-pattern training, placement on
	// arrival; three models of the row.
	evaluation.MARLArrivalsSection.Edit(in.Config, func(s *evaluation.MARLArrivalsConfig) { s.Placement = evaluation.PlacementArrival })
	in.TrainArrivals = map[string]string{"marl-device": "Google-pattern"}
	for r := range 3 {
		in.Cells = append(in.Cells, Cell{Experiment: evaluation.MARLArrivals, Scheduler: "marl-device", Replicate: int32(r)}, Cell{Experiment: evaluation.MARLArrivals, Scheduler: "lb"})
	}
	if got := marlScale(in, c); !strings.HasSuffix(got, "; marl-device trained 17 episodes on Google-pattern arrivals (paper: about 200, Google-pattern), 3 models; test jobs placed on arrival (as the paper)") {
		t.Errorf("the paper's protocol: %q", got)
	}
}

// TestDASScaleSaysTraining: a DAS claim's "tested at" names each claimed
// learned row's trainer and episodes beside the paper's.
func TestDASScaleSaysTraining(t *testing.T) {
	c := comparison{experiment: evaluation.DASTable1, claimed: []string{"das", "das-mappo", "rifling-ppo"}}
	in := &Input{Run: Run{Config: config(evaluation.DASTable1)}, Cells: []Cell{{Experiment: evaluation.DASTable1, Scheduler: "das", Jobs: 800}}}
	if got := dasScale(in, c); got != "800 jobs (paper: 4,000)" {
		t.Errorf("no episodes known: %q", got)
	}
	in.Episodes = map[string]int{"das": 2, "das-mappo": 2, "rifling-ppo": 3}
	want := "800 jobs (paper: 4,000); das trained by Algorithm 1, 2 episodes (paper: 50); das-mappo trained by MAPPO, 2 episodes (paper: 50); rifling-ppo trained 3 episodes (paper: 50)"
	if got := dasScale(in, c); got != want {
		t.Errorf("with episodes:\n got %q\nwant %q", got, want)
	}
}

// TestOracleIsNoBaseline: a row that reads the future (malo-oracle) is
// never the baseline a claim is measured against, even when it is the
// best of the rows listed.
func TestOracleIsNoBaseline(t *testing.T) {
	c := comparison{experiment: evaluation.MARLArrivals, claimed: []string{"marl-device"},
		against: []string{"lif", "malo-oracle"}, metrics: []metric{jct}}
	cells := append(marlFig7(7.0, 6.9, 7.1), cellsOf(evaluation.MARLArrivals, "fattree-k4", "uniform", "malo-oracle", 1, 5)...)
	out, err := c.evaluate("oracle")(&Input{Run: Run{Config: config(evaluation.MARLArrivals), Seed: 1}, Cells: cells})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Holds || !strings.Contains(out.Ours, "vs LIF") {
		t.Errorf("verdict %q, ours %q: want the margin over LIF, the best row that is not an oracle", out.Verdict, out.Ours)
	}
}

// floored is cells, each given the floor floor.
func floored(floor float64, cells []Cell) []Cell {
	for i := range cells {
		cells[i].FloorJCTS = floor
	}
	return cells
}

// TestHeadroomVerdicts: a margin claim on mean JCT that fails where even
// a scheduler at the floor could not reach the claimed margin is
// untestable there, and says both figures; where the headroom allows, it
// holds or fails as before; a run without floors is judged as before.
func TestHeadroomVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cells    []Cell
		verdict  Verdict
		text     string
		headroom float64
	}{
		// LIF 10 over a floor of 9: at most 10 % below LIF, < 20 %.
		{"untestable", floored(9, marlFig7(9.5, 9.4, 9.6)), Untestable, "untestable here (headroom 10.0 % < claimed 20.0 %)", 10},
		// Inconclusive in a cell that cannot show 20 % is untestable too.
		{"inconclusive without room", floored(9, marlFig7(8.8, 7.2, 7.8)), Untestable, "untestable here (headroom 10.0 % < claimed 20.0 %)", 10},
		// A floor of 5 leaves 50 %: the same margins do not hold.
		{"fails with room", floored(5, marlFig7(9.5, 9.4, 9.6)), DoesNotHold, "does not hold", 50},
		{"holds", floored(6.5, marlFig7(7.0, 6.9, 7.1)), Holds, "holds", 35},
		{"no floor", marlFig7(9.5, 9.4, 9.6), DoesNotHold, "does not hold", math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := evaluate(t, &Input{Run: Run{Config: config(evaluation.MARLArrivals), Seed: 1}, Cells: tc.cells})["marl-fig7"]
			same := math.Abs(r.Headroom-tc.headroom) < 1e-9 || (math.IsNaN(r.Headroom) && math.IsNaN(tc.headroom))
			if r.Verdict != tc.verdict || r.VerdictText() != tc.text || !same {
				t.Errorf("verdict %q (%q), headroom %g; want %q (%q), %g", r.Verdict, r.VerdictText(), r.Headroom, tc.verdict, tc.text, tc.headroom)
			}
			csv := string(CSV([]Row{r}))
			if !strings.HasPrefix(csv, "id,paper,source,experiment,claim,paper_figure,ours,value,threshold,headroom,") {
				t.Errorf("claims.csv header: %q", strings.SplitN(csv, "\n", 2)[0])
			}
		})
	}
}

// TestOperatingPoint: a MARL verdict says how busy the cluster was under
// the heuristics, and only theirs (a learned row's cells do not count).
func TestOperatingPoint(t *testing.T) {
	in := &Input{Cells: []Cell{
		{Experiment: "marl-arrivals", Scheduler: "lif", GPUUtil: 0.2, CPUUtil: 0.5, MeanQueueS: 900},
		{Experiment: "marl-arrivals", Scheduler: "tetris-pack", GPUUtil: 0.4, CPUUtil: 0.7, MeanQueueS: 2700},
		{Experiment: "marl-arrivals", Scheduler: "marl-device", GPUUtil: 0.9, CPUUtil: 0.9, MeanQueueS: 90000},
		{Experiment: "das-table1", Scheduler: "tetris", GPUUtil: 0.9, CPUUtil: 0.9, MeanQueueS: 90000},
	}}
	want := "operating point under the heuristics: GPUs 30 %, cores 60 % busy, mean queueing 1.00 intervals"
	if got := operatingPoint(in, "marl-arrivals", 1800); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := operatingPoint(in, "marl-servers", 1800); got != "" {
		t.Errorf("an experiment without cells: %q, want none", got)
	}
}

// TestFailedRowNote: a claim whose row failed on its own (an external
// policy with on_error: row, recorded in the experiment's failed rows) is
// not run, and its note names the row, the cell and the error rather than
// "not among the rows"; Load reads the record from the run directory.
func TestFailedRowNote(t *testing.T) {
	dir := t.TempDir()
	rep := &evaluation.Report{Spec: evaluation.Spec{Experiment: evaluation.MARLArrivals},
		Failed: []evaluation.FailedRow{{Scheduler: "marl-device", Cell: evaluation.Cell{Experiment: evaluation.MARLArrivals, Cluster: "fattree-k4", Workload: "uniform", Scheduler: "marl-device", Seed: 1}, Err: "policy exited, status 3"}}}
	path := filepath.Join(dir, "eval", evaluation.MARLArrivals, evaluation.FailedRowsFile)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, rep.FailedRowsCSV(), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Load(dir, Run{Config: config(evaluation.MARLArrivals), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	in.Cells = marlFig7()[:2]
	r := evaluate(t, in)["marl-fig7"]
	if r.Verdict != NotRun || !strings.Contains(r.Note, "not run: row") || !strings.Contains(r.Note, "failed at cell marl-arrivals/fattree-k4/uniform/marl-device/1 (policy exited, status 3)") {
		t.Errorf("verdict %q, note %q: want not run, naming the failed row", r.Verdict, r.Note)
	}
}

// TestNotLearnedVerdicts: a test whose claimed row's models did not learn
// (Run.NotLearned) is untestable here whatever the data said — holds,
// does not hold, inconclusive, untestable for want of headroom — and
// says why, with its figures unchanged; a claim not run stays so, and
// models of another cluster or experiment change nothing.
func TestNotLearnedVerdicts(t *testing.T) {
	const why = "unlike FIFO-FirstFit on 40.0 % of validation decisions, the untrained reference 39.0 %"
	unlearned := map[Model]string{{evaluation.MARLArrivals, "marl-device", "fattree-k4"}: why}
	want := "untestable here (" + display("marl-device") + " did not learn: " + why + ")"
	for _, tc := range []struct {
		name  string
		cfg   *evaluation.Config
		cells []Cell
		was   Verdict
	}{
		{"holds", config(evaluation.MARLArrivals), marlFig7(7.0, 6.9, 7.1), Holds},
		{"does not hold", config(evaluation.MARLArrivals), marlFig7(9.5, 9.4, 9.6), DoesNotHold},
		{"inconclusive", config(evaluation.MARLArrivals), marlFig7(8.8, 7.2, 7.8), Inconclusive},
		{"holds, one sample", config(evaluation.MARLArrivals), marlFig7(7.0), Holds},
		{"untestable for headroom", config(evaluation.MARLArrivals), floored(9, marlFig7(9.5, 9.4, 9.6)), Untestable},
		{"not run", config(), nil, NotRun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := evaluate(t, &Input{Run: Run{Config: tc.cfg, Seed: 1}, Cells: tc.cells})["marl-fig7"]
			if before.Verdict != tc.was {
				t.Fatalf("without the judgement: %q, want %q", before.Verdict, tc.was)
			}
			elsewhere := map[Model]string{{evaluation.MARLArrivals, "marl-device", "fattree-k8"}: why, {evaluation.MARLServers, "marl-device", "fattree-k4"}: why}
			if r := evaluate(t, &Input{Run: Run{Config: tc.cfg, Seed: 1, NotLearned: elsewhere}, Cells: tc.cells})["marl-fig7"]; r.Verdict != tc.was || r.NotLearned != "" {
				t.Errorf("models of another cluster or experiment did not learn: %q (%q), want %q", r.Verdict, r.NotLearned, tc.was)
			}
			r := evaluate(t, &Input{Run: Run{Config: tc.cfg, Seed: 1, NotLearned: unlearned}, Cells: tc.cells})["marl-fig7"]
			if tc.was == NotRun {
				if r.Verdict != NotRun {
					t.Errorf("a claim not run became %q", r.Verdict)
				}
				return
			}
			if r.Verdict != Untestable || r.VerdictText() != want {
				t.Errorf("%q, want %q", r.VerdictText(), want)
			}
			if r.Ours != before.Ours || r.CIText() != before.CIText() || !sameFloat(r.Headroom, before.Headroom) {
				t.Errorf("figures changed: ours %q, CI %q, headroom %g; before %q, %q, %g", r.Ours, r.CIText(), r.Headroom, before.Ours, before.CIText(), before.Headroom)
			}
			recs, err := csv.NewReader(bytes.NewReader(CSV([]Row{r}))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if h, l := recs[0], recs[1]; h[len(h)-1] != "not_learned" || h[len(h)-3] != "verdict" || l[len(l)-1] != display("marl-device")+" did not learn: "+why {
				t.Errorf("claims.csv does not end with the reason: %q\n%q", h, l)
			}
			if md := string(Markdown([]Row{r})); !strings.Contains(md, "or the claimed model did not learn") || !strings.Contains(md, NotLearnedRule) {
				t.Errorf("scoreboard does not explain the verdict:\n%s", md)
			}
		})
	}
}

// TestNotLearnedDAS: DAS's claims by cluster read the judgement of that
// cluster's models only; the Wilcoxon claim is set aside too; a claim
// over several tests keeps a failure shown with models that learned
// (the ablation's modules: DA+MC learned and fails, DA+RWGP did not
// learn), and names the cluster when it covers several.
func TestNotLearnedDAS(t *testing.T) {
	const why = "unlike FIFO-FirstFit on 40.0 % of validation decisions, the untrained reference 39.0 %"
	in := wilcoxonInput(t, func(i int) float64 { return -1 - float64(i) })
	for _, cl := range []string{"small", "large"} {
		in.Cells = append(in.Cells, cellsOf(evaluation.DASTable1, cl, "pai", "fifo-firstfit", 1, 100)...)
	}
	in.Cells = append(in.Cells, cellsOf(evaluation.DASTable1, "large", "pai", "das", 1, 120)...)
	in.NotLearned = map[Model]string{{evaluation.DASTable1, "das", "small"}: why}
	rows := evaluate(t, in)
	if r := rows["das-jct-small"]; r.VerdictText() != "untestable here (DAS did not learn: "+why+")" {
		t.Errorf("das-jct-small: %q", r.VerdictText())
	}
	if r := rows["das-wilcoxon-small"]; r.Verdict != Untestable || r.NotLearned != "DAS did not learn: "+why {
		t.Errorf("das-wilcoxon-small: %q (%q)", r.VerdictText(), r.NotLearned)
	}
	if r := rows["das-jct-large"]; r.Verdict != DoesNotHold || r.NotLearned != "" {
		t.Errorf("das-jct-large, whose model learned: %q (%q), want does not hold", r.VerdictText(), r.NotLearned)
	}

	var cells []Cell
	for _, cl := range []string{"small", "large"} {
		cells = append(cells, cellsOf(evaluation.DASTable1, cl, "pai", "da", 1, 100)...)
		cells = append(cells, cellsOf(evaluation.DASTable1, cl, "pai", "da+mc", 1, 110)...)
		cells = append(cells, cellsOf(evaluation.DASTable1, cl, "pai", "da+rwgp", 1, 90)...)
	}
	// One model serving both clusters says its reason once.
	in = &Input{Run: Run{Config: config(evaluation.DASTable1), Seed: 1, NotLearned: map[Model]string{
		{evaluation.DASTable1, "da+rwgp", "small"}: why, {evaluation.DASTable1, "da+rwgp", "large"}: why}}, Cells: cells}
	r := evaluate(t, in)["das-ablation-modules"]
	if r.Verdict != DoesNotHold || r.NotLearned != "DA+RWGP did not learn on Small and Large: "+why {
		t.Errorf("das-ablation-modules: %q (%q), want does not hold, naming DA+RWGP on Small and Large", r.VerdictText(), r.NotLearned)
	}
	in.NotLearned[Model{evaluation.DASTable1, "da+mc", "small"}] = why
	if r := evaluate(t, in)["das-ablation-modules"]; r.Verdict != Untestable {
		t.Errorf("das-ablation-modules with neither learned: %q, want untestable here", r.VerdictText())
	}
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
