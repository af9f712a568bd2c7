package stages

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
)

// Artifact paths of the standard DAG, relative to the run directory.
const (
	JobsParquet = "datasets/jobs.parquet"
	JobsSummary = "tables/jobs_summary.md"
	// stageVersion is part of every stage's cache key: bump it when a
	// change of code changes what a stage writes, so that a run into an
	// existing directory does not reuse stale artifacts (2: the
	// interference defect and the one profile table of issue 15; 3: the
	// simulator's relink of 7967e5b, which moves the last bits of every
	// network-simulated run and so every MARL-family model trained on
	// one, and the multi-agent MARL learner's per-agent gradient sums).
	stageVersion = "3"
	// evalStageVersion is the experiments' stages' (evalStage): 3, the
	// replicate column of their results, metrics and timings tables (a
	// cached table without it would not collect); 4, as stageVersion 3
	// (a heuristic cell on a fat-tree has no model input to change its
	// key).
	evalStageVersion = "4"
)

// MissingInputsError is every input of datasets.ingest that is not there,
// one error each (Build returns them all, not the first).
type MissingInputsError []error

func (m MissingInputsError) Error() string {
	msgs := make([]string, len(m))
	for i, err := range m {
		msgs[i] = err.Error()
	}
	return fmt.Sprintf("%d inputs missing: %s", len(m), strings.Join(msgs, "; "))
}

// Build returns the stages of the run that cfg describes, in a stable order.
func Build(cfg *Config) ([]pipeline.Stage, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var dag []pipeline.Stage
	if cfg.Datasets.Source == SyntheticPAI {
		dag = append(dag, SyntheticJobs(cfg.Datasets.Synthetic))
	}
	if len(cfg.Datasets.Ingest) > 0 {
		dir := cfg.ResolveDataDir()
		if dir == "" {
			return nil, fmt.Errorf("data_dir: the configuration ingests %d real traces but no data directory is set and ../shared/data does not exist", len(cfg.Datasets.Ingest))
		}
		var missing MissingInputsError
		for i, spec := range cfg.Datasets.Ingest {
			var inputs []string
			for _, in := range spec.Inputs {
				p := in
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, in)
				}
				if _, err := os.Stat(p); err != nil {
					missing = append(missing, fmt.Errorf("datasets.ingest[%d] (%s): input %s: %w", i, spec.Source, in, err))
				}
				inputs = append(inputs, p)
			}
			dag = append(dag, Ingest(spec, inputs, cfg.Datasets.IntervalS))
		}
		if len(missing) > 0 {
			return nil, missing
		}
	}
	share, fit, err := cfg.gpuShareStages()
	if err != nil {
		return nil, err
	}
	dag = append(dag, JobsSummaryStage(cfg.Summary, cfg.JobsArtifact()), ProfileSynth(cfg.Profile.Synth))
	dag = append(dag, share...)
	dag = append(dag, fit, Calibrate(cfg))
	p, trains, models, replicas, err := cfg.trainStages()
	if err != nil {
		return nil, err
	}
	dag = append(dag, trains...)
	if slices.Contains(cfg.Eval.Experiments, evaluation.Sensitivity) {
		st, err := cfg.SensitivityStage()
		if err != nil {
			return nil, err
		}
		dag = append(dag, st)
	}
	evals, err := cfg.evalStages(p, models, replicas)
	if err != nil {
		return nil, err
	}
	if len(evals) > 0 {
		dag = append(dag, evals...)
		derived, err := cfg.derivedStages(p, models)
		if err != nil {
			return nil, err
		}
		dag = append(dag, derived...)
		dag = append(dag, EvalCollect(p.Config.RunExperiments(), models))
	}
	return dag, nil
}

// runPlan is the run's plan: its experiments, the models they train and
// the ingested arrivals table they may read.
func (c *Config) runPlan() (*plan.Plan, error) {
	arrivals := ""
	for _, spec := range c.Datasets.Ingest {
		if slices.Contains(sourceTables(spec.Source, nil), datasets.ArrivalsFile) {
			arrivals = path.Join(IngestDir(spec.Source), datasets.ArrivalsFile)
		}
	}
	return plan.New(c.Plan(), arrivals)
}

// JobsArtifact is the run's job trace: the synthetic one, or the jobs table
// of the ingested source that datasets.source names.
func (c *Config) JobsArtifact() string {
	if c.Datasets.Source == SyntheticPAI {
		return JobsParquet
	}
	return path.Join(IngestDir(c.Datasets.Source), datasets.JobsFile)
}

// The synthetic-jobs stage's name and random stream: Config.Trace draws
// the same trace outside the DAG (schedlab train) from them.
const (
	syntheticJobsStage               = "synthetic-jobs"
	syntheticJobsStream pipeline.Key = "jobs"
)

// SyntheticJobs is the stage that generates the seeded PAI-like trace into
// datasets/jobs.parquet, streaming Arrow batches from the generator to the
// Parquet writer.
func SyntheticJobs(cfg datasets.PAILikeConfig) pipeline.Stage {
	return &pipeline.Func{
		StageName: syntheticJobsStage, StageVersion: stageVersion, Out: []string{JobsParquet}, Cfg: cfg,
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			bar := env.Bar("jobs", int64(cfg.Jobs))
			defer bar.Done()
			rng := env.Rand(syntheticJobsStream)
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
