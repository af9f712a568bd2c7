package marl

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

func init() { training.Register(family{}) }

var _ training.Spreader = family{}

// FamilyConfig is what the run configuration's train.marl section sets
// for the MARL family.
type FamilyConfig struct {
	// Episodes of training (passes over the training jobs); 0 means the
	// variant's default (VariantConfig).
	Episodes int `json:"episodes"`
	// Rollouts collected side by side per update (Config.Rollouts); 0
	// means one. Omitted at 0, so that the training stage's configuration
	// (its cache key) is what it was before the key.
	Rollouts int `json:"rollouts,omitempty"`
}

// Validate names the bad key.
func (c *FamilyConfig) Validate() error {
	var errs []error
	if c.Episodes < 0 {
		errs = append(errs, fmt.Errorf("episodes: must be >= 0, got %d", c.Episodes))
	}
	if err := CheckRollouts(c.Rollouts); err != nil {
		errs = append(errs, fmt.Errorf("rollouts: %w", err))
	}
	return errors.Join(errs...)
}

// family is MARL-GNN: the device-level, server-level and single-agent
// variants, each one scheduler name marl-<variant>.
type family struct{}

func (family) Name() string            { return "marl" }
func (family) Source() training.Source { return training.SourceMARL }
func (family) Section() string         { return "marl" }

func (family) Variants() []training.Variant {
	return []training.Variant{
		{Info: schedulers.Info{Name: "marl-device", Display: "MARL (device-level)", Doc: "MARL-GNN: one agent per pod over GPU groups (Zhao & Wu, TNSM 2021)"}},
		{Info: schedulers.Info{Name: "marl-server", Display: "MARL (server-level)", Doc: "MARL-GNN: one agent per pod over servers"}},
		// The device-level policy trained as the paper trains it, beside
		// the tuned one (issue 15, item 7).
		{Info: schedulers.Info{Name: PaperVariantName, Display: "MARL (device-level, paper's LR and reward)", Doc: "MARL-GNN device-level with the paper's learning rate (1e-5) and progress reward"}},
		// One agent schedules every job: hold out the last 10 % of all.
		{Info: schedulers.Info{Name: "marl-single", Display: "MARL (single-agent)", Doc: "MARL-GNN: one agent over the whole cluster"}, Parts: 1},
	}
}

// Version implements training.Versioned: 2, the device- and server-level
// updates one interval behind the decisions (Config.Lag); a model cached
// by an older binary is trained again.
func (family) Version() string { return "2" }

func (family) Configure(s training.Sections) training.Config {
	m := Section.Get(s)
	fc := &FamilyConfig{Episodes: m.Episodes}
	if m.Rollouts > 1 { // 0 and 1 are the same training: one key
		fc.Rollouts = m.Rollouts
	}
	return fc
}

func (family) Files(schedulers.Name) []string {
	return []string{CheckpointFile, SidecarFile, training.CurvesFile}
}

// configOf is the training configuration of spec.
func configOf(spec training.TrainSpec) (Config, error) {
	fc, ok := spec.Config.(*FamilyConfig)
	if !ok {
		return Config{}, fmt.Errorf("marl: config is %T, want *marl.FamilyConfig", spec.Config)
	}
	cfg := variantConfigOf(spec.Variant)
	if fc.Episodes > 0 {
		cfg.Episodes = fc.Episodes
	}
	if fc.Rollouts > 1 {
		// One stays the zero value, which the sidecar omits: a model of
		// one rollout per update has the files it had before the key.
		cfg.Rollouts = fc.Rollouts
	}
	return cfg, nil
}

// optionsOf are the TrainOptions of spec, but its callbacks.
func optionsOf(ctx context.Context, spec training.TrainSpec) TrainOptions {
	return TrainOptions{Cluster: spec.Cluster, ClusterName: spec.ClusterName, Train: spec.Data.Train,
		Validation: spec.Data.Val, Sim: spec.Sim, Interference: spec.Interference, Seed: spec.Seed,
		// Within a run, the learner spreads over the run's idle workers
		// only; on a Temporal worker, over its idle slots; elsewhere (no
		// budget in ctx) it keeps to its own goroutine.
		Borrow: func() (func(), bool) { return pipeline.BorrowWorker(ctx) }}
}

func (family) Train(ctx context.Context, spec training.TrainSpec) error {
	cfg, err := configOf(spec)
	if err != nil {
		return err
	}
	done := 0
	opts := optionsOf(ctx, spec)
	opts.Resume, opts.Spread = spec.Resume, spec.Spread
	opts.Episode = func(c training.Curve) {
		if c.Split == "train" {
			// From the episode, not by calls: a resumed training is
			// not called for the episodes done before.
			done = int(c.Episode) + 1
			spec.Step(done, cfg.Episodes)
		}
		spec.Step(0, 0, c)
	}
	pol, curves, err := Train(ctx, cfg, opts)
	if err != nil {
		return err
	}
	if err := pol.Save(spec.Dir, map[string]string{"cluster": spec.ClusterName, "config_hash": spec.Meta.ConfigHash}); err != nil {
		return err
	}
	return training.WriteCurves(filepath.Join(spec.Dir, training.CurvesFile), spec.Meta, curves)
}

// Spreads: a training of more than one rollout per update spreads its
// rollouts' steps over the run's executor (spread.go).
func (family) Spreads(c training.Config) bool {
	fc, ok := c.(*FamilyConfig)
	return ok && fc.Rollouts > 1
}

// RunPiece runs one rollout's step of a spread training (RunStep).
func (family) RunPiece(ctx context.Context, key string, spec func() (training.TrainSpec, error), read func(string) ([]byte, error), piece []byte) ([]byte, error) {
	return RunStep(ctx, key, func() (Config, TrainOptions, error) {
		s, err := spec()
		if err != nil {
			return Config{}, TrainOptions{}, err
		}
		cfg, err := configOf(s)
		return cfg, optionsOf(ctx, s), err
	}, read, piece)
}

// PaperVariantName is the scheduler trained with PaperConfig.
const PaperVariantName schedulers.Name = "marl-device-paper"

// variantConfigOf is the training configuration of a registered variant:
// marl-<variant> is VariantConfig(<variant>), PaperVariantName PaperConfig.
// EpisodesFor is the number of training episodes variant v gets under
// the sections s: train.marl.episodes, or the variant's default when 0.
func EpisodesFor(v schedulers.Name, s training.Sections) int {
	if e := Section.Get(s).Episodes; e > 0 {
		return e
	}
	return variantConfigOf(v).Episodes
}

func variantConfigOf(name schedulers.Name) Config {
	if name == PaperVariantName {
		return PaperConfig()
	}
	return VariantConfig(strings.TrimPrefix(string(name), "marl-"))
}

func (family) Open(_ schedulers.Name, dir string, opts schedulers.Options) (sim.Scheduler, error) {
	return LoadScheduler(dir, SchedulerOptions{Seed: opts.Seed})
}
