package rifling

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/das/dastest"
	"github.com/schedlab/schedlab/training/daspaper"
)

// TestPPOTrain: the untrained PPO form is FIFO-FirstFit on the validation
// jobs, a training at one seed gives the same checkpoint twice (and
// another at a second seed a different one), and a saved policy replays
// its validation run under sim.Run.
func TestPPOTrain(t *testing.T) {
	c, sp := setup(t)
	cfg := DefaultPPOConfig()
	cfg.Episodes, cfg.SegmentJobs, cfg.LR = 2, 100, 1e-3
	dir := t.TempDir()
	train := func(seed uint64, name string) (*PPOResult, []byte) {
		res, err := TrainPPO(context.Background(), cfg, sp, TrainOptions{Cluster: c, ClusterName: "small", Sim: sim.DefaultConfig(), Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := SavePPO(p, res.Policy, "small"); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return res, b
	}
	res, first := train(5, "a.ckpt")
	ff, err := schedulers.New("fifo-firstfit", schedulers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := sim.Run(context.Background(), c, sp.Val, ff, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.InitVal.Metrics != want.Metrics {
		t.Errorf("untrained policy %+v, FIFO-FirstFit %+v", res.InitVal.Metrics, want.Metrics)
	}
	if got := len(res.Curves); got != 2*cfg.Episodes {
		t.Errorf("%d curve rows, want %d", got, 2*cfg.Episodes)
	}
	for _, r := range res.Curves {
		if r.Split == "train" && r.AdamSteps < 1 {
			t.Errorf("episode %d: %d Adam steps", r.Episode, r.AdamSteps)
		}
	}
	t.Logf("validation mean JCT: untrained %.0f s, trained %.0f s", res.InitVal.Metrics.MeanJCTS, res.FinalVal.Metrics.MeanJCTS)
	dastest.CheckReplay(t, func(path string) (*PPOScheduler, error) {
		p, err := LoadPPO(path)
		if err != nil {
			return nil, err
		}
		return NewPPOScheduler(p), nil
	}, filepath.Join(dir, "a.ckpt"), c, sp.Val, res.FinalVal.Metrics)
	if _, again := train(5, "b.ckpt"); !bytes.Equal(first, again) {
		t.Error("seed 5 twice: different checkpoints")
	}
	if _, other := train(6, "c.ckpt"); bytes.Equal(first, other) {
		t.Error("seeds 5 and 6: the same checkpoint")
	}
	side, _ := os.ReadFile(filepath.Join(dir, "a.json"))
	if err := os.WriteFile(filepath.Join(dir, "a.json"), bytes.Replace(side, []byte(`"family": "rifling-ppo"`), []byte(`"family": "rifling"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPPO(filepath.Join(dir, "a.ckpt")); err == nil {
		t.Error("loaded a sidecar whose family is rifling")
	}
}

// TestPPOConformance runs policies with random weights (waiting
// included) through the shared sim.Scheduler harness; a policy is built
// for the scenario's machines at its first decision.
func TestPPOConformance(t *testing.T) {
	schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
		return &lazyPPO{seed: seed}, nil
	}, 60)
}

type lazyPPO struct {
	seed uint64
	s    *PPOScheduler
}

func (l *lazyPPO) Name() string { return "rifling-ppo" }

func (l *lazyPPO) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	if l.s == nil {
		rng := pipeline.Rand(l.seed, "test", "ppo-conformance")
		cents := make([][]float64, 3)
		for k := range cents {
			cents[k] = make([]float64, daspaper.JobFeatures)
			for i := range cents[k] {
				cents[k][i] = rng.Float64()
			}
		}
		p := NewPPOPolicy(DefaultPPOConfig(), cents, len(st.Cluster.Servers), rng)
		vals := p.Params().Values()
		for _, v := range vals {
			for i := range v {
				v[i] = rng.NormFloat64()
			}
		}
		if err := p.Params().SetValues(vals); err != nil {
			return nil, err
		}
		l.s = NewPPOScheduler(p)
	}
	return l.s.Schedule(ctx, st)
}
