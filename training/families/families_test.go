package families_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/daspaper"
	_ "github.com/schedlab/schedlab/training/families"
)

// TestTraceFamiliesTakeInterference: das and the DL² and RIFLING forms simulate with
// the TrainSpec's interference model (they used to ignore it): under a
// model that slows every job down by half, the validation JCT of the
// first episode differs from the default model's.
func TestTraceFamiliesTakeInterference(t *testing.T) {
	cluster, split := dastest.SmallSplit(t, dastest.ContendedJobs(200, 1, 400), 200)
	slow := sim.InterferenceFunc(func(sim.JobLoad, []sim.JobLoad, []sim.JobLoad, int) float64 { return 0.5 })
	names := []string{"das", "dl2", "dl2-das", "rifling", "rifling-ppo"}
	if raceEnabled {
		names = names[:2] // each family trains under the detector in its own package's tests; make test-norace runs all five
	}
	for _, name := range names {
		f, ok := training.Lookup(name)
		if !ok {
			t.Fatalf("family %s is not registered", name)
		}
		var jct [2]float64
		for i, model := range []sim.Interference{nil, slow} {
			cfg := f.Configure(training.Sections{}).(*daspaper.PaperConfig)
			cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs, cfg.LearningRates = 1, 40, 0, []float64{1e-4}
			dir := t.TempDir()
			err := f.Train(context.Background(), training.TrainSpec{Variant: f.Variants()[0].Info.Name, Dir: dir, Cluster: cluster,
				ClusterName: "small", Data: training.Data{Train: split.Train, Val: split.Val}, Sim: sim.DefaultConfig(),
				Interference: model, Seed: 1, Config: cfg, Meta: datasets.FileMeta{Source: "test"}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rows, err := datasets.ReadParquet[training.Curve](filepath.Join(dir, training.CurvesFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if r.Split == "validation" {
					jct[i] = r.MeanJCT
				}
			}
		}
		if !(jct[0] > 0) || jct[0] == jct[1] {
			t.Errorf("%s: validation mean JCT %v under the default and a halving interference model", name, jct)
		}
	}
}

// TestMinNotFIFOIsEnforced: a DAS that did not learn fails its training
// under train.das.min_not_fifo, naming the key; without the floor the same
// training passes. One short episode at a learning rate of 1e-12 moves the
// zero ranking heads just enough to break ties: its policy differs from
// FIFO-FirstFit on many decisions (18 % here), as a network that learned
// nothing does, and the floor is a margin over the untrained reference's
// share, not over 0.
func TestMinNotFIFOIsEnforced(t *testing.T) {
	cluster, split := dastest.SmallSplit(t, dastest.ContendedJobs(200, 1, 400), 200)
	f, _ := training.Lookup("das")
	floors := []float64{0, 0.05}
	if raceEnabled {
		floors = floors[1:] // the refusal; make test-norace also trains without the floor
	}
	for _, floor := range floors {
		cfg := f.Configure(training.Sections{}).(*daspaper.PaperConfig)
		cfg.Episodes, cfg.SegmentJobs, cfg.ValJobs, cfg.LearningRates, cfg.MinNotFIFO = 1, 40, 0, []float64{1e-12}, floor
		err := f.Train(context.Background(), training.TrainSpec{Variant: "das", Dir: t.TempDir(), Cluster: cluster,
			ClusterName: "small", Data: training.Data{Train: split.Train, Val: split.Val}, Sim: sim.DefaultConfig(),
			Seed: 1, Config: cfg, Meta: datasets.FileMeta{Source: "test"}})
		switch {
		case floor == 0 && err != nil:
			t.Errorf("no floor: %v", err)
		case floor > 0 && (err == nil || !strings.Contains(err.Error(), "min_not_fifo")):
			t.Errorf("floor %g: err %v, want a refusal naming train.das.min_not_fifo", floor, err)
		case err != nil:
			t.Logf("floor %g: %v", floor, err)
		}
	}
}
