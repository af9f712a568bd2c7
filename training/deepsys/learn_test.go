package deepsys_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/deepsys"
)

// TestAtteLearns trains Atte by REINFORCE on the workload of marl's
// learning test (fattree(4), 0.2 jobs per pod per 30-minute interval over
// 160 intervals, seed 11) and checks that it places the held-out jobs
// (datasets.SplitMARL: 10 % of the intervals, never simulated in training)
// far better than its own untrained initialisation, which scatters a
// job's workers and PS over servers and pays for the gradient traffic.
// Measured (20 episodes, seeds 1–3): untrained 3.97, 5.11, 5.81 h, trained
// 1.61 h each (0.28–0.41 ×); the bar, trained ≤ 0.6 × untrained, is
// well inside that and far outside what no learning gives (1 ×: zero
// episodes, or a learning rate of 1e-12, leave the untrained policy).
func TestAtteLearns(t *testing.T) {
	c, train, test, cfg := setup(t, 160, pipeline.Rand(11, "test", "workload"))
	ac := deepsys.DefaultAtteConfig()
	ac.Episodes = 20
	const seed = 1
	// TrainAtte draws its initial parameters from this stream.
	init, err := deepsys.NewAtte(ac, pipeline.Rand(seed, "train", "deepsys", "atte", "init"))
	if err != nil {
		t.Fatal(err)
	}
	var curves []training.Curve
	a, err := deepsys.TrainAtte(context.Background(), ac, c, train, cfg, nil, seed, func(cv training.Curve) { curves = append(curves, cv) })
	if err != nil {
		t.Fatal(err)
	}
	before, after := meanJCT(t, c, test, init.Scheduler(), cfg), meanJCT(t, c, test, a.Scheduler(), cfg)
	line := ""
	for _, name := range []schedulers.Name{"tetris", "load-balancing", "lif"} {
		s, err := schedulers.New(name, schedulers.Options{})
		if err != nil {
			t.Fatal(err)
		}
		line += string(name) + " " + strconv.FormatFloat(meanJCT(t, c, test, s, cfg), 'f', 2, 64) + " h  "
	}
	if len(curves) > 0 {
		t.Logf("%d train / %d held-out jobs; training mean JCT %.2f → %.2f h", len(train), len(test), curves[0].MeanJCT/3600, curves[len(curves)-1].MeanJCT/3600)
	}
	t.Logf("held-out mean JCT: untrained %.2f h, trained %.2f h; %s", before, after, line)
	if !(after <= 0.6*before) {
		t.Errorf("trained Atte's held-out mean JCT %.2f h is not 40 %% below the untrained %.2f h", after, before)
	}
}
