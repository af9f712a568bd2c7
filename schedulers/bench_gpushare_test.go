package schedulers_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/internal/shareddata"
	"github.com/schedlab/schedlab/profiling"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

// BenchmarkReplayPAIGPUShare is BenchmarkReplayPAI's replay (FIFO-FirstFit,
// 32 × pai-v100, PAI-like jobs) with the GPU-sharing term off (today's
// speed model: DefaultInterference) and on (the same CPU/PCIe term plus
// the term fitted to Gavel's and Lucid's measured pairs), side by side, so
// that their jobs/s ratio is measured on one machine in one run.
func BenchmarkReplayPAIGPUShare(b *testing.B) {
	gavel := shareddata.Path(b, "colocation/gavel_throughputs.json")
	dir := filepath.Dir(gavel)
	ctx := context.Background()
	g, err := profiling.ImportShare(ctx, "gavel", []string{gavel})
	if err != nil {
		b.Fatal(err)
	}
	l, err := profiling.ImportShare(ctx, "lucid", []string{filepath.Join(dir, "lucid_colocate_info.csv"), filepath.Join(dir, "lucid_single_data.csv")})
	if err != nil {
		b.Fatal(err)
	}
	rep, err := fitting.RunShare(ctx, append(g.Samples, l.Samples...), fitting.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	m := &fitting.InterferenceModel{Model: fitting.GPUShareOnly, GPUShare: rep.Term}
	share := m.SimModel().(sim.SharingModel)
	share.Interference = sim.DefaultInterference()
	large := paiCluster(b, 32)
	for _, tc := range []struct {
		n    int
		rate float64
	}{{10000, 0.035}, {20000, 0.05}} {
		jobs := schedulerstest.PAILike(tc.n, tc.rate, 1)
		for _, term := range []struct {
			name  string
			model sim.Interference
		}{{"off", nil}, {"on", share}} {
			b.Run(fmt.Sprintf("jobs=%d/rate=%g/term=%s", tc.n, tc.rate, term.name), func(b *testing.B) {
				b.ReportAllocs()
				var res *sim.Result
				cpu0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					s, err := schedulers.New("fifo-firstfit", schedulers.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if res, err = sim.Run(ctx, large, jobs, s, sim.DefaultConfig(), term.model); err != nil {
						b.Fatal(err)
					}
				}
				cpu := (cpuSeconds() - cpu0) / float64(b.N)
				b.ReportMetric(float64(tc.n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
				b.ReportMetric(float64(tc.n)/cpu, "jobs/cpu-s")
				b.ReportMetric(res.Metrics.MeanJCTS/60, "meanJCT-min")
			})
		}
	}
}
