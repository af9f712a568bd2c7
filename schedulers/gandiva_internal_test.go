package schedulers

import (
	"cmp"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// TestGandivaOrderIsTheSort: the round order Gandiva keeps in its queues
// is, at every decision, the runnable list sorted stably by when each
// job last ran (running jobs first between round ends), as the policy's
// doc states it. Random traces whose arrivals fall on round ends and on
// each other, at two seeds, so that ties with the running jobs occur.
func TestGandivaOrderIsTheSort(t *testing.T) {
	c, err := sim.Racks(1, 2, sim.ServerKind{Name: "g4", Sockets: []sim.Socket{{Cores: 16, GPUs: 4, PCIeGbps: 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 7} {
		rng := rand.New(rand.NewPCG(seed, 48))
		var jobs []datasets.Job
		for i := range 120 {
			jobs = append(jobs, datasets.Job{JobID: string(rune('a'+i%26)) + string(rune('0'+i/26)),
				SubmitS: float64(30 * rng.IntN(40)), DurationS: float64(max(0, rng.IntN(600)-60)),
				Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: float64(1 + rng.IntN(4))}}})
		}
		cfg := sim.DefaultConfig()
		cfg.Speed = sim.SpeedStandalone
		cfg.Trigger = sim.TriggerEvery
		s, err := sim.New(c, jobs, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewGandiva(0)
		if err != nil {
			t.Fatal(err)
		}
		decisions, ties := 0, 0
		for {
			st, err := s.Next(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			wasRunning := map[*rjob]bool{}
			for _, j := range g.list {
				wasRunning[j] = j.running
			}
			// Decide, with the order taken before the walk moves jobs
			// between the queues it is made of.
			g.roundOrder(st)
			order := slices.Concat(g.order...)
			d := g.admit(st)
			roundEnd := math.Mod(st.Now, g.roundS) == 0 && st.Now > 0
			want := slices.Clone(g.list)
			slices.SortStableFunc(want, func(a, b *rjob) int {
				if ra, rb := wasRunning[a] && !roundEnd, wasRunning[b] && !roundEnd; ra != rb {
					if ra {
						return -1
					}
					return 1
				}
				return cmp.Compare(g.lastRan[a.js.Index], g.lastRan[b.js.Index])
			})
			if !slices.Equal(want, order) {
				t.Fatalf("seed %d, t=%g (round end %v): the queues' order differs from the sort", seed, st.Now, roundEnd)
			}
			for _, j := range want {
				if !wasRunning[j] && g.lastRan[j.js.Index] == st.Now {
					ties++
				}
			}
			decisions++
			if err := s.Do(d); err != nil {
				t.Fatal(err)
			}
		}
		if decisions < 100 {
			t.Fatalf("seed %d: %d decisions, want a busy trace", seed, decisions)
		}
		t.Logf("seed %d: %d decisions, %d waiting jobs that tie with the running ones", seed, decisions, ties)
	}
}
