package marl_test

import (
	"context"
	"testing"
	"time"
	"os"
	"strconv"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/marl"
)

func TestSmoke(t *testing.T) {
	c, err := sim.FatTree(4, "power8")
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := evaluation.GenerateMARL(evaluation.MARLWorkload{Kind: "uniform", Pods: 4, JobsPerPod: envF("JPP", 0.7), Intervals: 40, IntervalS: 1800}, pipeline.Rand(1, "test"))
	if err != nil {
		t.Fatal(err)
	}
	train, test := marl.SplitJobs(jobs, 4, 0.1, 1800)
	t.Logf("%d train, %d test", len(train), len(test))
	cfg := marl.DefaultConfig()
	cfg.Episodes = envInt("EP", 10)
	cfg.ValidateEvery = 2
	cfg.LR = envF("LR", cfg.LR)
	cfg.EntropyCoef = envF("ENT", cfg.EntropyCoef)
	cfg.Variant = envS("VAR", cfg.Variant)
	simCfg := sim.DefaultConfig()
	simCfg.Trigger = sim.TriggerInterval
	start := time.Now()
	init, _ := marl.NewPolicy(cfg, 1)
	r0, err := sim.Run(context.Background(), c, test, init.Scheduler(marl.SchedulerOptions{}), simCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("untrained JCT %.0f", r0.Metrics.MeanJCTS)
	for _, n := range []string{"tetris", "load-balancing", "lif"} {
		s, _ := schedulers.New(n)
		r, err := sim.Run(context.Background(), c, test, s, simCfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s JCT %.0f", n, r.Metrics.MeanJCTS)
	}
	_, _, err = marl.Train(context.Background(), cfg, marl.TrainOptions{Cluster: c, Train: train, Validation: test, Sim: simCfg, Seed: 1,
		Episode: func(c training.Curve) { t.Logf("%s ep %d ret %.2f jct %.0f pl %.3f vl %.4f ent %.3f (%v)", c.Split, c.Episode, c.Return, c.MeanJCT, c.PolicyLoss, c.ValueLoss, c.Entropy, time.Since(start).Round(time.Millisecond)) }})
	if err != nil {
		t.Fatal(err)
	}
}

func envF(k string, d float64) float64 { if v, err := strconv.ParseFloat(os.Getenv(k), 64); err == nil { return v }; return d }
func envInt(k string, d int) int { if v, err := strconv.Atoi(os.Getenv(k)); err == nil { return v }; return d }
func envS(k string, d string) string { if v := os.Getenv(k); v != "" { return v }; return d }
