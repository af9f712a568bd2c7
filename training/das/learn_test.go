package das

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training"
)

// TestTrainingLearns is the core claim: on the Small cluster and a small,
// contended job set, MAPPO training of the full DAS model lowers the
// validation mean JCT of the deterministic policy below that of its own
// untrained initialisation (FIFO first-fit: the zero-initialised heads
// tie every job). The validation jobs are later than, and disjoint from,
// the training jobs.
func TestTrainingLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("20 training episodes")
	}
	c := simtest.Preset(t, "small")
	cfg := tinyConfig(VariantDAS)
	cfg.Episodes, cfg.MaxJobs, cfg.ValidateEvery = 20, 500, 5
	sp, err := PrepareTrace(c, contendedJobs(500, 1), sim.DefaultConfig(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: 1,
		OnEpisode: func(_ float64, rows []training.Curve) {
			for _, r := range rows {
				t.Logf("episode %2d %-10s return %7.2f mean JCT %7.0f s fee %6.2f $", r.Episode, r.Split, r.Return, r.MeanJCT, r.MeanFee)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Best()
	init, final := b.InitVal.Metrics, b.FinalVal.Metrics
	t.Logf("validation (%d jobs): untrained mean JCT %.0f s, fee %.2f $; trained %.0f s, %.2f $",
		final.Jobs, init.MeanJCTS, init.MeanFeeUSD, final.MeanJCTS, final.MeanFeeUSD)
	// Submission order on this workload is about twice as slow as
	// small-first; demand a clear gain, not noise.
	if !(final.MeanJCTS < 0.85*init.MeanJCTS) {
		t.Errorf("trained mean JCT %.0f s is not 15 %% below the untrained %.0f s", final.MeanJCTS, init.MeanJCTS)
	}
}
