package deepsys_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/deepsys"
)

// setup is fattree(4) with uniform MARL jobs of the legacy shape, 0.2 per
// pod per 30-minute interval over intervals intervals, drawn from rng,
// split into training and held-out jobs (datasets.SplitMARL: 10 % of the
// intervals), and the simulator triggered every interval.
func setup(t *testing.T, intervals int, rng *rand.Rand) (*sim.Cluster, []datasets.Job, []datasets.Job, sim.Config) {
	t.Helper()
	c := simtest.FatTree(t, 4, "power8")
	jobs, err := datasets.GenerateMARL(datasets.MARLWorkload{Kind: datasets.MARLUniform, Pods: c.Pods, JobsPerPod: 0.2, Intervals: intervals, IntervalS: 1800, Shape: datasets.LegacyMARLShape()}, rng)
	if err != nil {
		t.Fatal(err)
	}
	train, test := datasets.SplitMARL(jobs, c.Pods, 0.1, 1800)
	cfg := sim.DefaultConfig()
	cfg.Trigger = sim.TriggerInterval
	return c, train, test, cfg
}

func meanJCT(t *testing.T, c *sim.Cluster, jobs []datasets.Job, s sim.Scheduler, cfg sim.Config) float64 {
	t.Helper()
	res, err := sim.Run(context.Background(), c, jobs, s, cfg, nil)
	if errors.Is(err, sim.ErrInfeasible) {
		t.Fatalf("%s placed infeasibly: %v", s.Name(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res.Metrics.MeanJCTS / 3600
}

// TestDeepSys fits the speed model to the heuristics' logged placements
// (its error must drop well below that of predicting the mean speed) and
// schedules held-out jobs with it; the model survives a save and load.
func TestDeepSys(t *testing.T) {
	c, train, test, cfg := setup(t, 120, pipeline.Rand(5, "test"))
	ctx := context.Background()
	samples, err := deepsys.Collect(ctx, c, train, deepsys.DefaultHeuristics, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mean, variance float64
	for _, s := range samples {
		mean += s.Speed / float64(len(samples))
	}
	for _, s := range samples {
		variance += (s.Speed - mean) * (s.Speed - mean) / float64(len(samples))
	}
	m, mse, err := deepsys.TrainDeepSys(ctx, deepsys.DefaultSpeedConfig(), c, train, cfg, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d samples, speed variance %.4f, fitted MSE %.4f", len(samples), variance, mse)
	if !(mse < 0.7*variance) {
		t.Errorf("speed model MSE %.4f not well below the variance %.4f", mse, variance)
	}
	got := meanJCT(t, c, test, m.Scheduler(), cfg)
	line := ""
	for _, n := range deepsys.DefaultHeuristics {
		s, _ := schedulers.New(schedulers.Name(n), schedulers.Options{})
		line += n + " " + strconv.FormatFloat(meanJCT(t, c, test, s, cfg), 'f', 2, 64) + " h  "
	}
	t.Logf("held-out mean JCT: deepsys %.2f h; %s", got, line)
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	s, err := deepsys.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again := meanJCT(t, c, test, s, cfg); again != got {
		t.Errorf("loaded model: %.4f h, want %.4f h", again, got)
	}
}

// TestAtte trains Atte briefly, twice with one seed (identical
// checkpoints), and schedules held-out jobs with it.
func TestAtte(t *testing.T) {
	c, train, test, cfg := setup(t, 120, pipeline.Rand(5, "test"))
	ac := deepsys.DefaultAtteConfig()
	ac.Episodes = 3
	var dirs []string
	var before float64
	for i := range 2 {
		var curves []training.Curve
		a, err := deepsys.TrainAtte(context.Background(), ac, c, train, cfg, nil, 1, func(c training.Curve) { curves = append(curves, c) })
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			init, _ := deepsys.NewAtte(ac, pipeline.Rand(1, "train", "deepsys", "atte", "init"))
			before = meanJCT(t, c, test, init.Scheduler(), cfg)
			t.Logf("training mean JCT per episode: %.2f h → %.2f h; held-out: untrained %.2f h, trained %.2f h",
				curves[0].MeanJCT/3600, curves[len(curves)-1].MeanJCT/3600, before, meanJCT(t, c, test, a.Scheduler(), cfg))
		}
		d := t.TempDir()
		if err := a.Save(d); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	x, _ := os.ReadFile(filepath.Join(dirs[0], deepsys.CheckpointFile))
	y, _ := os.ReadFile(filepath.Join(dirs[1], deepsys.CheckpointFile))
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Error("same seed, different Atte checkpoints")
	}
	if _, err := deepsys.Load(dirs[0]); err != nil {
		t.Fatal(err)
	}
}
