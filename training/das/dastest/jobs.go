// Package dastest holds the workloads, the replay check and the training
// log that the tests of the DAS-paper families (das, dl2, rifling) share.
package dastest

import (
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/daspaper"
)

// stream names the test jobs' draws.
const stream pipeline.Stream = "test"

// keyContended is ContendedJobs' key under stream.
const keyContended pipeline.Key = "contended"

// ContendedJobs is a small workload on which the order of jobs matters a
// great deal: Poisson arrivals meanGapS seconds apart on average, of three
// kinds (small 1×1 GPU for 10 min, medium 2×4 GPUs for 30 min, large 4×8
// GPUs for 2 h; 60/25/15 %). At a 400 s gap it asks about 1.5 times what
// the Small cluster can serve. Running small jobs first is far better for
// mean JCT than submission order; a learned policy has to discover that
// from the features (instances, GPUs). The jobs depend only on n, seed
// and meanGapS.
func ContendedJobs(n int, seed uint64, meanGapS float64) []datasets.Job {
	rng := pipeline.Rand(seed, stream, keyContended)
	jobs := make([]datasets.Job, n)
	now := 0.0
	for i := range jobs {
		now += rng.ExpFloat64() * meanGapS
		var inst int32
		var gpu, dur float64
		switch u := rng.Float64(); {
		case u < 0.6:
			inst, gpu, dur = 1, 1, 600
		case u < 0.85:
			inst, gpu, dur = 2, 4, 1800
		default:
			inst, gpu, dur = 4, 8, 7200
		}
		dur *= 0.75 + 0.5*rng.Float64()
		jobs[i] = datasets.Job{JobID: fmt.Sprintf("c%d", i), Source: "test", SubmitS: now, DurationS: dur,
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: inst, GPU: gpu, CPU: 6 * gpu, MemGiB: 30 * gpu}}}
	}
	return jobs
}

// SmallSplit is the Small preset cluster and the training split of jobs
// on it that das.PrepareTrace makes at max_jobs maxJobs and das's default
// val_fraction (the latest fifth validates).
func SmallSplit(t testing.TB, jobs []datasets.Job, maxJobs int) (*sim.Cluster, daspaper.Split) {
	t.Helper()
	c := simtest.Preset(t, "small")
	sp, err := daspaper.PrepareTrace(c, jobs, sim.DefaultConfig(), datasets.TraceSplit{MaxJobs: maxJobs, ValFraction: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	return c, sp
}
