package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/stages"
	"github.com/schedlab/schedlab/training/marl"
)

// TestTrainSeedsKey: train.seeds and train.replicated decode from every
// layer, and bad values are refused naming the key (exit status 2).
func TestTrainSeedsKey(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(f, []byte("train:\n  seeds: 4\n  replicated: [das, marl-device@fattree-k4-power8]\n"), 0o644)
	cfg, err := loadConfig(configSource{file: f})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Train.Seeds != 4 || !slices.Equal(cfg.Train.Replicated, []string{"das", "marl-device@fattree-k4-power8"}) {
		t.Errorf("train %+v", cfg.Train)
	}
	t.Run("environment", func(t *testing.T) {
		setenv(t, "SCHEDLAB_TRAIN_SEEDS=2", "SCHEDLAB_TRAIN_REPLICATED=rifling,da")
		cfg, err := loadConfig(configSource{})
		if err != nil || cfg.Train.Seeds != 2 || !slices.Equal(cfg.Train.Replicated, []string{"rifling", "da"}) {
			t.Errorf("from the environment: %+v, %v", cfg, err)
		}
	})
	for _, tc := range []struct{ body, want string }{
		{"train:\n  seeds: -1\n", "train.seeds: must be in [1, 100], got -1"},
		{"train:\n  seeds: 0\n", "train.seeds: must be in [1, 100], got 0"},
		{"train:\n  seeds: 1.5\n", "train.seeds"},
		{"train:\n  seeds: three\n", "train.seeds"},
		{"train:\n  seed: 3\n", "unknown key train.seed"},
		{"train:\n  replicated: [nope]\n", "train.replicated[0]"},
		{"train:\n  replicated: [tetris]\n", "train.replicated[0]: tetris is a heuristic"},
		{"train:\n  replicated: das\n", "train.replicated"},
	} {
		os.WriteFile(f, []byte(tc.body), 0o644)
		_, err := loadConfig(configSource{file: f})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.body, err, tc.want)
		} else if exitCode(err) != 2 {
			t.Errorf("%q: exit status %d, want 2", tc.body, exitCode(err))
		}
	}
}

// TestPresetReplicates: quick trains one model per key (its DAG as
// before), nightly three of each headline row and one of the rest,
// paper three of every model.
func TestPresetReplicates(t *testing.T) {
	replicaStages := func(preset string) (all, replicas []string) {
		cfg, err := loadConfig(configSource{preset: preset})
		if err != nil {
			t.Fatal(err)
		}
		// The real traces are not here: the synthetic one stands in (the
		// training stages do not depend on which), and no measured
		// GPU-sharing sources.
		cfg.Datasets.Ingest, cfg.Datasets.Source = nil, stages.SyntheticPAI
		cfg.Profile.GPUShare = stages.GPUShareConfig{}
		// Nor the Google 2011 arrivals table the paper's MARL trainings
		// follow: they take uniform arrivals, as many stages.
		marl.Section.Edit(&cfg.Train.Sections, func(m *marl.Settings) { m.Arrivals = marl.ArrivalsUniform })
		dag, err := stages.Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range dag {
			if strings.HasPrefix(s.Name(), "train-") {
				all = append(all, s.Name())
				if strings.Contains(s.Name(), "-replicate-") {
					replicas = append(replicas, s.Name())
				}
			}
		}
		return all, replicas
	}
	if _, r := replicaStages("quick"); len(r) != 0 {
		t.Errorf("quick trains replicates %v", r)
	}
	_, r := replicaStages("nightly")
	var want []string
	// RIFLING in the DAS paper's form trains once per DAS cluster.
	for _, m := range []string{"rifling-ppo-flat-n8-pai-v100", "rifling-ppo-flat-n16-pai-v100", "rifling-ppo-flat-n32-pai-v100",
		"da", "da+mc", "da+rwgp", "das", "marl-device-fattree-k8-power8"} {
		want = append(want, "train-"+m+"-replicate-1", "train-"+m+"-replicate-2")
	}
	slices.Sort(r)
	slices.Sort(want)
	if !slices.Equal(r, want) {
		t.Errorf("nightly replicates %v, want %v", r, want)
	}
	all, r := replicaStages("paper")
	if len(r) != 2*(len(all)-len(r)) {
		t.Errorf("paper: %d replicate stages of %d trainings, want two per model", len(r), len(all))
	}
}
