package schedulers_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/datasets"
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
	spec, err := datasets.ReadTiresiasCluster(filepath.Join(root, "clusters", "n8g4.csv"))
	if err != nil {
		b.Fatal(err)
	}
	c, err := sim.FromTiresias(spec)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{"gandiva", "gavel-las", "gavel-ftf"} {
		b.Run("ef02-500/"+p, func(b *testing.B) { runPreemptive(b, c, ef, p, schedulers.Options{}) })
	}
	pai := readPAISim(b, shareddata.Path(b, "pai-v2020/operate_simulator_jobs_6000.csv"))
	large, err := sim.Flat(32, "pai-v100")
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{"gandiva", "gavel-las", "gavel-ftf"} {
		b.Run("pai-6000/"+p, func(b *testing.B) { runPreemptive(b, large, pai, p, schedulers.Options{}) })
	}
}

// BenchmarkGandivaNightly is the nightly preemptive experiment's costliest
// Gandiva cell: the PAI subset's first 2,000 jobs on the DAS Small cluster
// (8 servers) at a 30 s restart cost, where the queue runs days deep and
// every 60 s round suspends and resumes jobs. /500 is its first 500 jobs.
func BenchmarkGandivaNightly(b *testing.B) {
	pai := readPAISim(b, shareddata.Path(b, "pai-v2020/operate_simulator_jobs_6000.csv"))
	small, err := sim.Flat(8, "pai-v100")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			runPreemptiveRestart(b, small, pai[:n], "gandiva", schedulers.Options{}, 30)
		})
	}
}
