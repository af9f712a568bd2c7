package dl2

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

// family is DL², the DAS paper's job-slot RL baseline. It reads the DAS
// paper families' settings (das.PaperConfig; learning rates excepted: DL²
// trains at its own Config.LR).
type family struct{}

func (family) Name() string            { return "dl2" }
func (family) Source() training.Source { return training.SourceTrace }
func (family) Section() string         { return "das" }

func (family) Variants() []training.Variant {
	return []training.Variant{{Info: schedulers.Info{Name: "dl2", Display: "DL²",
		Doc: "DL² (DAS baseline): job-slot policy, warm-up from drf-firstfit, then PPO"}}}
}

func (family) DefaultConfig() training.Config {
	d := DefaultConfig()
	return &das.PaperConfig{Episodes: d.Episodes, SegmentJobs: d.SegmentJobs, ValJobs: d.ValJobs}
}

func (family) Files(schedulers.Name) []string {
	return []string{"dl2.ckpt", "dl2.json", training.CurvesFile}
}

func (f family) Train(ctx context.Context, spec training.TrainSpec) error {
	pc, ok := spec.Config.(*das.PaperConfig)
	if !ok {
		return fmt.Errorf("dl2: config is %T, want *das.PaperConfig", spec.Config)
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
	if err := Save(filepath.Join(spec.Dir, "dl2.ckpt"), res.Model, spec.ClusterName); err != nil {
		return err
	}
	return training.WriteCurves(filepath.Join(spec.Dir, training.CurvesFile), spec.Meta, res.Curves)
}

func (family) Open(_ schedulers.Name, dir string, _ schedulers.Options) (sim.Scheduler, error) {
	return Open(filepath.Join(dir, "dl2.ckpt"))
}
