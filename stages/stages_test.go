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
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/training"
)

func quickConfig() *Config {
	return &Config{Preset: "quick", Seed: 1, Workers: 2, Out: "out",
		Datasets: DatasetsConfig{Source: SyntheticPAI, Synthetic: smallSynth(), IntervalS: 1800},
		Summary:  SummaryConfig{Quantiles: []float64{0.5, 0.99}},
		Profile:  ProfileConfig{Synth: profiling.DefaultSynthConfig()},
		Fit:      fitting.DefaultConfig(),
		Eval: EvalConfig{Experiments: []string{"das-table1", "marl-arrivals"}, Seeds: 1,
			DASTable1:    DASTable1Config{Schedulers: []string{"fifo-ff", "tetris"}, MaxJobs: 300, TestFraction: 0.2},
			MARLArrivals: MARLArrivalsConfig{Schedulers: []string{"lb", "lif"}, K: 4, Intervals: 4, FittedInterference: true}},
		Train: TrainConfig{MARL: MARLTrainConfig{Episodes: 1, AtteEpisodes: 1, Intervals: 4},
			DAS: DASTrainConfig{Cluster: "small", Episodes: 1, SegmentJobs: 50, LearningRates: []float64{1e-4}, ValJobs: 20}}}
}

func smallSynth() datasets.PAILikeConfig {
	c := datasets.DefaultPAILikeConfig()
	c.Jobs = 300
	return c
}

func TestStagesConformance(t *testing.T) {
	cfg := quickConfig()
	synth := SyntheticJobs(cfg.Datasets.Synthetic)
	pipelinetest.Conformance(t, 3, synth)
	pipelinetest.Conformance(t, 3, JobsSummaryStage(cfg.Summary, JobsParquet), synth)
	prof := ProfileSynth(cfg.Profile.Synth)
	pipelinetest.Conformance(t, 3, prof)
	pipelinetest.Conformance(t, 3, Fit(cfg.Fit), prof)
	evals, err := cfg.evalStages("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evals {
		pipelinetest.Conformance(t, 3, e, synth, prof, Fit(cfg.Fit))
	}
	pipelinetest.Conformance(t, 3, EvalCollect(cfg.Eval.Experiments, nil), append([]pipeline.Stage{synth, prof, Fit(cfg.Fit)}, evals...)...)
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
		{"eval scheduler", func(c *Config) { c.Eval.DASTable1.Schedulers = []string{"x"} }, "eval.das_table1.schedulers[0]"},
		{"fat-tree k", func(c *Config) { c.Eval.MARLArrivals.K = 3 }, "eval.marl_arrivals.k"},
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
func TestLearnedSchedulersInDAG(t *testing.T) {
	cfg := quickConfig()
	cfg.Out = t.TempDir()
	cfg.Eval.DASTable1.Schedulers = []string{"fifo-ff", "das", "rifling"}
	cfg.Eval.MARLArrivals.Schedulers = []string{"lb", "marl-device", "atte"}
	cfg.Train.DAS.SegmentJobs, cfg.Train.DAS.ValJobs = 30, 10
	dag, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range dag {
		names = append(names, s.Name())
	}
	for _, want := range []string{"train-das", "train-rifling", "train-marl-device", "train-atte", "eval-das-wilcoxon", "eval-das-overhead"} {
		if !slices.Contains(names, want) {
			t.Fatalf("DAG %v lacks %s", names, want)
		}
	}
	r := &pipeline.Runner{Dir: cfg.Out, Seed: 1, ConfigHash: cfg.Hash(), Workers: 2, Log: slog.New(slog.DiscardHandler)}
	if _, err := r.Run(context.Background(), dag); err != nil {
		t.Fatal(err)
	}
	for file, rows := range map[string][]string{
		"tables/das-table1.md":           {"| DAS |", "| RIFLING |", "| DAS (paper) |"},
		"tables/marl-arrivals.md":        {"| MARL (device-level) |", "| Atte |"},
		"tables/das-wilcoxon.md":         {"| DAS vs RIFLING |", "| DAS vs RIFLING (paper) | 0.0002 |"},
		"tables/das-overhead-timings.md": {"| DAS |", "| RIFLING |"},
	} {
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
