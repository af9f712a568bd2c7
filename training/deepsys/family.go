package deepsys

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/marl"
)

func init() { training.Register(family{}) }

// FamilyConfig is what the run configuration's train.marl section sets
// for the MARL paper's learned baselines.
type FamilyConfig struct {
	// AtteEpisodes of Atte training; 0 means DefaultAtteConfig's.
	AtteEpisodes int `json:"atte_episodes"`
}

// Validate names the bad key.
func (c *FamilyConfig) Validate() error {
	if c.AtteEpisodes < 0 {
		return fmt.Errorf("atte_episodes: must be >= 0, got %d", c.AtteEpisodes)
	}
	return nil
}

// family is the MARL paper's learned baselines, DeepSys and Atte; they
// train on the MARL workload (held out per pod; only the training part is
// used).
type family struct{}

func (family) Name() string            { return "deepsys" }
func (family) Source() training.Source { return training.SourceMARL }
func (family) Section() string         { return "marl" }

func (family) Variants() []training.Variant {
	return []training.Variant{
		{Info: schedulers.Info{Name: VariantDeepSys, Display: "DeepSys", Doc: "MARL baseline: speed model fitted to the heuristics' placements"}},
		{Info: schedulers.Info{Name: VariantAtte, Display: "Atte", Doc: "MARL baseline: attention policy trained by REINFORCE"}},
	}
}

func (family) Configure(s training.Sections) training.Config {
	return &FamilyConfig{AtteEpisodes: marl.Section.Get(s).AtteEpisodes}
}

// Files: DeepSys fits a speed model and has no learning curve.
func (family) Files(v schedulers.Name) []string {
	if v == VariantDeepSys {
		return []string{CheckpointFile, SidecarFile}
	}
	return []string{CheckpointFile, SidecarFile, training.CurvesFile}
}

func (family) Train(ctx context.Context, spec training.TrainSpec) error {
	fc, ok := spec.Config.(*FamilyConfig)
	if !ok {
		return fmt.Errorf("deepsys: config is %T, want *deepsys.FamilyConfig", spec.Config)
	}
	if spec.Variant == VariantDeepSys {
		m, _, err := TrainDeepSys(ctx, DefaultSpeedConfig(), spec.Cluster, spec.Data.Train, spec.Sim, spec.Interference, spec.Seed)
		if err != nil {
			return err
		}
		return m.Save(spec.Dir)
	}
	cfg := DefaultAtteConfig()
	if fc.AtteEpisodes > 0 {
		cfg.Episodes = fc.AtteEpisodes
	}
	at, curves, err := trainAtte(ctx, cfg, spec.Cluster, spec.Data.Train, spec.Sim, spec.Interference, spec.Seed, func(c training.Curve) {
		c.Cluster = spec.ClusterName
		spec.Step(int(c.Episode)+1, cfg.Episodes, c)
	}, spec.Resume)
	if err != nil {
		return err
	}
	for i := range curves {
		curves[i].Cluster = spec.ClusterName
	}
	if err := at.Save(spec.Dir); err != nil {
		return err
	}
	return training.WriteCurves(filepath.Join(spec.Dir, training.CurvesFile), spec.Meta, curves)
}

func (family) Open(_ schedulers.Name, dir string, _ schedulers.Options) (sim.Scheduler, error) {
	return Load(dir)
}
