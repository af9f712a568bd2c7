package dl2

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/daspaper"
)

// contendedJobs: the workload of das's learning test (order matters:
// small jobs first is about twice as good as submission order), at a
// 500 s mean gap.
func contendedJobs(n int, seed uint64) []datasets.Job { return dastest.ContendedJobs(n, seed, 500) }

func setup(t *testing.T) (*sim.Cluster, daspaper.Split) {
	t.Helper()
	return dastest.SmallSplit(t, contendedJobs(500, 1), 500)
}

func tiny() Config {
	cfg := DefaultConfig()
	cfg.Jobs, cfg.Hidden, cfg.LR = 8, 32, 1e-3
	cfg.WarmupEpisodes, cfg.WarmupEpochs, cfg.Episodes, cfg.SegmentJobs = 4, 100, 3, 100
	cfg.PPO.Epochs = 2
	return cfg
}

// TestWarmupAndTraining: imitating DRF first-fit lowers the validation
// mean JCT of the untrained policy (FIFO first-fit) on a workload where
// the order matters; the RL episodes after it run and are logged. Both
// forms: the cluster pooled (dl2) and its machine rows (dl2-das).
func TestWarmupAndTraining(t *testing.T) {
	c, sp := setup(t)
	for _, machines := range []int{0, len(c.Servers)} {
		t.Run(fmt.Sprintf("machines=%d", machines), func(t *testing.T) { warmupAndTraining(t, c, sp, machines) })
	}
}

func warmupAndTraining(t *testing.T, c *sim.Cluster, sp daspaper.Split, machines int) {
	cfg := tiny()
	cfg.Machines = machines
	res, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: 1,
		OnEpisode: dastest.LogEpisodes(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("validation mean JCT: untrained %.0f s, after warm-up %.0f s, after RL %.0f s",
		res.InitVal.Metrics.MeanJCTS, res.WarmVal.Metrics.MeanJCTS, res.FinalVal.Metrics.MeanJCTS)
	if !(res.WarmVal.Metrics.MeanJCTS < 0.85*res.InitVal.Metrics.MeanJCTS) {
		t.Errorf("warm-up did not learn from %s: %.0f s against %.0f s untrained", cfg.Heuristic, res.WarmVal.Metrics.MeanJCTS, res.InitVal.Metrics.MeanJCTS)
	}
	if len(res.Curves) != 2*cfg.Episodes {
		t.Errorf("%d curve rows", len(res.Curves))
	}
	for _, r := range res.Curves {
		if r.Split == "train" && r.AdamSteps < 1 {
			t.Errorf("episode %d: %d Adam steps", r.Episode, r.AdamSteps)
		}
	}

	// Round trip: the checkpoint as a sim.Scheduler reproduces the final
	// validation metrics; the same seed gives the same bytes.
	dir := t.TempDir()
	p := filepath.Join(dir, "dl2.ckpt")
	if err := Save(p, res.Model, "small"); err != nil {
		t.Fatal(err)
	}
	dastest.CheckReplay(t, Open, p, c, sp.Val, res.FinalVal.Metrics)
	again, err := Train(context.Background(), cfg, sp, TrainOptions{Cluster: c, Sim: sim.DefaultConfig(), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "again.ckpt")
	if err := Save(q, again.Model, "small"); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p)
	b, _ := os.ReadFile(q)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different checkpoints")
	}
	if machines > 0 {
		big := simtest.Preset(t, "large")
		s, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Run(context.Background(), big, sp.Val, s, sim.DefaultConfig(), nil); err == nil {
			t.Error("a policy for Small's machines ran on Large")
		}
	}
}
