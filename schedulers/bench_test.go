package schedulers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

// marlPerPod draws perPod jobs per pod per 30-minute interval, uniformly
// spread within the interval; models uniform over Table I, 1–4 workers
// (1 GPU, 2 cores) and 1–4 PS (2 cores), 10–130 minutes standalone.
func marlPerPod(pods, perPod, intervals int, seed uint64) []datasets.Job {
	r := rand.New(rand.NewPCG(seed, 21))
	jobs := make([]datasets.Job, 0, pods*perPod*intervals)
	for iv := 0; iv < intervals; iv++ {
		for k := 0; k < pods*perPod; k++ {
			jobs = append(jobs, datasets.Job{
				JobID:   fmt.Sprintf("m%d", len(jobs)),
				SubmitS: float64(iv)*1800 + r.Float64()*1800, DurationS: 600 + r.Float64()*7200,
				Model: sim.MARLModels[r.IntN(len(sim.MARLModels))],
				Tasks: []datasets.Task{
					{Role: datasets.RoleWorker, Instances: int32(1 + r.IntN(4)), GPU: 1, CPU: 2, MemGiB: 8},
					{Role: datasets.RolePS, Instances: int32(1 + r.IntN(4)), CPU: 2, MemGiB: 8},
				},
			})
		}
	}
	return jobs
}

func peakRSSMiB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // Linux reports KiB
}

// cpuSeconds is the user plus system CPU time of the whole process so
// far: on a shared machine wall time counts other processes' turns, so
// the benchmarks report CPU time beside it (the runtime's GC workers are
// included, as they are part of the cost).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// runBench runs b.N replays and returns the last result and the CPU
// seconds per replay.
func runBench(b *testing.B, c *sim.Cluster, jobs []datasets.Job, name string, cfg sim.Config) (*sim.Result, float64) {
	b.Helper()
	b.ReportAllocs()
	var res *sim.Result
	cpu0 := cpuSeconds()
	for i := 0; i < b.N; i++ {
		s, err := schedulers.New(schedulers.Name(name), schedulers.Options{})
		if err != nil {
			b.Fatal(err)
		}
		res, err = sim.Run(context.Background(), c, jobs, s, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	return res, (cpuSeconds() - cpu0) / float64(b.N)
}

// BenchmarkReplayPAI replays PAI-like jobs under FIFO-FirstFit on the Large
// cluster (32 × pai-v100) at Poisson arrival rates (jobs/s) from light to
// overloaded; the mean JCT and GPU utilisation reached are reported beside
// the speed, since a growing queue makes every decision scan more jobs.
// The million-job case runs only when SCHEDLAB_BENCH_1M is set (it takes
// tens of seconds and ≈ 1 GB: too much for make bench-ci).
func BenchmarkReplayPAI(b *testing.B) {
	large := paiCluster(b, 32)
	for _, tc := range []struct {
		n    int
		rate float64
	}{{1000, 0.035}, {10000, 0.035}, {20000, 0.02}, {20000, 0.035}, {20000, 0.05}, {100000, 0.035}, {1000000, 0.035}} {
		n := tc.n
		b.Run(fmt.Sprintf("jobs=%d/rate=%g", n, tc.rate), func(b *testing.B) {
			if n > 100000 && os.Getenv("SCHEDLAB_BENCH_1M") == "" {
				b.Skip("set SCHEDLAB_BENCH_1M=1 to run the million-job replay")
			}
			jobs := schedulerstest.PAILike(n, tc.rate, 1)
			b.ResetTimer()
			res, cpu := runBench(b, large, jobs, "fifo-firstfit", sim.DefaultConfig())
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			b.ReportMetric(float64(n)/cpu, "jobs/cpu-s")
			b.ReportMetric(peakRSSMiB(), "peakRSS-MiB")
			b.ReportMetric(res.Metrics.MeanJCTS/60, "meanJCT-min")
			b.ReportMetric(res.Metrics.GPUUtil, "gpu-util")
		})
	}
}

// BenchmarkFatTreeIntervals is the MARL setting: fat-tree, 15 jobs per pod
// per 30-minute interval, Load Balancing, interval triggers.
func BenchmarkFatTreeIntervals(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.Trigger = sim.TriggerInterval
	for _, tc := range []struct{ k, intervals int }{{8, 20}, {12, 20}, {16, 20}, {20, 20}, {20, 100}} {
		b.Run(fmt.Sprintf("k=%d/intervals=%d", tc.k, tc.intervals), func(b *testing.B) {
			c, err := sim.FatTree(tc.k, "power8")
			if err != nil {
				b.Fatal(err)
			}
			jobs := marlPerPod(tc.k, 15, tc.intervals, 1)
			b.ResetTimer()
			res, cpu := runBench(b, c, jobs, "load-balancing", cfg)
			// Per arrival interval; the run goes on until the last job
			// finishes, so this charges the drain to the arrival intervals.
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(1000*sec/float64(tc.intervals), "ms/interval")
			b.ReportMetric(1000*cpu/float64(tc.intervals), "cpu-ms/interval")
			b.ReportMetric(res.Metrics.MakespanS/1800, "sim-intervals")
			b.ReportMetric(res.Metrics.MeanSlowdown, "mean-slowdown")
			b.ReportMetric(float64(len(jobs))/sec, "jobs/s")
			b.ReportMetric(peakRSSMiB(), "peakRSS-MiB")
			b.ReportMetric(res.Metrics.MeanJCTS/60, "meanJCT-min")
		})
	}
}

// BenchmarkFatTreeLIF is BenchmarkFatTreeIntervals' k = 20 setting under
// LIF, which predicts every fitting server's slowdown per instance: in the
// paper preset's heuristic rows it took about 70 % of the cells' time.
func BenchmarkFatTreeLIF(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.Trigger = sim.TriggerInterval
	c, err := sim.FatTree(20, "power8")
	if err != nil {
		b.Fatal(err)
	}
	const intervals = 10
	jobs := marlPerPod(20, 15, intervals, 1)
	b.ResetTimer()
	runBench(b, c, jobs, "lif", cfg)
	b.ReportMetric(1000*b.Elapsed().Seconds()/float64(b.N)/intervals, "ms/interval")
}

// BenchmarkMetaSearch is MALO's and MOSA's cost: a search per decision,
// thousands of surrogate decodes each, on TestCompare's DAS-like workload
// under the race detector's size (80 PAI-like jobs at 0.02/s on four
// pai-v100 servers, where the queue outgrows their 32-job window). The
// heuristic tests' time is mostly theirs.
func BenchmarkMetaSearch(b *testing.B) {
	small := paiCluster(b, 4)
	jobs := schedulerstest.PAILike(80, 0.02, 5)
	for _, name := range []string{"malo", "mosa"} {
		b.Run(name, func(b *testing.B) {
			_, cpu := runBench(b, small, jobs, name, sim.DefaultConfig())
			b.ReportMetric(cpu, "cpu-s/run")
		})
	}
}

// BenchmarkMetaSearchLarge is BenchmarkMetaSearch on das-table1's Medium
// and Large sizes (16 and 32 pai-v100 servers), with 20 PAI-like jobs a
// server arriving at 0.005/s a server: a decode's first-fit scans and
// its 32 jobs cost more there than on four servers.
func BenchmarkMetaSearchLarge(b *testing.B) {
	for _, n := range []int{16, 32} {
		c := paiCluster(b, n)
		jobs := schedulerstest.PAILike(20*n, 0.005*float64(n), 5)
		for _, name := range []string{"malo", "mosa"} {
			b.Run(fmt.Sprintf("%s-%d", name, n), func(b *testing.B) {
				_, cpu := runBench(b, c, jobs, name, sim.DefaultConfig())
				b.ReportMetric(cpu, "cpu-s/run")
			})
		}
	}
}
