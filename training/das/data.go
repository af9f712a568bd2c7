package das

import (
	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/daspaper"
)

// PrepareTrace cuts jobs for training DAS on cluster c alone, with
// cfg.MaxJobs and cfg.ValFraction (daspaper.PrepareTrace).
func PrepareTrace(c *sim.Cluster, jobs []datasets.Job, sc sim.Config, cfg Config) (daspaper.Split, error) {
	return daspaper.PrepareTrace(c, jobs, sc, datasets.TraceSplit{MaxJobs: cfg.MaxJobs, ValFraction: cfg.ValFraction})
}

// reward is Eq. 3 (daspaper.Eq3) with cfg's penalty weight Alpha and term
// cap RewardCap.
func reward(finished []sim.JobResult, unplaced []*sim.JobState, norm daspaper.RewardNorm, cfg Config) float64 {
	return daspaper.Eq3(finished, unplaced, norm, cfg.Alpha, cfg.RewardCap)
}
