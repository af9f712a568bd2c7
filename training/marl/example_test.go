package marl_test

import (
	"context"
	"fmt"
	"os"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
)

// Train a device-level policy briefly, save it, and schedule held-out jobs
// with the saved policy, as an evaluation would.
func Example() {
	ctx := context.Background()
	c, _ := sim.FatTree(4, "power8")
	jobs, _ := datasets.GenerateMARL(datasets.MARLWorkload{Kind: datasets.MARLUniform, Pods: c.Pods, JobsPerPod: 0.3, Intervals: 20, IntervalS: 1800},
		pipeline.Rand(1, "example"))
	train, test := datasets.SplitMARL(jobs, c.Pods, 0.1, 1800)
	simCfg := sim.DefaultConfig()
	simCfg.Trigger = sim.TriggerInterval

	cfg := marl.DefaultConfig()
	cfg.Episodes, cfg.ValidateEvery = 2, 0
	pol, curves, err := marl.Train(ctx, cfg, marl.TrainOptions{Cluster: c, Train: train, Sim: simCfg, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "marl-example")
	defer os.RemoveAll(dir)
	if err := pol.Save(dir, nil); err != nil {
		fmt.Println(err)
		return
	}
	sched, err := marl.LoadScheduler(dir, marl.SchedulerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(ctx, c, test, sched, simCfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d episodes; %s finished %d of %d held-out jobs\n", len(curves), sched.Name(), res.Metrics.Jobs, len(test))
	// Output: 2 episodes; marl-device finished 4 of 4 held-out jobs
}
