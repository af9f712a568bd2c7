package das

import (
	"context"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/daspaper"
)

// synthJobs returns n PAI-like jobs from the seeded generator.
func synthJobs(t testing.TB, n int, seed uint64) []datasets.Job {
	t.Helper()
	var jobs []datasets.Job
	rng := pipeline.Rand(seed, "test", "jobs")
	src := func(ctx context.Context, out chan<- arrow.Record) error {
		return datasets.GeneratePAILike(ctx, datasets.PAILikeConfig{Jobs: n}, rng, out)
	}
	sink := func(ctx context.Context, in <-chan arrow.Record) error {
		for {
			rec, ok, err := pipeline.Recv(ctx, in)
			if err != nil || !ok {
				return err
			}
			jobs, err = datasets.JobsFromRecord(jobs, rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
	}
	if err := pipeline.Flow(context.Background(), src, nil, sink); err != nil {
		t.Fatal(err)
	}
	return jobs
}

// tinyConfig is a model small enough for -race tests.
func tinyConfig(variant string) Config {
	cfg := DefaultConfig()
	cfg.Variant = variant
	cfg.Jobs, cfg.Hidden, cfg.Heads, cfg.History, cfg.WalkLength = 8, 16, 2, 4, 6
	cfg.LearningRates = []float64{1e-3}
	cfg.Episodes, cfg.SegmentJobs, cfg.MaxJobs = 2, 100, 400
	cfg.MAPPO.PPO.Epochs = 2
	return cfg
}

// contendedJobs is dastest.ContendedJobs at about 1.5 times the Small
// cluster's capacity.
func contendedJobs(n int, seed uint64) []datasets.Job { return dastest.ContendedJobs(n, seed, 400) }

// prepare is PrepareTrace of jobs for c under cfg and the default
// simulator settings.
func prepare(t testing.TB, c *sim.Cluster, cfg Config, jobs []datasets.Job) daspaper.Split {
	t.Helper()
	sp, err := PrepareTrace(c, jobs, sim.DefaultConfig(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// collectEpisode runs m on sp.Train on c, sampling from the test stream
// seed and storing every decision as a step of the agents' rollouts.
func collectEpisode(t testing.TB, m *Model, c *sim.Cluster, sp daspaper.Split, seed uint64) episodeOut {
	t.Helper()
	out, err := runEpisode(context.Background(), m, c, sim.DefaultConfig(), nil, sp.Train, sp.Norm, episodeMode{rng: pipeline.Rand(seed, "test", "act"), collect: true})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// noisyModel is a model of cfg initialised from (seed, stage) with every
// parameter then perturbed by scale·N(0, 1): the zero-initialised heads
// would tie every job and every machine.
func noisyModel(cfg Config, stage pipeline.Stream, seed uint64, scale float64) *Model {
	m := NewModel(cfg, pipeline.Rand(seed, stage, "init"))
	m.ps.Perturb(scale, pipeline.Rand(seed, stage, "heads"))
	return m
}

// eachVariant runs f as a subtest for each model variant, with the
// variant's tinyConfig and n synthetic jobs (seed) prepared for the Small
// cluster c.
func eachVariant(t *testing.T, n int, seed uint64, f func(t *testing.T, c *sim.Cluster, cfg Config, sp daspaper.Split)) {
	c := simtest.Preset(t, "small")
	for _, v := range Variants() {
		t.Run(v, func(t *testing.T) {
			cfg := tinyConfig(v)
			f(t, c, cfg, prepare(t, c, cfg, synthJobs(t, n, seed)))
		})
	}
}
