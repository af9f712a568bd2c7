package evaluation

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/das"
)

// TestRegistry: every experiment of DESIGN.md §6 that exists is registered
// once, in DESIGN order, and each run experiment's documented spec is
// valid and named by its id.
func TestRegistry(t *testing.T) {
	want := []string{Calibration, DASTable1, DASLoad, DASTuning, DASWilcoxon, DASOverhead, DASTraining,
		MARLArrivals, MARLArrivalsConvergence, MARLServers, MARLTopologies, MARLVsSingle, MARLConvergence, Sensitivity, Preemptive}
	var got []string
	for _, e := range Experiments() {
		got = append(got, e.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Experiments() = %v, want %v", got, want)
	}
	wantRun := []string{DASTable1, DASLoad, DASTuning, MARLArrivals, MARLServers, MARLTopologies, MARLVsSingle, Preemptive}
	if got := RunIDs(); !slices.Equal(got, wantRun) {
		t.Errorf("RunIDs() = %v, want %v", got, wantRun)
	}
	for _, id := range want {
		e, err := Lookup(id)
		if err != nil || e.ID != id {
			t.Fatalf("Lookup(%q) = %q, %v", id, e.ID, err)
		}
		if e.Section.Title == "" || e.Section.Text == "" || e.Summary == "" || e.Reproduces == "" {
			t.Errorf("%s: report section, summary or reproduces missing: %+v", id, e.Section)
		}
		if e.Staged() {
			continue // TestCalibrationStaged
		}
		if e.Derived() {
			if _, err := DefaultSpec(id); !errors.Is(err, ErrDerivedExperiment) {
				t.Errorf("DefaultSpec(%s) of a derived experiment: %v", id, err)
			}
			if p, _ := Lookup(e.Derive.From); p.Derived() || !slices.ContainsFunc(DerivedFrom(p.ID), func(d Experiment) bool { return d.ID == id }) {
				t.Errorf("%s: parent %s is not a run experiment listing it", id, e.Derive.From)
			}
			continue
		}
		s := e.Spec()
		if s.Experiment != id {
			t.Errorf("%s: spec names %q", id, s.Experiment)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: default spec: %v", id, err)
		}
	}
	if e, _ := Lookup(DASOverhead); e.Name() != "das-overhead-timings" || e.PlotFiles() != nil {
		t.Errorf("das-overhead files: %v %v", e.TableFiles(), e.PlotFiles())
	}
	_, err := Lookup("das-magic")
	if !errors.Is(err, ErrUnknownExperiment) || !strings.Contains(err.Error(), "das-table1, das-load, das-tuning, das-wilcoxon, das-overhead") {
		t.Errorf("unknown id: %v", err)
	}
}

// TestRegisterRejects: Register panics, leaving the registry as it was, on
// a duplicate id, an experiment that is neither run nor derived, and a
// derived one without a run parent.
func TestRegisterRejects(t *testing.T) {
	n := len(Experiments())
	table := func(DerivedData) (*Table, error) { return &Table{}, nil }
	for name, e := range map[string]Experiment{
		"duplicate":         {ID: DASTable1, Spec: func() Spec { return Spec{} }, Configure: func(*Config, *Spec) bool { return false }},
		"empty id":          {Spec: func() Spec { return Spec{} }, Configure: func(*Config, *Spec) bool { return false }},
		"neither":           {ID: "x-neither"},
		"both":              {ID: "x-both", Spec: func() Spec { return Spec{} }, Configure: func(*Config, *Spec) bool { return false }, Derive: &Derivation{From: DASTable1, Table: table}},
		"orphan":            {ID: "x-orphan", Derive: &Derivation{From: "nope", Table: table}},
		"run and staged":    {ID: "x-staged", Spec: func() Spec { return Spec{} }, Configure: func(*Config, *Spec) bool { return false }, Stage: "calibrate"},
		"of derived":        {ID: "x-grandchild", Derive: &Derivation{From: DASWilcoxon, Table: table}},
		"another's section": {ID: "x-section", Stage: "x", Defaults: "parts: []\n", Settings: SensitivitySection},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			Register(e)
		})
	}
	if len(Experiments()) != n {
		t.Errorf("registry grew from %d to %d", n, len(Experiments()))
	}
}

// TestConfigure: each experiment's Configure applies its own section (and
// the shared ones) to its spec; a configuration equal to the documented
// defaults gives the documented spec.
func TestConfigure(t *testing.T) {
	def := Config{Seeds: 1}
	DASTable1Section.Set(&def, DASTable1Config{Schedulers: DASHeuristics, MaxJobs: 20000, TestFraction: 0.2})
	DASLoadSection.Set(&def, DASLoadConfig{Schedulers: []string{DASRIFLING, "das"}, Rates: []float64{0.5, 1, 2}})
	DASTuningSection.Set(&def, DASTuningConfig{Schedulers: append([]string{DASRIFLING, "rifling"}, das.TuningNames()...)})
	MARLArrivalsSection.Set(&def, MARLArrivalsConfig{Schedulers: MARLHeuristics, K: 8, Intervals: 20})
	MARLServersSection.Set(&def, MARLGridConfig{Schedulers: MARLHeuristics, Intervals: 20})
	MARLTopologiesSection.Set(&def, MARLGridConfig{Schedulers: MARLHeuristics, Intervals: 20})
	MARLVsSingleSection.Set(&def, MARLGridConfig{Schedulers: []string{"tetris-pack"}, Intervals: 20})
	PreemptiveSection.Set(&def, preemptiveDefaults())
	if err := def.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, id := range RunIDs() {
		e, _ := Lookup(id)
		s := e.Spec()
		if fitted := e.Configure(&def, &s); fitted || !reflect.DeepEqual(s, e.Spec()) {
			t.Errorf("%s: defaults configure to %+v (fitted %v), want the documented spec", id, s, fitted)
		}
	}
	c := def
	DASTable1Section.Edit(&c, func(s *DASTable1Config) { s.MaxJobs, s.FittedInterference = 500, true })
	DASLoadSection.Edit(&c, func(s *DASLoadConfig) { s.Rates = []float64{3} })
	MARLArrivalsSection.Edit(&c, func(s *MARLArrivalsConfig) { s.K, s.JobsPerPod = 4, 1.5 })
	MARLTopologiesSection.Edit(&c, func(s *MARLGridConfig) {
		s.Clusters = []Cluster{{Name: "vl2", Spec: sim.ClusterSpec{Topology: "vl2", K: 4, Servers: "dgx1"}}}
	})
	e, _ := Lookup(DASLoad)
	s := e.Spec()
	if fitted := e.Configure(&c, &s); !fitted || len(s.Workloads) != 1 || s.Workloads[0].Name != "x3" || s.Workloads[0].ArrivalRate != 3 || s.Workloads[0].MaxJobs != 500 {
		t.Errorf("das-load: fitted %v, workloads %+v", fitted, s.Workloads)
	}
	e, _ = Lookup(MARLArrivals)
	s = e.Spec()
	e.Configure(&c, &s)
	if s.Clusters[0].Name != "fattree-k4" || s.Clusters[0].Spec.K != 4 || s.Workloads[2].JobsPerPod != 1.5 {
		t.Errorf("marl-arrivals: %+v %+v", s.Clusters, s.Workloads)
	}
	e, _ = Lookup(MARLTopologies)
	s = e.Spec()
	e.Configure(&c, &s)
	if !reflect.DeepEqual(s.Clusters, MARLTopologiesSection.Get(&c).Clusters) {
		t.Errorf("marl-topologies clusters: %+v", s.Clusters)
	}
	PreemptiveSection.Edit(&c, func(p *PreemptiveConfig) {
		p.Traces, p.RestartS, p.MaxJobs = []string{"elasticflow"}, []float64{0, 12.5}, 40
	})
	e, _ = Lookup(Preemptive)
	s = e.Spec()
	e.Configure(&c, &s)
	if len(s.Workloads) != 2 || s.Workloads[1].Name != "elasticflow-r12.5" || s.Workloads[1].Source != "elasticflow" || s.Workloads[1].RestartS != 12.5 || s.Workloads[1].MaxJobs != 40 {
		t.Errorf("preemptive workloads: %+v", s.Workloads)
	}
}

// TestConfigValidate: each section's check names its key in full.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Experiments = []string{"das-wilcoxon"} }, `eval.experiments[0]: das-wilcoxon is derived from das-table1`},
		{func(c *Config) { c.Experiments = []string{"das-tabel1"} }, `eval.experiments[0]: unknown experiment "das-tabel1"; did you mean das-table1?`},
		{func(c *Config) { DASLoadSection.Edit(c, func(s *DASLoadConfig) { s.Schedulers = []string{"oracle"} }) }, "eval.das_load.schedulers[0]"},
		{func(c *Config) { DASTable1Section.Edit(c, func(s *DASTable1Config) { s.TestFraction = 2 }) }, "eval.das_table1.test_fraction"},
		{func(c *Config) { c.Experiments = []string{DASLoad} }, "eval.das_load.rates"},
		{func(c *Config) { MARLArrivalsSection.Edit(c, func(s *MARLArrivalsConfig) { s.K = 3 }) }, "eval.marl_arrivals.k"},
		{func(c *Config) { c.Experiments = []string{MARLServers} }, "eval.marl_servers.intervals"},
		{func(c *Config) {
			MARLVsSingleSection.Edit(c, func(s *MARLGridConfig) {
				s.Clusters = []Cluster{{Name: "s", Spec: sim.ClusterSpec{Topology: "flat", N: 2, Servers: "pai-v100"}}}
			})
		}, "eval.marl_vs_single.clusters[0] (s)"},
		{func(c *Config) { c.Experiments = []string{Preemptive} }, "eval.preemptive: give at least one of traces"},
		{func(c *Config) {
			PreemptiveSection.Edit(c, func(p *PreemptiveConfig) { p.RestartS = []float64{30, 30} })
		}, "eval.preemptive.restart_s[1]"},
		{func(c *Config) {
			PreemptiveSection.Edit(c, func(p *PreemptiveConfig) { p.Traces = []string{"philly"} })
		}, "eval.preemptive.traces[0]"},
	} {
		c := Config{Seeds: 1}
		MARLArrivalsSection.Set(&c, MARLArrivalsConfig{K: 4, Intervals: 1})
		DASTable1Section.Set(&c, DASTable1Config{MaxJobs: 1, TestFraction: 0.5})
		if err := c.Validate(); err != nil {
			t.Fatalf("base config: %v", err)
		}
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// TestResolveDerived: a derived experiment stands for the one it is made
// from, once; run, staged and unknown ids stay.
func TestResolveDerived(t *testing.T) {
	c := Config{Experiments: []string{"das-wilcoxon", DASTable1, "calibration", "das-overhead", "nope", "marl-arrivals-convergence"}}
	c.ResolveDerived()
	if want := []string{DASTable1, "calibration", "nope", MARLArrivals}; !slices.Equal(c.Experiments, want) {
		t.Errorf("got %v, want %v", c.Experiments, want)
	}
}

// TestReferenceValues: the paper's figures go under the groups they are
// given for; other groups, and an Average over other columns, are NaN.
func TestReferenceValues(t *testing.T) {
	ref := &Reference{Groups: []string{"Small", "Large", AverageGroup}, Rows: map[string][]float64{"a": {1, 2, 3, 4, 5, 6}}}
	got, ok := ref.Values("a", []string{"Large", "Small", AverageGroup}, 2)
	if !ok || !slices.Equal(got, []float64{3, 4, 1, 2, 5, 6}) {
		t.Errorf("all groups: %v %v", got, ok)
	}
	got, _ = ref.Values("a", []string{"Small", "Medium", AverageGroup, "x"}, 2)
	for i, v := range got {
		if want := i < 2; want == math.IsNaN(v) {
			t.Errorf("partial groups: value %d = %v (%v)", i, v, got)
		}
	}
	if _, ok := ref.Values("b", []string{"Small"}, 2); ok {
		t.Error("unknown row found")
	}
}

// TestWriteToPaths: Report.Write writes exactly the paths it is given,
// wherever they are, with the bytes RunLayout's files get; an empty path is
// not written.
func TestWriteToPaths(t *testing.T) {
	rep, dir := runAndWrite(t, smallDAS(t), 1)
	elsewhere := t.TempDir()
	to := OutputPaths{
		Results: filepath.Join(elsewhere, "r", "res.parquet"), Metrics: filepath.Join(elsewhere, "m.parquet"),
		Markdown: filepath.Join(elsewhere, "t", "table.md"), PNG: filepath.Join(elsewhere, "fig.png"),
	}
	if err := rep.Write(context.Background(), to); err != nil {
		t.Fatal(err)
	}
	layout := RunLayout(dir, DASTable1)
	for _, p := range [][2]string{{to.Results, layout.Results}, {to.Metrics, layout.Metrics}, {to.Markdown, layout.Markdown}, {to.PNG, layout.PNG}} {
		a, err := os.ReadFile(p[0])
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p[1])
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from %s", p[0], p[1])
		}
	}
	var n int
	filepath.WalkDir(elsewhere, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if n != 4 {
		t.Errorf("%d files written, want the 4 given", n)
	}
	if got := len(layout.List()); got != 8 {
		t.Errorf("RunLayout lists %d files, want 8", got)
	}
}

// TestRowsFromSimTypes: the rows copy every field of the simulator's
// types and the cell key, and a row field without a source panics.
func TestRowsFromSimTypes(t *testing.T) {
	rep := &Report{Cells: []CellResult{{
		Cell:      Cell{Experiment: "e", Cluster: "c", Workload: "w", Scheduler: "lif", Seed: 3, Replicate: 2},
		Jobs:      []sim.JobResult{{Index: 9, JobID: "j", SubmitS: 1, StartS: 2, FinishS: 3, JCTS: 4, QueueS: 5, RunS: 6, DurationS: 7, Slowdown: 8, GPUs: 9, FeeUSD: 10, Machines: 11}},
		Metrics:   sim.Metrics{Jobs: 1, Pruned: 2, MeanJCTS: 3, P50JCTS: 4, P95JCTS: 5, MeanFeeUSD: 6, MeanQueueS: 7, MeanSlowdown: 8, MakespanS: 9, GPUUtil: 10, FloorJCTS: 1.5, FloorBound: "mean-busy/gpu", CPUUtil: 0.5},
		Decisions: 12,
		Timing:    sim.Timing{Decisions: 1, JobsPlaced: 2, DecisionS: 3, MaxDecisionS: 4, WallS: 5},
	}}}
	results, err := rep.Results()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := results[0], (ResultRow{"e", "c", "w", "lif", 3, 2, "j", 1, 2, 3, 4, 10, 5, 6, 7, 8, 9, 11}); got != want {
		t.Errorf("result row %+v, want %+v", got, want)
	}
	if got, want := rep.Metrics()[0], (MetricsRow{"e", "c", "w", "lif", 3, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 0.5, 1.5, "mean-busy/gpu", "lif", 3, 1, 0}); got != want {
		t.Errorf("metrics row %+v, want %+v", got, want)
	}
	if got, want := rep.Timings()[0], (TimingRow{"e", "c", "w", "lif", 3, 2, 5, 3, 4, 1, 2}); got != want {
		t.Errorf("timing row %+v, want %+v", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a row field without a source did not panic")
		}
	}()
	var row struct{ Nowhere float64 }
	fillRow(&row, &sim.Metrics{})
}

// TestDASTable3Reference: das-wilcoxon shows DAS Table 3's row only over
// the paper's three clusters.
func TestDASTable3Reference(t *testing.T) {
	e, _ := Lookup(DASWilcoxon)
	var rows []ResultRow
	for _, c := range []string{"small", "medium", "large"} {
		for i := range 8 {
			id := string(rune('a' + i))
			rows = append(rows, ResultRow{Cluster: c, Scheduler: "das", JobID: id, JCTS: float64(i), FeeUSD: float64(i)},
				ResultRow{Cluster: c, Scheduler: DASRIFLING, JobID: id, JCTS: float64(2 * i), FeeUSD: float64(i + 1)},
				// The tabular form is no part of the test.
				ResultRow{Cluster: c, Scheduler: "rifling", JobID: id, JCTS: -1, FeeUSD: -1})
		}
	}
	tab, err := e.Derive.Table(DerivedData{Results: rows})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || tab.Rows[1].Label != "DAS vs RIFLING (PPO) (paper)" || tab.Rows[1].Values[4] != 0.04911 {
		t.Errorf("rows %+v", tab.Rows)
	}
	if !strings.Contains(tab.Notes[0], "JCT DAS lower") {
		t.Errorf("note %q: DAS is lower than RIFLING (PPO); was the tabular form read?", tab.Notes[0])
	}
	tab, err = e.Derive.Table(DerivedData{Results: rows[:48]}) // small and medium
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 1 || len(tab.Groups) != 2 {
		t.Errorf("two clusters: groups %v, rows %+v", tab.Groups, tab.Rows)
	}
}

// The staged calibration experiment is registered, listed first, and is
// neither run (no spec, not in RunIDs) nor derived.
func TestCalibrationStaged(t *testing.T) {
	e, err := Lookup(Calibration)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Staged() || e.Derived() || e.Spec != nil {
		t.Fatalf("calibration: staged %v derived %v spec %v", e.Staged(), e.Derived(), e.Spec != nil)
	}
	if Experiments()[0].ID != Calibration {
		t.Errorf("first experiment %s, want %s", Experiments()[0].ID, Calibration)
	}
	for _, id := range RunIDs() {
		if id == Calibration {
			t.Error("RunIDs lists calibration")
		}
	}
	if _, err := DefaultSpec(Calibration); err == nil {
		t.Error("DefaultSpec(calibration) succeeded")
	}
	if err := (Config{Experiments: []string{Calibration}, Seeds: 1}).Validate(); err != nil {
		// Other sections may complain; only an error about the list matters.
		if strings.Contains(err.Error(), "eval.experiments") {
			t.Errorf("eval.experiments rejects calibration: %v", err)
		}
	}
}

// TestPlotNamesInfiniteBar: an infinite mean (a job's fee overflowing)
// fails the plot with the row, column group and metric that hold it, not
// the plotter's bare "infinite data point".
func TestPlotNamesInfiniteBar(t *testing.T) {
	rep, _ := runAndWrite(t, smallDAS(t), 1)
	c := &rep.Cells[len(rep.Cells)-1]
	for i := range c.Jobs {
		c.Jobs[i].FeeUSD = math.Inf(1)
	}
	c.Metrics.MeanFeeUSD = math.Inf(1)
	_, _, err := rep.Plot()
	if err == nil {
		t.Fatal("plotted an infinite mean")
	}
	for _, want := range []string{DASTable1, "+Inf", "Fee"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

// TestEverySectionIsAnExperiments: each section of Config (eval.<key>, but
// for the run-wide experiments and seeds) belongs to the registered
// experiment of that id, and each experiment that is run or staged has
// one: the section's name is the registration's (Experiment.ConfigKey).
// Config's own fields are the run-wide keys only: a section is declared
// with its experiment's registration (Settings), never as a field.
func TestEverySectionIsAnExperiments(t *testing.T) {
	ct := reflect.TypeFor[Config]()
	for i := range ct.NumField() {
		if f := ct.Field(i); f.IsExported() && f.Name != "Experiments" && f.Name != "Seeds" {
			t.Errorf("Config.%s: an experiment's section is declared with its registration (Settings), not as a field of Config", f.Name)
		}
	}
	owned := map[string]string{}
	for _, e := range Experiments() {
		key := e.ConfigKey()
		switch {
		case key == "" && !e.Derived():
			t.Errorf("%s is run or staged but Config has no section %s", e.ID, strings.ReplaceAll(e.ID, "-", "_"))
		case key != "" && e.Derived():
			t.Errorf("%s is derived (configured by %s) but has a section %s", e.ID, e.Derive.From, key)
		case key != "":
			owned[key] = e.ID
		}
	}
	for name := range sectionTypes() {
		if owned["eval."+name] == "" {
			t.Errorf("eval.%s is no registered experiment's section (an experiment's section is named by its id)", name)
		}
	}
}
