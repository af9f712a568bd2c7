package schedulers_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// runPreemptive replays jobs on c under the registered policy name as
// `schedlab replay` does (standalone speed, the policy's trigger, no
// floor) b.N
// times and reports jobs per second of wall and of CPU time and the
// preemptions of the last run.
func runPreemptive(b *testing.B, c *sim.Cluster, jobs []datasets.Job, name string, opt schedulers.Options) {
	b.Helper()
	runPreemptiveRestart(b, c, jobs, name, opt, 0)
}

// runPreemptiveRestart is runPreemptive with a fixed restart cost of
// restart seconds, and reports the decisions of the last run too.
func runPreemptiveRestart(b *testing.B, c *sim.Cluster, jobs []datasets.Job, name string, opt schedulers.Options, restart float64) {
	b.Helper()
	b.ReportAllocs()
	info, _ := schedulers.Lookup(name)
	cfg := sim.DefaultConfig()
	cfg.Speed = sim.SpeedStandalone
	cfg.Trigger = info.Trigger
	cfg.SkipFloor = true // as replay: its output has no floor
	if restart != 0 {
		cfg.RestartS = sim.RestartFixed(restart)
	}
	var res *sim.Result
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := schedulers.New(schedulers.Name(name), opt)
		if err != nil {
			b.Fatal(err)
		}
		res, err = sim.Run(context.Background(), c, jobs, s, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	cpu := (cpuSeconds() - cpu0) / float64(b.N)
	pre := 0
	for _, p := range res.Preempted {
		pre += p.Preemptions
	}
	b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(float64(len(jobs))/cpu, "jobs/cpu-s")
	b.ReportMetric(cpu, "cpu-s/run")
	b.ReportMetric(float64(pre), "preemptions")
	b.ReportMetric(res.Metrics.MeanJCTS, "meanJCT-s")
	b.ReportMetric(float64(res.Decisions), "decisions")
}

// BenchmarkReplaySRTFPAI replays the 6,000-job PAI subset
// (operate_simulator_jobs_6000.csv) under SRTF on the DAS Large cluster.
func BenchmarkReplaySRTFPAI(b *testing.B) {
	jobs := paiSubset(b)
	large := paiCluster(b, 32)
	runPreemptive(b, large, jobs, "srtf", schedulers.Options{})
}

// BenchmarkReplayTiresias replays the shared 500-job ElasticFlow trace on
// the 32-GPU Tiresias cluster under each of the reference's policies: the
// figures to set beside the reference simulator's CPU seconds on the same
// trace (docs/measurements.md).
func BenchmarkReplayTiresias(b *testing.B) {
	root := shareddata.Path(b, "tiresias")
	jobs := readTiresiasTrace(b, filepath.Join(root, "traces", "ef02-500.csv"))
	c := tiresiasCluster(b, root, "n8g4")
	for _, p := range []string{"fifo", "sjf", "shortest", "shortest-gpu", "dlas-gpu", "dlas-gpu-gittins"} {
		b.Run(p, func(b *testing.B) {
			runPreemptive(b, c, jobs, p, schedulers.Options{Tiresias: &schedulers.TiresiasConfig{GittinsSamples: filepath.Join(root, "yarn-gput1000.csv")}})
		})
	}
}
