package stages

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline/pipelinetest"
	"github.com/schedlab/schedlab/profiling"
)

func quickConfig() *Config {
	return &Config{Preset: "quick", Seed: 1, Workers: 2, Out: "out",
		Datasets: DatasetsConfig{Source: "synthetic-pai", Synthetic: smallSynth()},
		Summary:  SummaryConfig{Quantiles: []float64{0.5, 0.99}},
		Profile:  ProfileConfig{Synth: profiling.DefaultSynthConfig()},
		Fit:      fitting.DefaultConfig()}
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
	pipelinetest.Conformance(t, 3, JobsSummaryStage(cfg.Summary), synth)
	prof := ProfileSynth(cfg.Profile.Synth)
	pipelinetest.Conformance(t, 3, prof)
	pipelinetest.Conformance(t, 3, Fit(cfg.Fit), prof)
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
