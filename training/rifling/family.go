package rifling

import (
	"context"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

// RIFLING is the DAS paper's Q-learning baseline. It reads the DAS paper
// families' settings (daspaper.PaperConfig; it learns a Q-table, so learning
// rates do not apply).
func init() {
	training.Register(&daspaper.Baseline{
		Info: schedulers.Info{Name: "rifling", Display: "RIFLING",
			Doc: "RIFLING (DAS baseline): k-means states, Q-learning over placements and wait"},
		ModelFile:  "rifling.json",
		TrainModel: trainModel,
		OpenModel:  func(path string) (sim.Scheduler, error) { return Open(path) },
	})
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
