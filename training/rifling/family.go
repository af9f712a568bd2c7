package rifling

import (
	"context"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

// RIFLING in two forms, both reading the DAS paper families' settings
// (daspaper.PaperConfig; neither takes DAS's learning-rate grid): rifling,
// tabular Q-learning over k-means states (RIFLING's own paper), and
// rifling-ppo, the PPO form the DAS paper compared against (its App. D).
func init() {
	training.Register(&daspaper.Baseline{
		Info: schedulers.Info{Name: "rifling", Display: "RIFLING",
			Doc: "RIFLING (DAS baseline): k-means states, Q-learning over placements and wait"},
		ModelFile:  "rifling.json",
		TrainModel: trainModel,
		OpenModel:  func(path string) (sim.Scheduler, error) { return Open(path) },
	})
	training.Register(&daspaper.Baseline{
		Info: schedulers.Info{Name: "rifling-ppo", Display: "RIFLING (PPO)",
			Doc: "RIFLING as the DAS paper ran it (App. D): k-means job groups with the cluster's machine rows, PPO over placements and wait"},
		ModelFile:  "rifling-ppo.ckpt",
		ExtraFiles: []string{"rifling-ppo.json"},
		PerCluster: true,
		TrainModel: trainPPOModel,
		OpenModel: func(path string) (sim.Scheduler, error) {
			p, err := LoadPPO(path)
			if err != nil {
				return nil, err
			}
			return NewPPOScheduler(p), nil
		},
	})
}

// trainPPOModel trains the PPO form at the paper settings pc (App. D's
// learning rate: the grid is DAS's) and saves it at path.
func trainPPOModel(ctx context.Context, pc *daspaper.PaperConfig, split daspaper.Split, opts daspaper.BaselineOptions, path string) ([]training.Curve, error) {
	cfg := DefaultPPOConfig()
	cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs = pc.Episodes, pc.SegmentJobs, pc.ValJobs
	res, err := TrainPPO(ctx, cfg, split, opts)
	if err != nil {
		return nil, err
	}
	return res.Curves, SavePPO(path, res.Policy, opts.ClusterName)
}

// trainModel trains at the paper settings pc and saves the model at path.
func trainModel(ctx context.Context, pc *daspaper.PaperConfig, split daspaper.Split, opts daspaper.BaselineOptions, path string) ([]training.Curve, error) {
	cfg := DefaultConfig()
	cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs = pc.Episodes, pc.SegmentJobs, pc.ValJobs
	res, err := Train(ctx, cfg, split, opts)
	if err != nil {
		return nil, err
	}
	return res.Curves, Save(path, res.Policy, opts.ClusterName)
}
