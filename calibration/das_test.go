package calibration

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// dasWorkload is das-table1's workload on a seeded PAI-like trace of n
// jobs (the last fifth evaluated).
func dasWorkload(t *testing.T, n int) *evaluation.DASWorkload {
	t.Helper()
	ctx := context.Background()
	jobs, err := datasets.GeneratePAILikeJobs(ctx, datasets.PAILikeConfig{Jobs: n}, pipeline.Rand(7, "test", "das-paper"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "jobs.parquet")
	if err := datasets.WriteParquet(path, datasets.FileMeta{Source: "test"}, jobs); err != nil {
		t.Fatal(err)
	}
	var c evaluation.Config
	evaluation.DASTable1Section.Set(&c, evaluation.DASTable1Config{MaxJobs: n, TestFraction: 0.2})
	w, err := evaluation.DASTable1Workload(ctx, &c, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Clusters) != 3 || len(w.Jobs) == 0 || w.Info.Test != len(w.Jobs) {
		t.Fatalf("workload: %d clusters, %d jobs, info %+v", len(w.Clusters), len(w.Jobs), w.Info)
	}
	return w
}

// On a seeded synthetic trace the das-paper fit starts from the best grid
// point, ends no worse than it, improves on the model without an
// environment (which misses targets there: spreads of tens of percent),
// and does not depend on the number of workers. (Whether every target is
// met depends on the trace: see TestFitDASMeetsTargetsOnPAI.)
func TestFitDAS(t *testing.T) {
	n := 600
	if raceEnabled {
		n = 300 // the two workers' fit as a whole, on half the jobs
	}
	w := dasWorkload(t, n)
	r, err := FitDAS(context.Background(), DASPaper, &DASSurrogate{Workload: w, Rows: DASFitRows, Seed: 1, Workers: 2}, DASTable1Targets)
	if err != nil {
		t.Fatal(err)
	}
	before, after := r.Before.SSR(r.Targets), r.After.SSR(r.Targets)
	if before == 0 {
		t.Errorf("before calibration every target is met: the test no longer shows what the fit does")
	}
	if !(after <= r.StartSSR && r.StartSSR < before) {
		t.Errorf("sum of squared residuals: before %g, grid's best %g, fitted %g: want fitted ≤ grid's best < before", before, r.StartSSR, after)
	}
	if want := len(DASStartGrid.InterferenceScale) * len(DASStartGrid.CommScale); r.GridEvaluations != want {
		t.Errorf("%d grid evaluations, want %d", r.GridEvaluations, want)
	}
	if err := r.Environment.Validate(); err != nil {
		t.Error(err)
	}
	one := &DASSurrogate{Workload: w, Rows: DASFitRows, Seed: 1, Workers: 1}
	if m, err := one.Measure(context.Background(), &r.Environment); err != nil || !reflect.DeepEqual(m, r.After) {
		t.Errorf("1 worker: %+v (%v), 2 workers: %+v", m, err, r.After)
	}
}

// On the DAS paper's own trace as the nightly preset runs it (PAI's
// simulator input, 6,000 jobs, 1,197 evaluated) the das-paper environment
// meets every target. Skipped without the shared data, with -short, and
// under the race detector (three minutes of simulation become tens).
func TestFitDASMeetsTargetsOnPAI(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulates the DAS heuristics on 1,197 jobs some forty times")
	}
	csv := ""
	for _, p := range []string{"../../shared/data", "/work/shared/data"} {
		if _, err := os.Stat(filepath.Join(p, "pai-v2020/operate_simulator_jobs_6000.csv")); err == nil {
			csv = filepath.Join(p, "pai-v2020/operate_simulator_jobs_6000.csv")
			break
		}
	}
	if csv == "" {
		t.Skip("shared data pai-v2020/operate_simulator_jobs_6000.csv not found")
	}
	ctx := context.Background()
	rd, err := datasets.Lookup(datasets.SourcePAISim)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := rd.Ingest(ctx, datasets.Request{Inputs: []string{csv}, OutDir: dir, Meta: datasets.FileMeta{Source: "test"}}); err != nil {
		t.Fatal(err)
	}
	var c evaluation.Config
	evaluation.DASTable1Section.Set(&c, evaluation.DASTable1Config{MaxJobs: 20000, TestFraction: 0.2})
	w, err := evaluation.DASTable1Workload(ctx, &c, filepath.Join(dir, datasets.JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	r, err := FitDAS(ctx, DASPaper, &DASSurrogate{Workload: w, Rows: DASFitRows, Seed: 1, Workers: 2}, DASTable1Targets)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r.Notes()[0])
	for _, c := range r.After.Checks(r.Targets, nil) {
		if !c.Within {
			t.Errorf("%s: ours %s, want %s", c.Target, c.Ours, c.Paper)
		}
	}
}

// The residuals are hinges: zero inside the range, one per point outside.
func TestDASResiduals(t *testing.T) {
	m := &DASMeasurement{Clusters: []string{"small", "large"}, JCTSpread: []float64{0.10, 0.25}, FeeSpread: []float64{0.08, 0.02}}
	m2 := &DASMeasurement{Clusters: []string{"x"}, JCTSpread: []float64{0.01}, FeeSpread: []float64{0}}
	got := append(m.residuals(nil, DASTable1Targets), m2.residuals(nil, DASTable1Targets)...)
	want := []float64{0, 0, 2, 3, 0, 0, 0, 3, 0}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("residuals %v, want %v", got, want)
		}
	}
	if s := Spread([]float64{100, 110, 120}); math.Abs(s-0.2) > 1e-12 {
		t.Errorf("Spread = %v, want 0.2", s)
	}
}

// The paper's spreads of DAS Table 1's heuristic rows are those the issue
// quotes: 4–22 % in JCT (Large 4.1 %, Small 21.6 %), fee under 6 %.
func TestDASPaperSpreads(t *testing.T) {
	ref := evaluation.MustLookup(evaluation.DASTable1).Reference
	for g, want := range map[string]float64{"Small": 0.216, "Medium": 0.128, "Large": 0.041} {
		jct, fee := paperSpreadValues(ref, g, evaluation.DASHeuristics)
		if math.Abs(jct-want) > 0.001 || fee > DASTable1Targets.FeeSpread || jct < DASTable1Targets.SpreadLow || jct > DASTable1Targets.SpreadHigh {
			t.Errorf("%s: paper's spreads %.4f (want %.3f) and fee %.4f: outside the targets", g, jct, want, fee)
		}
	}
}

func coefRows(cv map[string]float64) []fitting.CoefficientRow {
	var rows []fitting.CoefficientRow
	for _, m := range fitting.Models() {
		if v, ok := cv[m.Name]; ok {
			rows = append(rows, fitting.CoefficientRow{Model: m.Name, Parameter: "a", CVError: v}, fitting.CoefficientRow{Model: m.Name, Parameter: "b", CVError: v})
		}
	}
	return rows
}

// Table III's row holds when ours has the strictly lowest CV error, names
// the best other model otherwise, and rejects incomplete or bad rows.
func TestTableIIICheck(t *testing.T) {
	cv := map[string]float64{fitting.Ours: 0.05, fitting.OursNoPCIe: 0.06, fitting.OursNoCPU: 0.09, fitting.TraconLinear: 0.08, fitting.TraconQuadratic: 0.07}
	c, err := TableIIICheck(coefRows(cv))
	if err != nil || !c.Within || !strings.Contains(c.Ours, "5.0 %") || !strings.Contains(c.Paper, "13.1 %") {
		t.Fatalf("ours lowest: %+v, %v", c, err)
	}
	cv[fitting.TraconQuadratic] = 0.04
	c, err = TableIIICheck(coefRows(cv))
	if err != nil || c.Within || !strings.Contains(c.Ours, "4.0 %") {
		t.Fatalf("quadratic lowest: %+v, %v", c, err)
	}
	cv[fitting.TraconQuadratic] = 0.05 // a tie is not "the lowest"
	if c, _ = TableIIICheck(coefRows(cv)); c.Within {
		t.Errorf("tie: %+v, want not within", c)
	}
	delete(cv, fitting.OursNoCPU)
	if _, err := TableIIICheck(coefRows(cv)); err == nil || !strings.Contains(err.Error(), fitting.OursNoCPU) {
		t.Errorf("missing model: %v", err)
	}
	cv[fitting.OursNoCPU] = math.NaN()
	if _, err := TableIIICheck(coefRows(cv)); err == nil || !strings.Contains(err.Error(), "cv_error") {
		t.Errorf("NaN cv_error: %v", err)
	}
	bad := coefRows(map[string]float64{fitting.Ours: 0.1})
	bad[1].CVError = 0.2
	if _, err := TableIIICheck(bad); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Errorf("inconsistent rows: %v", err)
	}
}

// A bad environment is refused before any simulation.
func TestDASMeasureRejectsBadEnvironment(t *testing.T) {
	s := &DASSurrogate{Workload: &evaluation.DASWorkload{}, Rows: DASFitRows}
	e := sim.NeutralEnvironment()
	e.CommScale = math.Inf(1)
	if _, err := s.Measure(context.Background(), &e); err == nil || !strings.Contains(err.Error(), "comm_scale") {
		t.Errorf("infinite comm_scale: %v", err)
	}
}

// TestDASNotesSayWhyARangeIsMissed: a cluster whose JCT spread ends
// outside its range gets a note with the grid's nearest spread and
// whether any grid point met the range alone; a cluster inside gets none.
func TestDASNotesSayWhyARangeIsMissed(t *testing.T) {
	env := sim.NeutralEnvironment()
	p := env.Params()
	r := &DASResult{
		Environment: env, Targets: DASTable1Targets, Start: p,
		Fit:           &fitting.Result{},
		After:         &DASMeasurement{Clusters: []string{"small", "medium", "large"}, JCTSpread: []float64{0.1, 0.25, 0.275}, FeeSpread: []float64{0, 0, 0}},
		GridJCTSpread: []float64{0.1, 0.2, 0.26},
		GridAt:        [][]float64{p, p, p},
	}
	notes := strings.Join(r.Notes(), "\n")
	for _, want := range []string{
		"Medium: mean-JCT spread 25.0 % is outside 4–22 %; the nearest of the 0 grid points gives 20.0 %",
		"a grid point meets it alone, but not with the other clusters' targets at once",
		"Large: mean-JCT spread 27.5 % is outside 4–22 %; the nearest of the 0 grid points gives 26.0 %",
		"no speed factor on the grid brings it inside",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "Small: mean-JCT") {
		t.Errorf("a note for Small, inside its range:\n%s", notes)
	}
}
