package stages

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/marl"
)

func quickConfig() *Config {
	cfg := &Config{Preset: "quick", Seed: 1, Workers: 2, Out: "out",
		Datasets: DatasetsConfig{Source: SyntheticPAI, Synthetic: smallSynth(), IntervalS: 1800},
		Summary:  SummaryConfig{Quantiles: []float64{0.5, 0.99}},
		Profile:  ProfileConfig{Synth: profiling.DefaultSynthConfig()},
		Fit:      fitting.DefaultConfig(),
		Eval:     EvalConfig{Experiments: []string{"das-table1", "das-load", "marl-arrivals", "marl-servers", "marl-topologies"}, Seeds: 1},
		Train: plan.TrainConfig{Seeds: 1, Sections: daspaper.Section.With(marl.Section.With(training.Sections{}, marl.Settings{Episodes: 1, AtteEpisodes: 1, Intervals: 4}),
			daspaper.Settings{Cluster: "small", Episodes: 1, SegmentJobs: 50, LearningRates: []float64{1e-4}, ValJobs: 20})}}
	evaluation.DASTable1Section.Set(&cfg.Eval, evaluation.DASTable1Config{Schedulers: []string{"fifo-ff", "tetris"}, MaxJobs: 300, TestFraction: 0.2})
	evaluation.DASLoadSection.Set(&cfg.Eval, evaluation.DASLoadConfig{Schedulers: []string{"fifo-ff"}, Rates: []float64{0.5, 2}})
	evaluation.MARLArrivalsSection.Set(&cfg.Eval, evaluation.MARLArrivalsConfig{Schedulers: []string{"lb", "lif"}, K: 4, Intervals: 4, FittedInterference: true})
	evaluation.MARLServersSection.Set(&cfg.Eval, evaluation.MARLGridConfig{Schedulers: []string{"tetris"}, Intervals: 3, Clusters: []evaluation.Cluster{
		{Name: "power8", Spec: sim.ClusterSpec{Topology: "fattree", K: 4, Servers: "power8"}},
		{Name: "dgx1", Spec: sim.ClusterSpec{Topology: "fattree", K: 4, Servers: "dgx1"}}}})
	evaluation.MARLTopologiesSection.Set(&cfg.Eval, evaluation.MARLGridConfig{Schedulers: []string{"tetris"}, Intervals: 3, Clusters: []evaluation.Cluster{
		{Name: "vl2-k4", Spec: sim.ClusterSpec{Topology: "vl2", K: 4, Servers: "power8"}},
		{Name: "bcube", Spec: sim.ClusterSpec{Topology: "bcube", N: 3, K: 2, Servers: "power8"}}}})
	return cfg
}

func smallSynth() datasets.PAILikeConfig {
	c := datasets.DefaultPAILikeConfig()
	c.Jobs = 300
	return c
}

// TestStagesConformance: the data, fit and heuristic-evaluation stages
// of the quick DAG and the stage collecting the evaluations pass the
// Stage conformance test. They share one run directory (ConformanceIn),
// so that eval-collect's upstream, every evaluation, is not computed a
// third time. Under the race detector two of the five experiments are
// evaluated, das-table1 and marl-arrivals: the other three are the same
// stage over other grids of clusters and rates, and 60 % of the
// evaluations' CPU; make test-norace evaluates all five.
func TestStagesConformance(t *testing.T) {
	cfg := quickConfig()
	if raceEnabled {
		cfg.Eval.Experiments = []string{"das-table1", "marl-arrivals"}
	}
	dir := t.TempDir()
	synth := SyntheticJobs(cfg.Datasets.Synthetic)
	pipelinetest.ConformanceIn(t, dir, 3, synth)
	pipelinetest.ConformanceIn(t, dir, 3, JobsSummaryStage(cfg.Summary, JobsParquet), synth)
	prof := ProfileSynth(cfg.Profile.Synth)
	pipelinetest.ConformanceIn(t, dir, 3, prof)
	pipelinetest.ConformanceIn(t, dir, 3, Fit(cfg.Fit), prof)
	p, err := plan.New(cfg.Plan(), "")
	if err != nil {
		t.Fatal(err)
	}
	evals, err := cfg.evalStages(p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evals {
		pipelinetest.ConformanceIn(t, dir, 3, e, synth, prof, Fit(cfg.Fit))
	}
	pipelinetest.ConformanceIn(t, dir, 3, EvalCollect(cfg.Eval.Experiments, nil), append([]pipeline.Stage{synth, prof, Fit(cfg.Fit)}, evals...)...)
}

func TestConfigValidate(t *testing.T) {
	good := quickConfig()
	if err := good.Validate(); err != nil {
		t.Fatalf("quick config invalid: %v", err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(*Config)
		want   string
	}{
		{"workers", func(c *Config) { c.Workers = 0 }, "workers: must be in [1, 256]"},
		{"out", func(c *Config) { c.Out = "" }, "out: must name a directory"},
		{"source", func(c *Config) { c.Datasets.Source = "nope" }, "datasets.source"},
		{"quantile", func(c *Config) { c.Summary.Quantiles = []float64{0.5, 1} }, "summary.quantiles[1]"},
		{"no quantiles", func(c *Config) { c.Summary.Quantiles = nil }, "summary.quantiles"},
		{"jobs", func(c *Config) { c.Datasets.Synthetic.Jobs = -1 }, "datasets.synthetic.jobs"},
		{"ingest source", func(c *Config) { c.Datasets.Ingest = []IngestSpec{{Source: "nope", Inputs: []string{"x"}}} }, "datasets.ingest[0].source"},
		{"ingest inputs", func(c *Config) { c.Datasets.Ingest = []IngestSpec{{Source: "pai-sim"}} }, "datasets.ingest[0].inputs"},
		{"ingest twice", func(c *Config) {
			c.Datasets.Ingest = []IngestSpec{{Source: "pai-sim", Inputs: []string{"a"}}, {Source: "pai-sim", Inputs: []string{"b"}}}
		}, "datasets.ingest[1].source"},
		{"source not ingested", func(c *Config) { c.Datasets.Source = "pai-sim" }, "datasets.source"},
		{"arrivals as jobs", func(c *Config) {
			c.Datasets.Ingest = []IngestSpec{{Source: "google-2011", Inputs: []string{"g"}}}
			c.Datasets.Source = "google-2011"
		}, "datasets.source"},
		{"interval", func(c *Config) { c.Datasets.IntervalS = 0 }, "datasets.interval_s"},
		{"experiment", func(c *Config) { c.Eval.Experiments = []string{"nope"} }, "eval.experiments[0]"},
		{"eval scheduler", func(c *Config) {
			evaluation.DASTable1Section.Edit(&c.Eval, func(s *evaluation.DASTable1Config) { s.Schedulers = []string{"x"} })
		}, "eval.das_table1.schedulers[0]"},
		{"fat-tree k", func(c *Config) {
			evaluation.MARLArrivalsSection.Edit(&c.Eval, func(s *evaluation.MARLArrivalsConfig) { s.K = 3 })
		}, "eval.marl_arrivals.k"},
		{"train seeds 0", func(c *Config) { c.Train.Seeds = 0 }, "train.seeds: must be in [1, 100], got 0"},
		{"train seeds negative", func(c *Config) { c.Train.Seeds = -2 }, "train.seeds: must be in [1, 100], got -2"},
		{"train seeds too many", func(c *Config) { c.Train.Seeds = 101 }, "train.seeds: must be in [1, 100], got 101"},
		{"replicated unknown", func(c *Config) { c.Train.Replicated = []string{"das", "nope"} }, "train.replicated[1]"},
		{"replicated heuristic", func(c *Config) { c.Train.Replicated = []string{"tetris"} }, "train.replicated[0]: tetris is a heuristic"},
		{"replicated empty cluster", func(c *Config) { c.Train.Replicated = []string{"marl-device@"} }, "train.replicated[0]: want name or name@cluster-id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := quickConfig()
			tc.break_(c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// TestIngestStage runs the ingest stages on the readers' own fixtures
// through the stage conformance harness, and checks that a missing input
// is named at build time.
func TestIngestStage(t *testing.T) {
	fixtures := map[string][]string{
		"pai-sim":       {"../datasets/testdata/pai-sim"},
		"google-2011":   {"../datasets/testdata/google"},
		"alibaba-v2023": {"../datasets/testdata/alibaba-v2023"},
	}
	for _, src := range slices.Sorted(maps.Keys(fixtures)) {
		inputs := fixtures[src]
		if _, err := os.Stat(inputs[0]); err != nil {
			t.Fatalf("fixture %s: %v", inputs[0], err)
		}
		st := Ingest(IngestSpec{Source: src, Inputs: inputs}, inputs, 1800)
		t.Run(src, func(t *testing.T) { pipelinetest.Conformance(t, 3, st) })
	}
	cfg := quickConfig()
	cfg.DataDir = t.TempDir()
	cfg.Datasets.Ingest = []IngestSpec{{Source: "pai-sim", Inputs: []string{"missing.csv"}}}
	if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), "datasets.ingest[0] (pai-sim): input missing.csv") {
		t.Fatalf("Build with a missing input: %v", err)
	}
}

func TestSummariseJobs(t *testing.T) {
	jobs := []datasets.Job{
		{JobID: "a", Source: "s", SubmitS: 0, DurationS: 100, Model: "bert", Tasks: []datasets.Task{{Instances: 2, GPU: 1}}},
		{JobID: "b", Source: "s", SubmitS: 7200, DurationS: 300, Tasks: []datasets.Task{{Instances: 1, GPU: 0.5}}},
	}
	md := SummariseJobs(jobs, []float64{0.5})
	for _, want := range []string{"| jobs | 2 |", "| submission span (h) | 2.000 |", "| p50 duration (s) | 200.0 |",
		"| (0, 1] | 1 | 50.0 % |", "| (1, 2] | 1 | 50.0 % |", "(unknown) (1), bert (1)", "| GPU-hours requested | 0.1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

// TestLearnedSchedulersInDAG: naming learned schedulers in the experiments
// adds their training stages; the tables then carry their rows, evaluated
// on every cluster from one model, and eval/curves.parquet their curves.
//
// Under the race detector the run is of das-table1, marl-arrivals and
// marl-servers (with what is derived from them): two workers still train
// DAS, RIFLING and MARL models on two clusters side by side and evaluate
// them, in 14 s of CPU there rather than 27 (the whole run takes 5 s
// without it). RIFLING there is the tabular form, one training, where
// make test-norace trains the DAS paper's PPO form on each of the three
// clusters and checks das-wilcoxon against it. das-load, das-tuning (and
// with it the h = 2 training, the slowest) and marl-vs-single are run by
// make test-norace.
func TestLearnedSchedulersInDAG(t *testing.T) {
	cfg := quickConfig()
	cfg.Out = t.TempDir()
	withUpstream(t, cfg.Out, 1)
	evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) { s.Schedulers = []string{"fifo-ff", "das", "rifling-ppo"} })
	evaluation.MARLArrivalsSection.Edit(&cfg.Eval, func(s *evaluation.MARLArrivalsConfig) { s.Schedulers = []string{"lb", "marl-device", "atte"} })
	cfg.Eval.Experiments = append(cfg.Eval.Experiments, "das-tuning", "marl-vs-single")
	evaluation.DASLoadSection.Edit(&cfg.Eval, func(s *evaluation.DASLoadConfig) { s.Schedulers = []string{"rifling-ppo", "das"} })
	evaluation.DASTuningSection.Edit(&cfg.Eval, func(s *evaluation.DASTuningConfig) { s.Schedulers = []string{"das-h2", "das-h4", "das-tau8"} })
	evaluation.MARLServersSection.Edit(&cfg.Eval, func(s *evaluation.MARLGridConfig) { s.Schedulers = []string{"tetris", "marl-device"} })
	evaluation.MARLVsSingleSection.Set(&cfg.Eval, evaluation.MARLGridConfig{Schedulers: []string{"tetris", "marl-device", "marl-single"}, Intervals: 3,
		Clusters: []evaluation.Cluster{{Name: "fattree-k4", Spec: sim.ClusterSpec{Topology: "fattree", K: 4, Servers: "power8"}}}})
	daspaper.Section.Edit(&cfg.Train.Sections, func(d *daspaper.Settings) { d.SegmentJobs, d.ValJobs = 30, 10 })
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range dag {
		names = append(names, s.Name())
	}
	// One stage per model: das-h4 and das-tau8 are das; marl-device is
	// trained once per cluster (marl-servers' power8 is marl-arrivals'
	// fat-tree, and so is marl-vs-single's).
	for _, want := range []string{"train-das", "train-rifling-ppo-flat-n8-pai-v100", "train-rifling-ppo-flat-n32-pai-v100", "train-das-h2", "train-marl-device-fattree-k4-power8", "train-marl-device-fattree-k4-dgx1",
		"train-marl-single-fattree-k4-power8", "train-atte-fattree-k4-power8",
		"eval-das-wilcoxon", "eval-das-overhead", "eval-marl-vs-single-convergence", "eval-marl-arrivals-convergence"} {
		if !slices.Contains(names, want) {
			t.Fatalf("DAG %v lacks %s", names, want)
		}
	}
	var trains []string
	for _, n := range names {
		if strings.HasPrefix(n, "train-") {
			trains = append(trains, n)
		}
	}
	if len(trains) != 9 {
		t.Errorf("training stages %v, want 9", trains)
	}
	run := cfg
	if raceEnabled {
		small := *cfg
		small.Eval.Experiments = []string{"das-table1", "marl-arrivals", "marl-servers"}
		evaluation.DASTable1Section.Edit(&small.Eval, func(s *evaluation.DASTable1Config) { s.Schedulers = []string{"fifo-ff", "das", "rifling"} })
		if dag, err = Build(&small); err != nil {
			t.Fatal(err)
		}
		run = &small
	}
	r := &pipeline.Runner{Dir: cfg.Out, Seed: 1, ConfigHash: mustHash(t, run), Workers: 2, Log: slog.New(slog.DiscardHandler)}
	if _, err := r.Run(context.Background(), dag); err != nil {
		t.Fatal(err)
	}
	tables := 0
	rifling := map[bool]string{false: "| RIFLING (PPO) |", true: "| RIFLING |"}[raceEnabled]
	for _, tc := range []struct {
		experiment, file string
		rows             []string
	}{
		{"das-table1", "tables/das-table1.md", []string{"| DAS |", rifling, "not comparable: trace synthetic-pai"}},
		{"marl-arrivals", "tables/marl-arrivals.md", []string{"| MARL (device-level) |", "| Atte |"}},
		{"das-wilcoxon", "tables/das-wilcoxon.md", []string{"| DAS vs RIFLING (PPO) |", "not comparable: trace synthetic-pai"}},
		{"das-table1", "tables/das-overhead-timings.md", []string{"| DAS |", rifling}},
		{"das-load", "tables/das-load.md", []string{"| RIFLING (PPO) |", "| DAS |", "## Small", "x0.5 JCT (min)", "## Large", "x2 Fee ($)", "arriving at 2× the trace's rate"}},
		{"das-tuning", "tables/das-tuning.md", []string{"| DAS (h=2, τ=8) |", "| DAS (h=4, τ=8) |"}},
		{"marl-servers", "tables/marl-servers.md", []string{"| MARL (device-level) |", "Dgx1", "Mean-JCT margin"}},
		{"marl-vs-single", "tables/marl-vs-single.md", []string{"| MARL (single-agent) |"}},
		{"marl-vs-single", "tables/marl-vs-single-convergence.md", []string{"| MARL (device-level) |", "| MARL (single-agent) |"}},
	} {
		if tc.experiment == "das-wilcoxon" {
			// Derived from das-table1 when it has DAS and RIFLING (PPO).
			if raceEnabled || !slices.Contains(run.Eval.Experiments, "das-table1") {
				continue
			}
		} else if !slices.Contains(run.Eval.Experiments, tc.experiment) {
			continue
		}
		tables++
		file, rows := tc.file, tc.rows
		b, err := os.ReadFile(filepath.Join(cfg.Out, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			if !strings.Contains(string(b), row) {
				t.Errorf("%s lacks the row %q:\n%s", file, row, b)
			}
		}
	}
	if want := map[bool]int{false: 9, true: 4}[raceEnabled]; tables != want {
		t.Errorf("checked %d tables, want %d", tables, want)
	}
	curves, err := datasets.ReadParquet[training.Curve](filepath.Join(cfg.Out, EvalCurves))
	if err != nil {
		t.Fatal(err)
	}
	fams := map[string]bool{}
	for _, c := range curves {
		fams[c.Family] = true
	}
	if !fams["das"] || !fams["marl"] {
		t.Errorf("curves of families %v, want das and marl among them", fams)
	}
}

// TestDASModelPerCluster: train.das.cluster "each" trains a DAS-paper model
// per evaluated cluster, shared by the experiments that evaluate there.
func TestDASModelPerCluster(t *testing.T) {
	cfg := quickConfig()
	daspaper.Section.Edit(&cfg.Train.Sections, func(d *daspaper.Settings) { d.Cluster = plan.DASEachCluster })
	evaluation.DASTable1Section.Edit(&cfg.Eval, func(s *evaluation.DASTable1Config) { s.Schedulers = []string{"fifo-ff", "das"} })
	evaluation.DASLoadSection.Edit(&cfg.Eval, func(s *evaluation.DASLoadConfig) { s.Schedulers = []string{"das"} })
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var trains []string
	for _, s := range dag {
		if strings.HasPrefix(s.Name(), "train-das") {
			trains = append(trains, s.Name())
			if !strings.HasPrefix(s.Outputs()[0], "models/das/flat-n") {
				t.Errorf("%s writes %v", s.Name(), s.Outputs())
			}
		}
	}
	if want := []string{"train-das-flat-n8-pai-v100", "train-das-flat-n16-pai-v100", "train-das-flat-n32-pai-v100"}; !slices.Equal(trains, want) {
		t.Errorf("training stages %v, want %v", trains, want)
	}
}
