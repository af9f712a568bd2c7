package rifling

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/das"
)

func init() { training.Register(family{}) }

// family is RIFLING, the DAS paper's Q-learning baseline. It reads the
// DAS paper families' settings (das.PaperConfig; it learns a Q-table, so
// learning rates do not apply).
type family struct{}

func (family) Name() string            { return "rifling" }
func (family) Source() training.Source { return training.SourceTrace }
func (family) Section() string         { return "das" }

func (family) Variants() []training.Variant {
	return []training.Variant{{Info: schedulers.Info{Name: "rifling", Display: "RIFLING",
		Doc: "RIFLING (DAS baseline): k-means states, Q-learning over placements and wait"}}}
}

func (family) DefaultConfig() training.Config {
	d := DefaultConfig()
	return &das.PaperConfig{Episodes: d.Episodes, SegmentJobs: d.SegmentJobs, ValJobs: d.ValJobs}
}

func (family) Files(schedulers.Name) []string { return []string{"rifling.json", training.CurvesFile} }

func (family) Train(ctx context.Context, spec training.TrainSpec) error {
	pc, ok := spec.Config.(*das.PaperConfig)
	if !ok {
		return fmt.Errorf("rifling: config is %T, want *das.PaperConfig", spec.Config)
	}
	cfg := DefaultConfig()
	cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs = pc.Episodes, pc.SegmentJobs, pc.ValJobs
	split, err := das.NewSplit(spec.Data.Train, spec.Data.Val, spec.Sim)
	if err != nil {
		return err
	}
	done := 0
	res, err := Train(ctx, cfg, split, TrainOptions{Cluster: spec.Cluster, ClusterName: spec.ClusterName, Sim: spec.Sim, Interference: spec.Interference, Seed: spec.Seed,
		OnEpisode: func(rows []training.Curve) { done++; spec.Step(done, cfg.Episodes, rows...) }})
	if err != nil {
		return err
	}
	if err := Save(filepath.Join(spec.Dir, "rifling.json"), res.Policy, spec.ClusterName); err != nil {
		return err
	}
	return training.WriteCurves(filepath.Join(spec.Dir, training.CurvesFile), spec.Meta, res.Curves)
}

func (family) Open(_ schedulers.Name, dir string, _ schedulers.Options) (sim.Scheduler, error) {
	return Open(filepath.Join(dir, "rifling.json"))
}
