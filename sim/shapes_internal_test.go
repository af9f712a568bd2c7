package sim

import (
	"context"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/schedlab/schedlab/datasets"
)

// TestLazyShapesSameGroups drives two simulators through the same random
// preemptive decisions under the Tiresias trigger, one keeping the shape
// lists from the start, the other from its first PendingShapes (decision
// from, Sim.shapesLive). The shapes with a pending job must be the same,
// in the same order, at every decision, and once both keep lists, so must
// the lists, at two seeds.
func TestLazyShapesSameGroups(t *testing.T) {
	c, err := Racks(1, 3, ServerKind{Name: "g4", Sockets: []Socket{{Cores: 16, GPUs: 4, PCIeGbps: 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 7} {
		rng := rand.New(rand.NewPCG(seed, 5101))
		var jobs []datasets.Job
		for i := range 200 {
			jobs = append(jobs, datasets.Job{JobID: "j" + strconv.Itoa(i),
				SubmitS: float64(20 * rng.IntN(60)), DurationS: float64(60 + rng.IntN(1800)),
				Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: int32(1 + rng.IntN(3)), GPU: float64(1 + rng.IntN(4))}}})
		}
		cfg := DefaultConfig()
		cfg.Speed = SpeedStandalone
		cfg.Trigger = TriggerEvery
		cfg.SkipFloor = true
		live, err := New(c, jobs, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		live.shapesLive = true
		lazy, err := New(c, jobs, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		const from = 40
		pick := rand.New(rand.NewPCG(seed, 5102))
		for k := 0; ; k++ {
			a, err := live.Next(context.Background())
			if err == io.EOF {
				if k <= 2*from || len(live.Result().Preempted) == 0 {
					t.Fatalf("seed %d: %d decisions, %d jobs preempted: too few to test", seed, k, len(live.Result().Preempted))
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := lazy.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(live.activeShape, lazy.activeShape) {
				t.Fatalf("seed %d, decision %d: shapes with a pending job %v, lazily %v", seed, k, live.activeShape, lazy.activeShape)
			}
			if k >= from {
				ga, gb := a.PendingShapes(), b.PendingShapes()
				if len(ga) != len(gb) {
					t.Fatalf("seed %d, decision %d: %d groups, lazily %d", seed, k, len(ga), len(gb))
				}
				for g := range ga {
					if len(ga[g]) != len(gb[g]) {
						t.Fatalf("seed %d, decision %d, group %d: %d jobs, lazily %d", seed, k, g, len(ga[g]), len(gb[g]))
					}
					for i := range ga[g] {
						if ga[g][i].Index != gb[g][i].Index {
							t.Fatalf("seed %d, decision %d, group %d: job %d at %d, lazily %d", seed, k, g, ga[g][i].Index, i, gb[g][i].Index)
						}
					}
				}
			} else if lazy.shapesLive {
				t.Fatalf("seed %d, decision %d: lists kept before the first PendingShapes", seed, k)
			}
			// Preempt about half of the running jobs, then start
			// pending jobs first fit on what is free after that.
			var d Decision
			free := append([]Resources(nil), a.Free...)
			for _, js := range a.Running {
				if pick.IntN(2) == 0 {
					d.Preempt = append(d.Preempt, js.Index)
					for i, sl := range js.Slots {
						free[sl.Server] = free[sl.Server].Add(js.Instances[i].Demand)
					}
				}
			}
			idle := len(d.Preempt) == len(a.Running) // start what fits, or it may stall
			for _, js := range a.Pending {
				if !idle && pick.IntN(2) == 0 {
					continue
				}
				var slots []Slot
				for _, in := range js.Instances {
					for srv := range free {
						if in.Demand.Fits(free[srv]) {
							free[srv] = free[srv].Sub(in.Demand)
							slots = append(slots, Slot{Server: srv, Socket: -1})
							break
						}
					}
				}
				if len(slots) == len(js.Instances) {
					d.Start = append(d.Start, Placement{Job: js.Index, Slots: slots})
					continue
				}
				for i, sl := range slots {
					free[sl.Server] = free[sl.Server].Add(js.Instances[i].Demand)
				}
			}
			if err := live.Do(d); err != nil {
				t.Fatal(err)
			}
			if err := lazy.Do(d); err != nil {
				t.Fatal(err)
			}
		}
	}
}
