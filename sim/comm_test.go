package sim_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// TestCommunicationTimes pins the communication model to hand-computed run
// times on a fat-tree k=4 of power8 servers (servers 0–1 under one edge
// switch, 2–3 under the other, 4 in the next pod; server links 10 Gbit/s,
// every other link faster) with interference off. Every job trains
// ResNet-50: G = 102 MB = 0.816 Gbit per iteration, ideal iteration 0.25 s,
// 1000 s standalone, so a job whose iterations pay c seconds of
// communication runs 1000·(0.25 + c)/0.25 = 1000 + 4000·c seconds.
func TestCommunicationTimes(t *testing.T) {
	const g = 102 * 8 / 1000.0 // Gbit
	run := func(comm float64) float64 { return 1000 + 4000*comm }
	cases := []struct {
		name string
		jobs []placed
		want []float64
	}{
		// A worker and its PS on one server talk over PCIe: free.
		{"colocated", []placed{{[]int{0}, []int{0}}}, []float64{1000}},
		// Push G, then pull G, over the 10 Gbit/s server links.
		{"one pair", []placed{{[]int{0}, []int{1}}}, []float64{run(2 * g / 10)}},
		{"one pair across pods", []placed{{[]int{0}, []int{4}}}, []float64{run(2 * g / 10)}},
		// The PS's link carries both workers' pushes (then pulls): they share
		// it, and the iteration pays the slowest pair once, not once per
		// worker.
		{"two workers one PS", []placed{{[]int{0, 1}, []int{2}}}, []float64{run(2 * g / 5)}},
		// Two PS shards of G/2 each; the one beside the worker is free.
		{"two PS shards", []placed{{[]int{0}, []int{0, 1}}}, []float64{run(g / 10)}},
		// Two jobs' pairs share server 0's link, in both directions.
		{"two jobs share a link", []placed{{[]int{0}, []int{1}}, {[]int{0}, []int{2}}}, []float64{run(2 * g / 5), run(2 * g / 5)}},
		// Ring all-reduce of n servers: each sends 2(n−1)/n·G to the next
		// while receiving as much from the previous; links are full duplex,
		// so the two directions do not compete.
		{"ring of two", []placed{{[]int{0, 1}, nil}}, []float64{run(g / 10)}},
		{"ring of three", []placed{{[]int{0, 1, 2}, nil}}, []float64{run(2 * 2 / 3.0 * g / 10)}},
		// Two rings over the same two servers: two flows each way.
		{"two rings share links", []placed{{[]int{0, 1}, nil}, {[]int{0, 1}, nil}}, []float64{run(g / 5), run(g / 5)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := simtest.FatTree(t, 4, "power8")
			jobs, pl := placedJobs(tc.name, tc.jobs)
			res, err := sim.Run(context.Background(), c, jobs, fixed{pl}, sim.DefaultConfig(), sim.NoInterference{})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.want {
				// Relative 1e-12: the engine integrates rates in float64.
				if got := res.Jobs[i].RunS; math.Abs(got-want) > 1e-12*want {
					t.Errorf("job %d ran %.6f s, want %.6f s", i, got, want)
				}
			}
		})
	}
}

// placed is a job's workers and PS, by the servers they run on.
type placed struct {
	workers, ps []int // servers of the workers, then of the PS
}

// placedJobs makes a ResNet-50 job (1000 s standalone, 1 GPU a worker)
// named name for each p, and the placement of each on its servers.
func placedJobs(name string, jobs []placed) ([]datasets.Job, []sim.Placement) {
	var out []datasets.Job
	var pl []sim.Placement
	for i, p := range jobs {
		j := datasets.Job{JobID: name, DurationS: 1000, Model: "resnet-50",
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: int32(len(p.workers)), GPU: 1, CPU: 2, MemGiB: 8}}}
		if len(p.ps) > 0 {
			j.Tasks = append(j.Tasks, datasets.Task{Role: datasets.RolePS, Instances: int32(len(p.ps)), CPU: 2, MemGiB: 8})
		}
		out = append(out, j)
		var slots []sim.Slot
		for _, s := range append(slices.Clone(p.workers), p.ps...) {
			slots = append(slots, sim.Slot{Server: s, Socket: -1})
		}
		pl = append(pl, sim.Placement{Job: i, Slots: slots})
	}
	return out, pl
}
