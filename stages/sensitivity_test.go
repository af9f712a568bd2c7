package stages

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/internal/parquettest"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sensitivity"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/daspaper"
)

// sensitivityConfig lists only the sensitivity experiment, marl-device on
// a 2×2 grid with tiny trainings.
func sensitivityConfig() *Config {
	cfg := quickConfig()
	cfg.Eval.Experiments = []string{evaluation.Sensitivity}
	evaluation.SensitivitySection.Set(&cfg.Eval, evaluation.SensitivityConfig{
		Parts:      []string{evaluation.SensitivityMARLDevice},
		CommScales: []float64{0.5, 2}, InterferenceScales: []float64{0.5, 2},
		MARLDevice: evaluation.SensitivityMARLConfig{Heuristics: []string{"tetris-pack", "load-balancing"}, K: 4, Intervals: 2, Episodes: 1, TrainIntervals: 2},
		DAS:        evaluation.SensitivityDASConfig{Heuristics: []string{"fifo-firstfit", "tetris"}, Cluster: "small", Episodes: 1},
	})
	return cfg
}

// runSensitivity runs cfg's DAG into a fresh directory and returns the
// sensitivity experiment's files, by name.
func runSensitivity(t *testing.T, cfg *Config) map[string][]byte {
	t.Helper()
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	withUpstream(t, dir, 5)
	r := &pipeline.Runner{Dir: dir, Seed: 5, ConfigHash: "t", Workers: cfg.Workers}
	if _, err := r.Run(context.Background(), dag); err != nil {
		t.Fatal(err)
	}
	e := evaluation.MustLookup(evaluation.Sensitivity)
	out := map[string][]byte{}
	for _, f := range append(e.TableFiles(), append(e.PlotFiles(), filepath.Join("eval", evaluation.Sensitivity, sensitivity.CellsFile))...) {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	return out
}

// TestSensitivityWorkers: the stage's table and heat map are the same
// bytes with one worker and with three (grid points train and evaluate
// concurrently, each seeded from the run seed and the point).
func TestSensitivityWorkers(t *testing.T) {
	cfg := sensitivityConfig()
	cfg.Workers = 1
	one := runSensitivity(t, cfg)
	cfg.Workers = 3
	three := runSensitivity(t, cfg)
	for f, b := range one {
		if !bytes.Equal(b, three[f]) {
			t.Errorf("%s differs between 1 and 3 workers", f)
		}
	}
	md := string(one["tables/sensitivity.md"])
	for _, want := range []string{"| marl-device | 0.5 | 2 |", "around environment marl-paper", "marl-device: learned placement pays (margin > 0) at "} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

// The sensitivity stage conforms: declared outputs, byte-identical reruns
// (the same stage value run twice), cancellation. Its upstream is the
// shared one.
func TestSensitivityConformance(t *testing.T) {
	st, err := sensitivityConfig().SensitivityStage()
	if err != nil {
		t.Fatal(err)
	}
	cfg := quickConfig()
	dir := t.TempDir()
	withUpstream(t, dir, 5)
	pipelinetest.ConformanceIn(t, dir, 5, st, SyntheticJobs(cfg.Datasets.Synthetic), ProfileSynth(cfg.Profile.Synth), Fit(cfg.Fit), Calibrate(cfg))
}

// TestSensitivityMarginSign: the point's environment reaches the
// simulation. With load balancing standing in for the learned scheduler
// against Tetris (packing), the margin is negative where communication
// dominates (packing is optimal: it keeps a job's workers and PSs on one
// server) and positive where co-location interference dominates
// (spreading pays). No training: the evaluation path only.
func TestSensitivityMarginSign(t *testing.T) {
	cfg := sensitivityConfig()
	evaluation.SensitivitySection.Edit(&cfg.Eval, func(s *evaluation.SensitivityConfig) { s.MARLDevice.Intervals = 4 })
	plans, err := cfg.Plan().SensitivityParts()
	if err != nil {
		t.Fatal(err)
	}
	spec := plans[0].Spec
	spec.Schedulers = []string{"tetris-pack", "load-balancing"}
	heur, stand := []string{"tetris-pack"}, schedulers.Name("load-balancing")
	eval := func(ctx context.Context, part sensitivity.Part, pt sensitivity.Point) (sensitivity.Outcome, error) {
		e := pt.Env
		return evalPoint(ctx, spec, 5, e.Interference(nil), heur, stand, nil)
	}
	part := sensitivity.Part{Name: "lb", Heuristics: heur, Base: sim.NeutralEnvironment()}
	// Communication ×100 with interference ×0.01, and the reverse.
	g := sensitivity.Grid{Comm: []float64{0.01, 100}, Interference: []float64{0.01, 100}}
	res, err := sensitivity.Run(context.Background(), []sensitivity.Part{part}, g, 5, sensitivity.Workers{Max: 2}, eval, nil)
	if err != nil {
		t.Fatal(err)
	}
	comm, interf := res.Parts[0].Cells[1][0], res.Parts[0].Cells[0][1]
	t.Logf("margins: communication-bound %.3f, interference-bound %.3f", comm.Margin, interf.Margin)
	if !(comm.Margin < 0) {
		t.Errorf("communication-bound (comm ×100, interference ×0.01): margin %v, want < 0 (packing optimal); JCTs %v vs %v", comm.Margin, comm.Heuristics, comm.Learned)
	}
	if !(interf.Margin > 0) {
		t.Errorf("interference-bound (comm ×0.01, interference ×100): margin %v, want > 0 (spreading pays); JCTs %v vs %v", interf.Margin, interf.Heuristics, interf.Learned)
	}
}

// TestSensitivityDAS: the das part trains and evaluates on its cluster,
// and, its paper having no calibrated environment here, says it is
// centred on the neutral one. Slow (two DAS trainings). Under the race
// detector the grid is one point, one training (grid points side by side
// are TestSensitivityWorkers'); make test-norace runs both.
func TestSensitivityDAS(t *testing.T) {
	if testing.Short() {
		t.Skip("two DAS trainings")
	}
	cfg := sensitivityConfig()
	evaluation.SensitivitySection.Edit(&cfg.Eval, func(s *evaluation.SensitivityConfig) {
		s.Parts, s.CommScales, s.InterferenceScales = []string{evaluation.SensitivityDAS}, []float64{1}, []float64{0.5, 2}
		if raceEnabled {
			s.InterferenceScales = s.InterferenceScales[1:]
		}
	})
	daspaper.Section.Edit(&cfg.Train.Sections, func(d *daspaper.Settings) { d.SegmentJobs, d.ValJobs = 20, 10 })
	md := string(runSensitivity(t, cfg)["tables/sensitivity.md"])
	want := []string{"| das | 1 | 2 |", "on small;"}
	if sensitivityConfig().Plan().PaperEnvironment(evaluation.PaperDAS) == "" {
		want = append(want, "centred on the neutral one")
	}
	for _, w := range want {
		if !strings.Contains(md, w) {
			t.Errorf("table lacks %q:\n%s", w, md)
		}
	}
}

// The sensitivity stage is in the DAG only when the experiment is listed,
// and reads the calibrated environment it is centred on.
func TestSensitivityInDAG(t *testing.T) {
	has := func(cfg *Config) (pipeline.Stage, bool) {
		dag, err := Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(dag, func(s pipeline.Stage) bool { return s.Name() == evaluation.Sensitivity })
		if i < 0 {
			return nil, false
		}
		return dag[i], true
	}
	if _, ok := has(quickConfig()); ok {
		t.Error("unlisted sensitivity experiment has a stage")
	}
	st, ok := has(sensitivityConfig())
	if !ok {
		t.Fatal("listed sensitivity experiment has no stage")
	}
	if in := st.Inputs(); !slices.Contains(in, plan.EnvironmentFile(sensitivityConfig().Plan().PaperEnvironment(evaluation.PaperMARL))) || !slices.Contains(in, FitModel) {
		t.Errorf("inputs %v: want the marl-paper environment and the fitted model", in)
	}
	bad := sensitivityConfig()
	evaluation.SensitivitySection.Edit(&bad.Eval, func(s *evaluation.SensitivityConfig) { s.MARLDevice.K = 3 })
	if _, err := Build(bad); err == nil || !strings.Contains(err.Error(), "eval.sensitivity.marl_device.k") {
		t.Errorf("bad k: %v", err)
	}
}

// TestSensitivityNothingToTrain: a training workload of one interval at
// k = 4 gives each pod at most one job, which its partition holds out, so
// no point's model has a job to train on (training.ErrNoTrainingJobs).
// The stage still writes its table: the heuristics' results at every
// point, the learned scheduler left out (—), and a note saying why
// (issue 30: `run --preset quick` failed at 6 of 12 seeds on this).
func TestSensitivityNothingToTrain(t *testing.T) {
	cfg := sensitivityConfig()
	evaluation.SensitivitySection.Edit(&cfg.Eval, func(s *evaluation.SensitivityConfig) { s.MARLDevice.TrainIntervals = 1 })
	md := string(runSensitivity(t, cfg)["tables/sensitivity.md"])
	if n := strings.Count(md, "| — | — |"); n != 4 {
		t.Errorf("%d of 4 points without a learned result, want all:\n%s", n, md)
	}
	for _, want := range []string{"MARL (device-level): left out at 4 of 4 points", "no jobs to train on: 0 training and"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

// TestSensitivityOperatingPoints: loads and socket rules make one part
// each, evaluated and trained at ×load the paper's jobs per pod under
// their rule; the cells' Parquet has a row per part and point, with
// floor, headroom and share, read back with Arrow's reader.
func TestSensitivityOperatingPoints(t *testing.T) {
	cfg := sensitivityConfig()
	evaluation.SensitivitySection.Edit(&cfg.Eval, func(s *evaluation.SensitivityConfig) {
		s.MARLDevice.Loads, s.MARLDevice.Sockets = []float64{1, 3}, []string{sim.SocketFirstFit, sim.SocketRandom}
	})
	parts, err := cfg.Plan().SensitivityParts()
	if err != nil {
		t.Fatal(err)
	}
	built, err := parts[0].Spec.Clusters[0].Spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	paper := evaluation.MARLPaperLoad(built)
	want := []struct {
		name   string
		load   float64
		socket string
	}{{"marl-device-x1-first-fit", 1, "first-fit"}, {"marl-device-x1-random", 1, "random"}, {"marl-device-x3-first-fit", 3, "first-fit"}, {"marl-device-x3-random", 3, "random"}}
	if len(parts) != len(want) {
		t.Fatalf("%d parts, want %d", len(parts), len(want))
	}
	for i, w := range want {
		p := parts[i]
		jpp := p.Spec.Workloads[0].JobsPerPod
		if p.Name != w.name || p.Learned != "marl-device" || p.Spec.Sim.Socket != w.socket || jpp != w.load*paper || p.Training.Data.JobsPerPod != jpp {
			t.Errorf("part %d: %s (%s), socket %q, %v jobs per pod evaluated, %v trained; want %s, %q, %v", i, p.Name, p.Learned, p.Spec.Sim.Socket, jpp, p.Training.Data.JobsPerPod, w.name, w.socket, w.load*paper)
		}
	}
	evaluation.SensitivitySection.Edit(&cfg.Eval, func(s *evaluation.SensitivityConfig) {
		s.CommScales, s.InterferenceScales = []float64{1}, []float64{1}
		s.MARLDevice.Loads, s.MARLDevice.Sockets = []float64{1, 3}, nil
	})
	out := runSensitivity(t, cfg)
	f := filepath.Join(t.TempDir(), "cells.parquet")
	if err := os.WriteFile(f, out[filepath.Join("eval", evaluation.Sensitivity, sensitivity.CellsFile)], 0o644); err != nil {
		t.Fatal(err)
	}
	tbl := parquettest.ReadTable(t, f)
	if tbl.NumRows() != 2 {
		t.Errorf("%d cells, want 2 (two loads, one point each)", tbl.NumRows())
	}
	for _, col := range []string{"part", "load_multiplier", "socket", "floor_jct", "headroom", "headroom_share", "margin"} {
		if len(tbl.Schema().FieldIndices(col)) != 1 {
			t.Errorf("no column %s in %v", col, tbl.Schema())
		}
	}
	cells, err := datasets.ReadParquet[sensitivity.CellRow](f)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		if !(c.FloorJCT > 0 && c.FloorJCT <= c.BestHeuristicJCT) || math.IsNaN(c.Headroom) {
			t.Errorf("%s: floor %v, best heuristic %v, headroom %v: want 0 < floor <= best and a headroom", c.Part, c.FloorJCT, c.BestHeuristicJCT, c.Headroom)
		}
	}
	if md := string(out["tables/sensitivity.md"]); !strings.Contains(md, "load ×3") || !strings.Contains(md, "headroom (%)") {
		t.Errorf("the table names neither the load nor the headroom:\n%s", md)
	}
}
