package sim_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/schedlab/schedlab/sim"
)

// BenchmarkRun times whole runs of the engine under the test first-fit
// scheduler: a PAI-like single-GPU-heavy trace on a flat cluster (capacity
// and event queue dominate) and a MARL-like worker–PS workload on a
// fat-tree (flows, link sharing and interference dominate).
func BenchmarkRun(b *testing.B) {
	flat, err := sim.Flat(32, "pai-v100")
	if err != nil {
		b.Fatal(err)
	}
	ft, err := sim.FatTree(8, "power8")
	if err != nil {
		b.Fatal(err)
	}
	interval := intervalConfig()
	cases := []runCase{
		{"pai-flat32", flat, paiLike(4000, 0.05, 1), sim.DefaultConfig()},
		{"marl-fattree8", ft, marlLike(8, 15, 20, 3), interval},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			cpu0 := cpuSeconds()
			for range b.N {
				if _, err := sim.Run(context.Background(), tc.c, tc.jobs, firstFit{}, tc.cfg, nil); err != nil {
					b.Fatal(err)
				}
			}
			// CPU beside wall: on a shared machine wall time counts other
			// processes' turns.
			b.ReportMetric(1000*(cpuSeconds()-cpu0)/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuSeconds is the user plus system CPU time of the whole process so far
// (the runtime's GC workers included).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
