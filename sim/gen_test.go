package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// paiLike draws n PAI-like jobs: Poisson arrivals at rate per second,
// mostly one-instance jobs of 1–8 GPUs, some multi-instance ones, long-tailed
// durations. A stand-in for the datasets generators in tests and
// benchmarks.
func paiLike(n int, rate float64, seed uint64) []datasets.Job {
	r := rand.New(rand.NewPCG(seed, 1))
	jobs := make([]datasets.Job, n)
	t := 0.0
	for i := range jobs {
		t += r.ExpFloat64() / rate
		inst := int32(1)
		gpu := []float64{0.25, 0.5, 1, 1, 1, 2, 4, 8}[r.IntN(8)]
		if r.Float64() < 0.15 {
			inst = int32(2 + r.IntN(7))
			gpu = []float64{1, 2, 4, 8}[r.IntN(4)]
		}
		jobs[i] = datasets.Job{
			JobID: fmt.Sprintf("j%d", i), Source: "test", SubmitS: t,
			DurationS: 60 + r.ExpFloat64()*3600, Status: "Terminated",
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: inst, GPU: gpu, CPU: 6 * max(gpu, 1), MemGiB: 30 * max(gpu, 1)}},
		}
	}
	return jobs
}

// marlLike draws perInterval jobs per pod per 30-minute interval for the
// given number of intervals: model uniform over Table I, 1–4 workers and
// 1–4 PS of one GPU and 2 cores each.
func marlLike(pods, perInterval, intervals int, seed uint64) []datasets.Job {
	r := rand.New(rand.NewPCG(seed, 2))
	var jobs []datasets.Job
	for iv := 0; iv < intervals; iv++ {
		for k := 0; k < pods*perInterval; k++ {
			m := sim.MARLModels[r.IntN(len(sim.MARLModels))]
			jobs = append(jobs, datasets.Job{
				JobID: fmt.Sprintf("m%d", len(jobs)), Source: "test",
				SubmitS:   float64(iv)*1800 + r.Float64()*1800,
				DurationS: 600 + r.Float64()*7200, Model: m,
				Tasks: []datasets.Task{
					{Role: datasets.RoleWorker, Instances: int32(1 + r.IntN(4)), GPU: 1, CPU: 2, MemGiB: 8},
					{Role: datasets.RolePS, Instances: int32(1 + r.IntN(4)), GPU: 0, CPU: 2, MemGiB: 8},
				},
			})
		}
	}
	return jobs
}

// firstFit is a minimal FIFO first-fit scheduler for sim's own tests (the
// real ones live in package schedulers, which imports sim).
type firstFit struct{}

func (firstFit) Name() string { return "test-first-fit" }

func (firstFit) Schedule(_ context.Context, st *sim.State) ([]sim.Placement, error) {
	l := st.Ledger()
	var out []sim.Placement
	for _, j := range st.Pending {
		slots := make([]sim.Slot, 0, len(j.Instances))
		ok := true
		for _, in := range j.Instances {
			placed := false
			for s := range l.Free {
				if l.Fits(s, in.Demand) {
					l.Take(s, in.Demand)
					slots = append(slots, sim.Slot{Server: s, Socket: -1})
					placed = true
					break
				}
			}
			if !placed {
				ok = false
				break
			}
		}
		if !ok {
			for i, sl := range slots {
				l.Give(sl.Server, j.Instances[i].Demand)
			}
			continue
		}
		out = append(out, sim.Placement{Job: j.Index, Slots: slots})
	}
	return out, nil
}
