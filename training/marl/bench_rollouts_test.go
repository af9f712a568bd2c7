package marl_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
)

// BenchmarkTrainRollouts is one iteration of MARL_BENCH_ROLLOUTS (default
// 2) device-level episodes collected side by side per update, on one
// worker and on two (the second lent as a run lends an idle one,
// pipeline.BorrowWorker): the wall time of one model on more workers,
// whose bytes TestRolloutsSameBytes holds equal. Sizes as
// BenchmarkTrainEpisode's (benchSize); tasks/op counts the tasks placed
// over all rollouts. spread=2 runs each rollout's steps as pieces of a
// training.Spread (marl.RunStep), side by side in this process, as an
// executor's two workers would.
func BenchmarkTrainRollouts(b *testing.B) {
	k, intervals, jpp := benchSize(b)
	rollouts := 2
	if v, err := strconv.Atoi(os.Getenv("MARL_BENCH_ROLLOUTS")); err == nil {
		rollouts = v
	}
	c, err := sim.FatTree(k, "power8")
	if err != nil {
		b.Fatal(err)
	}
	jobs := workload(b, c, jpp, intervals, 1)
	cfg := marl.VariantConfig(marl.VariantDevice)
	cfg.Episodes, cfg.ValidateEvery, cfg.Rollouts = rollouts, 0, rollouts
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportMetric(float64(rollouts*tasks(jobs)), "tasks/op")
			for range b.N {
				ctx := pipeline.WithWorkers(context.Background(), workers)
				opts := marl.TrainOptions{Cluster: c, Train: jobs, Sim: intervalConfig(), Seed: 1,
					Borrow: func() (func(), bool) { return pipeline.BorrowWorker(ctx) }}
				if _, _, err := marl.Train(ctx, cfg, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("spread=2", func(b *testing.B) {
		b.ReportMetric(float64(rollouts*tasks(jobs)), "tasks/op")
		for i := range b.N {
			opts := marl.TrainOptions{Cluster: c, Train: jobs, Sim: intervalConfig(), Seed: 1}
			var calls int
			key := fmt.Sprintf("bench-%d", i)
			opts.Spread = spreadInProcess(b, false, &calls, func(ctx context.Context, read func(string) ([]byte, error), piece []byte) ([]byte, error) {
				return marl.RunStep(ctx, key, func() (marl.Config, marl.TrainOptions, error) { return cfg, opts, nil }, read, piece)
			})
			if _, _, err := marl.Train(context.Background(), cfg, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}
