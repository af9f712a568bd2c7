package evaluation

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// The simulator's own speed benchmarks live in schedulers/bench_test.go
// (BenchmarkReplayPAI: FIFO-FirstFit on Large at 1k–100k jobs;
// BenchmarkFatTreeIntervals: Load Balancing on fat-trees k = 8…20). These
// add what the evaluation harness brings: the measured-distribution PAI-like
// trace it replays (datasets.GeneratePAILike, with fractional GPUs and
// many-instance jobs, unlike the schedulers' conformance trace), its MARL
// workload generator, and the matrix around the simulations.

func paiLike(b *testing.B, n int) []datasets.Job {
	b.Helper()
	w := Workload{Name: "pai", Kind: KindTrace, SyntheticJobs: n}
	jobs, _, err := loadTrace(context.Background(), w, 1, "bench", 0)
	if err != nil {
		b.Fatal(err)
	}
	return jobs
}

// BenchmarkReplayPAILike replays the first n jobs of the PAI-like trace
// under FIFO-FirstFit on the Large cluster (32 × 8 V100) with the full
// speed model and event triggers.
func BenchmarkReplayPAILike(b *testing.B) {
	spec, _ := sim.Preset("large")
	c, err := spec.Build()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000, 20000} {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			if n > 1000 && testing.Short() {
				b.Skip("-short: 1,000 jobs only")
			}
			jobs := paiLike(b, n)
			var res *sim.Result
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, _ := schedulers.New("fifo-firstfit", schedulers.Options{})
				if res, err = sim.Run(context.Background(), c, jobs, s, sim.DefaultConfig(), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			b.ReportMetric(res.Metrics.MeanJCTS/60, "meanJCT-min")
			b.ReportMetric(float64(res.Metrics.Pruned), "pruned")
		})
	}
}

// BenchmarkMARLFatTree is the MARL setting with the evaluation's workload
// generator: uniform 15 jobs per pod per 30-minute interval on a fat-tree
// of power8 servers, Load Balancing, interval triggers. ms/interval charges
// the whole run (including the drain after the last arrivals) to the
// arrival intervals.
func BenchmarkMARLFatTree(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.Trigger = sim.TriggerInterval
	for _, tc := range []struct{ k, intervals int }{{8, 20}, {12, 20}, {16, 20}, {20, 20}, {20, 100}} {
		b.Run(fmt.Sprintf("k=%d/intervals=%d", tc.k, tc.intervals), func(b *testing.B) {
			if tc.k > 8 && testing.Short() {
				b.Skip("-short: k=8 only")
			}
			c, err := sim.FatTree(tc.k, "power8")
			if err != nil {
				b.Fatal(err)
			}
			w := datasets.MARLWorkload{Kind: datasets.MARLUniform, Pods: c.Pods, JobsPerPod: 15, Intervals: tc.intervals, IntervalS: cfg.IntervalS}
			jobs, err := datasets.GenerateMARL(w, pipeline.Rand(1, "bench"))
			if err != nil {
				b.Fatal(err)
			}
			var res *sim.Result
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, _ := schedulers.New("load-balancing", schedulers.Options{})
				if res, err = sim.Run(context.Background(), c, jobs, s, cfg, nil); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(1000*sec/float64(tc.intervals), "ms/interval")
			b.ReportMetric(float64(len(jobs))/sec, "jobs/s")
			b.ReportMetric(res.Metrics.MeanJCTS/cfg.IntervalS, "meanJCT-intervals")
			b.ReportMetric(res.Metrics.MeanSlowdown, "mean-slowdown")
		})
	}
}

// BenchmarkMatrix runs a das-table1 matrix of the four FIFO/DRF heuristics
// on Small and Large over 5,000 PAI-like jobs (1,000 evaluated) with one
// and two workers: the harness's own cost and its parallel speed-up.
func BenchmarkMatrix(b *testing.B) {
	s, _ := DefaultSpec(DASTable1)
	s.Clusters = []Cluster{s.Clusters[0], s.Clusters[2]}
	s.Workloads[0].SyntheticJobs, s.Workloads[0].MaxJobs = 5000, 5000
	s.Schedulers = DASHeuristics[:4]
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), s, Options{Seed: 1, Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/matrix")
		})
	}
}
