package stages

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
)

// Artifact paths of the standard DAG, relative to the run directory.
const (
	JobsParquet  = "datasets/jobs.parquet"
	JobsSummary  = "tables/jobs_summary.md"
	stageVersion = "1"
)

// Build returns the stages of the run that cfg describes, in a stable order.
func Build(cfg *Config) ([]pipeline.Stage, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return []pipeline.Stage{
		SyntheticJobs(cfg.Datasets.Synthetic),
		JobsSummaryStage(cfg.Summary),
		ProfileSynth(cfg.Profile.Synth),
		Fit(cfg.Fit),
	}, nil
}

// SyntheticJobs is the stage that generates the seeded PAI-like trace into
// datasets/jobs.parquet, streaming Arrow batches from the generator to the
// Parquet writer.
func SyntheticJobs(cfg datasets.PAILikeConfig) pipeline.Stage {
	return &pipeline.Func{
		StageName: "synthetic-jobs", StageVersion: stageVersion, Out: []string{JobsParquet}, Cfg: cfg,
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			bar := env.Bar("jobs", int64(cfg.Jobs))
			defer bar.Done()
			rng := env.Rand("jobs")
			src := func(ctx context.Context, out chan<- arrow.Record) error {
				return datasets.GeneratePAILike(ctx, cfg, rng, out)
			}
			meta := datasets.FileMeta{Source: "synthetic-pai", ConfigHash: env.ConfigHash}
			var rows int64
			sink := func(ctx context.Context, in <-chan arrow.Record) (err error) {
				rows, err = datasets.WriteJobsFrom(ctx, env.Output(JobsParquet), meta, in)
				return err
			}
			if err := pipeline.Flow(ctx, src, []pipeline.Transform{pipeline.CountRows(bar)}, sink); err != nil {
				return err
			}
			if rows != int64(cfg.Jobs) {
				return fmt.Errorf("generated %d jobs, want %d", rows, cfg.Jobs)
			}
			return nil
		},
	}
}
