package dl2

import (
	"context"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

// DL² is the DAS paper's job-slot RL baseline, in two forms: dl2 sees
// the cluster pooled into three free shares, dl2-das the DAS
// observation's machine rows. Both read the DAS paper
// families' settings (daspaper.PaperConfig; learning rates excepted: DL²
// trains at its own Config.LR).
func init() {
	training.Register(&daspaper.Baseline{
		Info: schedulers.Info{Name: "dl2", Display: "DL²",
			Doc: "DL² (DAS baseline): job-slot policy, warm-up from drf-firstfit, then PPO"},
		ModelFile:  "dl2.ckpt",
		ExtraFiles: []string{"dl2.json"},
		TrainModel: func(ctx context.Context, pc *daspaper.PaperConfig, split daspaper.Split, opts daspaper.BaselineOptions, path string) ([]training.Curve, error) {
			return trainModel(ctx, pc, split, opts, path, 0)
		},
		OpenModel: func(path string) (sim.Scheduler, error) { return Open(path) },
	})
	training.Register(&daspaper.Baseline{
		Info: schedulers.Info{Name: "dl2-das", Display: "DL² (DAS features)",
			Doc: "DL² with the DAS observation's machine rows, as the DAS paper ran its RL baselines (same features for all)"},
		ModelFile:  "dl2.ckpt",
		ExtraFiles: []string{"dl2.json"},
		PerCluster: true,
		TrainModel: func(ctx context.Context, pc *daspaper.PaperConfig, split daspaper.Split, opts daspaper.BaselineOptions, path string) ([]training.Curve, error) {
			return trainModel(ctx, pc, split, opts, path, len(opts.Cluster.Servers))
		},
		OpenModel: func(path string) (sim.Scheduler, error) { return Open(path) },
	})
}

// trainModel trains at the paper settings pc, with machine rows of that
// many machines (0: the pooled free shares), and saves the model at path.
func trainModel(ctx context.Context, pc *daspaper.PaperConfig, split daspaper.Split, opts daspaper.BaselineOptions, path string, machines int) ([]training.Curve, error) {
	cfg := DefaultConfig()
	cfg.Machines = machines
	cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs = pc.Episodes, pc.SegmentJobs, pc.ValJobs
	res, err := Train(ctx, cfg, split, opts)
	if err != nil {
		return nil, err
	}
	return res.Curves, Save(path, res.Model, opts.ClusterName)
}
