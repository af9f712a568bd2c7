package stages

import (
	"context"
	"math/rand/v2"
	"path/filepath"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/plan"
	"github.com/schedlab/schedlab/profiling"
)

// Names of the profile and fit stages, which key their random streams
// (pipeline.StageStream): `schedlab profile synth` and `schedlab fit` draw
// what the stages draw.
const (
	StageProfileSynth = "profile-synth"
	StageFit          = "fit"
)

// The keys of their streams: the synthetic samples (under
// StageProfileSynth) and the cross-validation folds (under StageFit).
const (
	keySamples pipeline.Key = "samples"
	keyFolds   pipeline.Key = "folds"
)

// Artifacts of the profile and fit stages.
const (
	ProfileSamples    = "datasets/profile_samples.parquet"
	FitCoefficients   = "fit/" + fitting.CoefficientsFile
	FitModel          = plan.FitModel
	FitTable          = "fit/" + fitting.TableFile
	InterferenceTable = "tables/interference.md"
)

// ProfileSynth is the stage that draws synthetic co-location samples.
func ProfileSynth(cfg profiling.SynthConfig) pipeline.Stage {
	return &pipeline.Func{
		StageName: StageProfileSynth, StageVersion: stageVersion, Out: []string{ProfileSamples}, Cfg: cfg,
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			samples, err := profiling.Synthesize(ctx, cfg, SynthSamples(env.Seed))
			if err != nil {
				return err
			}
			meta := datasets.FileMeta{Source: profiling.ProfileSamplesSource + ":synthetic", ConfigHash: env.ConfigHash}
			return profiling.WriteSamples(ctx, env.Output(ProfileSamples), meta, samples)
		},
	}
}

// SynthSamples is the stream the profile-synth stage draws its samples
// from, under the run seed: schedlab profile synth draws from it too, so
// that it writes the samples the run's stage does.
func SynthSamples(seed uint64) rand.Source {
	return pipeline.RandSource(seed, pipeline.StageStream(StageProfileSynth), keySamples)
}

// Fit is the stage that fits the Table III models to the profile samples
// and writes the coefficients, the model the simulator loads and Table III.
func Fit(cfg fitting.Config) pipeline.Stage {
	return &pipeline.Func{
		StageName: StageFit, StageVersion: stageVersion, Cfg: cfg,
		In:  []string{ProfileSamples},
		Out: []string{FitCoefficients, FitModel, FitTable},
		Fn: func(ctx context.Context, env *pipeline.Env) error {
			rep, err := fitProfile(ctx, env, cfg)
			if err != nil {
				return err
			}
			dir := filepath.Dir(env.Output(FitModel))
			env.Output(FitCoefficients)
			env.Output(FitTable)
			return fitting.WriteArtifacts(ctx, dir, rep, datasets.FileMeta{Source: "fit", ConfigHash: env.ConfigHash})
		},
	}
}

// fitProfile reads the stage's profile samples and fits the Table III
// models to them: the first step of Fit and of FitShared.
func fitProfile(ctx context.Context, env *pipeline.Env, cfg fitting.Config) (*fitting.Report, error) {
	samples, err := profiling.ReadSamples(ctx, env.Input(ProfileSamples))
	if err != nil {
		return nil, err
	}
	return fitting.Run(ctx, samples, cfg, FitFolds(env.Seed))
}

// FitFolds is the stream the fit stage draws its cross-validation folds
// from, under the run seed: schedlab fit draws from it too, so that it
// fits as the run's stage does.
func FitFolds(seed uint64) rand.Source {
	return pipeline.RandSource(seed, pipeline.StageStream(StageFit), keyFolds)
}
