package schedulers_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// BenchmarkReplayRounds replays the shared 500-job ElasticFlow trace on
// the 32-GPU Tiresias cluster, and the 6,000-job PAI subset on the DAS
// Large cluster, under the round-based policies (Gandiva's time-slicing,
// Gavel's max-min and finish-time fairness, whose linear programs run at
// each round's end after arrivals or finishes).
func BenchmarkReplayRounds(b *testing.B) {
	root := shareddata.Path(b, "tiresias")
	ef := readTiresiasTrace(b, filepath.Join(root, "traces", "ef02-500.csv"))
	c := tiresiasCluster(b, root, "n8g4")
	for _, p := range []string{"gandiva", "gavel-las", "gavel-ftf"} {
		b.Run("ef02-500/"+p, func(b *testing.B) { runPreemptive(b, c, ef, p, schedulers.Options{}) })
	}
	pai := paiSubset(b)
	large := paiCluster(b, 32)
	for _, p := range []string{"gandiva", "gavel-las", "gavel-ftf"} {
		b.Run("pai-6000/"+p, func(b *testing.B) { runPreemptive(b, large, pai, p, schedulers.Options{}) })
	}
}

// BenchmarkGandivaNightly is the nightly preemptive experiment's costliest
// Gandiva cell: the PAI subset's first 2,000 jobs on the DAS Small cluster
// (8 servers) at a 30 s restart cost, where the queue runs days deep and
// every 60 s round suspends and resumes jobs. /500 is its first 500 jobs.
func BenchmarkGandivaNightly(b *testing.B) {
	pai := paiSubset(b)
	small := paiCluster(b, 8)
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			runPreemptiveRestart(b, small, pai[:n], "gandiva", schedulers.Options{}, 30)
		})
	}
}

// BenchmarkGandivaNightlyModel is the same cell as the nightly runs it:
// under the preset's speed model (interference and communication; here
// the simulator's default interference) with Gavel's GPU-type speeds on
// the cluster, as evaluation cells have them. The whole cell takes about
// 867,000 decisions (its queue runs days deep); this replays its first
// 20,000 and reports the CPU per decision, which the rate recomputation
// of every job on a server whose co-runners changed dominates.
func BenchmarkGandivaNightlyModel(b *testing.B) {
	const decisions = 20000
	pai := paiSubset(b)[:2000]
	small := paiCluster(b, 8)
	small.GPUSpeed = sim.GPUSpeed(measuredThroughputs(b))
	info, _ := schedulers.Lookup("gandiva")
	cfg := sim.DefaultConfig()
	cfg.Trigger = info.Trigger
	cfg.RestartS = sim.RestartFixed(30)
	cfg.SkipFloor = true
	ctx := context.Background()
	var now float64
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for range b.N {
		s, err := schedulers.New("gandiva", schedulers.Options{})
		if err != nil {
			b.Fatal(err)
		}
		run, err := sim.New(small, pai, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		for range decisions {
			st, err := run.Next(ctx)
			if err != nil {
				b.Fatal(err) // io.EOF included: the cell is far longer
			}
			now = st.Now
			d, err := sim.DecisionOf(ctx, s, st)
			if err != nil {
				b.Fatal(err)
			}
			if err := run.Do(d); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu := (cpuSeconds() - cpu0) / float64(b.N)
	b.ReportMetric(cpu, "cpu-s/run")
	b.ReportMetric(cpu/decisions*1e6, "cpu-us/decision")
	b.ReportMetric(now, "t-s")
}
