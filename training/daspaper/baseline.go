package daspaper

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// PaperConfig is what the run configuration's train.das section sets for
// the DAS paper's families (das and its baselines dl2 and rifling).
type PaperConfig struct {
	// Episodes per learning rate, and jobs per episode (1000 in the paper).
	Episodes    int `json:"episodes"`
	SegmentJobs int `json:"segment_jobs"`
	// LearningRates (das only) are chosen from by validation.
	LearningRates []float64 `json:"learning_rates"`
	// ValJobs caps the validation jobs simulated after each episode; 0 all.
	ValJobs int `json:"val_jobs"`
	// MinNotFIFO (das only): the least margin by which the trained
	// policy's share of validation decisions unlike FIFO-FirstFit's must
	// exceed the untrained reference's; 0 none.
	MinNotFIFO float64 `json:"min_not_fifo,omitempty"`
}

// FromSection is the PaperConfig of the run's train.das (its cluster is
// the stages' to use).
func FromSection(s Settings) *PaperConfig {
	return &PaperConfig{Episodes: s.Episodes, SegmentJobs: s.SegmentJobs, LearningRates: slices.Clone(s.LearningRates), ValJobs: s.ValJobs, MinNotFIFO: s.MinNotFIFO}
}

// Validate names the bad key.
func (c *PaperConfig) Validate() error {
	var errs []error
	if !(c.MinNotFIFO >= 0 && c.MinNotFIFO <= 1) {
		errs = append(errs, fmt.Errorf("min_not_fifo: must be in [0, 1], got %v", c.MinNotFIFO))
	}
	if c.Episodes < 1 || c.SegmentJobs < 1 || c.ValJobs < 0 {
		errs = append(errs, fmt.Errorf("episodes, segment_jobs, val_jobs: must be >= 1, >= 1, >= 0, got %d, %d, %d", c.Episodes, c.SegmentJobs, c.ValJobs))
	}
	for i, lr := range c.LearningRates {
		if !(lr > 0) {
			errs = append(errs, fmt.Errorf("learning_rates[%d]: must be > 0, got %v", i, lr))
		}
	}
	return errors.Join(errs...)
}

// BaselineOptions are the inputs of a DAS paper baseline's training run
// (DL², RIFLING) besides its Config. They are TrainOptions but for
// OnEpisode: a baseline trains at one learning rate, or none.
type BaselineOptions struct {
	Cluster     *sim.Cluster
	ClusterName string
	Sim         sim.Config
	// Interference is the speed model of every simulation (nil:
	// sim.DefaultInterference).
	Interference sim.Interference
	Seed         uint64
	OnEpisode    func(rows []training.Curve)
	// Resume, if set, keeps the training's state after every episode and
	// continues from the state a previous attempt kept.
	Resume *training.Resume
}

// Check is the precondition of a baseline's Train (name: dl2, rifling):
// cfg is valid (its error as is), there is a cluster, and split has
// training and validation jobs.
func (o BaselineOptions) Check(name string, cfg training.Config, split Split) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if o.Cluster == nil || len(split.Train) == 0 || len(split.Val) == 0 {
		return fmt.Errorf("%s: Train: need a cluster and training and validation jobs", name)
	}
	return nil
}

// Baseline is the training.Family of a DAS paper baseline (DL², RIFLING):
// one variant, named as the family, trained on the trace under the DAS
// paper families' settings (PaperConfig, section "das"), its model saved
// in one file of the model directory.
type Baseline struct {
	// Info is the variant; Info.Name is the family's name too.
	Info schedulers.Info
	// ModelFile is the model's file; ExtraFiles are the others that
	// saving it writes (the curves file is added to both).
	ModelFile  string
	ExtraFiles []string
	// TrainModel trains on split under pc and opts, saves the model at
	// path and returns the curves.
	TrainModel func(ctx context.Context, pc *PaperConfig, split Split, opts BaselineOptions, path string) ([]training.Curve, error)
	// OpenModel loads the model saved at path.
	OpenModel func(path string) (sim.Scheduler, error)
	// PerCluster: the model is built for one cluster's machine count
	// (training.Variant.PerCluster).
	PerCluster bool
}

// The methods implement training.Family for the baseline.

func (b *Baseline) Name() string            { return string(b.Info.Name) }
func (b *Baseline) Source() training.Source { return training.SourceTrace }
func (b *Baseline) Section() string         { return "das" }

func (b *Baseline) Variants() []training.Variant {
	return []training.Variant{{Info: b.Info, PerCluster: b.PerCluster}}
}

func (b *Baseline) Configure(s training.Sections) training.Config { return FromSection(Section.Get(s)) }

func (b *Baseline) Files(schedulers.Name) []string {
	return append(append([]string{b.ModelFile}, b.ExtraFiles...), training.CurvesFile)
}

// Train takes the run's *PaperConfig, splits the trace, trains with the
// spec's simulation settings (reporting each episode to spec.Step) and
// writes the curves.
func (b *Baseline) Train(ctx context.Context, spec training.TrainSpec) error {
	pc, ok := spec.Config.(*PaperConfig)
	if !ok {
		return fmt.Errorf("%s: config is %T, want *daspaper.PaperConfig", b.Info.Name, spec.Config)
	}
	split, err := NewSplit(spec.Data.Train, spec.Data.Val, spec.Sim)
	if err != nil {
		return err
	}
	done := 0
	curves, err := b.TrainModel(ctx, pc, split, BaselineOptions{Cluster: spec.Cluster, ClusterName: spec.ClusterName, Sim: spec.Sim, Interference: spec.Interference, Seed: spec.Seed,
		Resume: spec.Resume,
		// Counted from the episode, not by calls: a resumed training is
		// not called for the episodes done before.
		OnEpisode: func(rows []training.Curve) { done = int(rows[0].Episode) + 1; spec.Step(done, pc.Episodes, rows...) }}, filepath.Join(spec.Dir, b.ModelFile))
	if err != nil {
		return err
	}
	return training.WriteCurves(filepath.Join(spec.Dir, training.CurvesFile), spec.Meta, curves)
}

func (b *Baseline) Open(_ schedulers.Name, dir string, _ schedulers.Options) (sim.Scheduler, error) {
	return b.OpenModel(filepath.Join(dir, b.ModelFile))
}
