package das

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestRoomForBoundsPlacement: roomFor never rules out a job that decode's
// booking (each instance on the first server in some order that fits it)
// could place, on random ledgers and jobs of mixed instance demands; and
// it does rule out the fragmented case mayFit lets through.
func TestRoomForBoundsPlacement(t *testing.T) {
	t.Run("fragmented", func(t *testing.T) {
		led := &sim.Ledger{Free: []sim.Resources{{GPU: 6, CPU: 48, MemGiB: 256}, {GPU: 6, CPU: 48, MemGiB: 256}}}
		in := sim.Instance{Demand: sim.Resources{GPU: 4, CPU: 8, MemGiB: 32}}
		js := &sim.JobState{Instances: []sim.Instance{in, in, in}, Total: in.Demand.Scale(3)}
		if !mayFit(led, js) {
			t.Fatal("mayFit rules the job out; the case tests roomFor")
		}
		if n := roomFor(led, js); n != 2 {
			t.Errorf("roomFor = %d, want 2", n)
		}
	})
	rng := rand.New(rand.NewPCG(7, 8))
	// Quarter GPUs and fractional CPU and memory, as in PAI.
	draw := func(hi float64) float64 { return float64(rng.IntN(int(4*hi)+1)) / 4 }
	ruledOut := 0
	for c := 0; c < 2000; c++ {
		led := &sim.Ledger{Free: make([]sim.Resources, 1+rng.IntN(6))}
		for k := range led.Free {
			led.Free[k] = sim.Resources{GPU: draw(8), CPU: 0.1 * draw(96), MemGiB: 0.3 * draw(512)}
		}
		js := &sim.JobState{Instances: make([]sim.Instance, 1+rng.IntN(6))}
		for i := range js.Instances {
			d := sim.Resources{GPU: draw(4), CPU: 0.1 * draw(32), MemGiB: 0.3 * draw(128)}
			js.Instances[i] = sim.Instance{Demand: d}
			js.Total = js.Total.Add(d)
		}
		room := roomFor(led, js)
		if room < len(js.Instances) {
			ruledOut++
		}
		for try := 0; try < 20; try++ {
			order := rng.Perm(len(led.Free))
			if book(led, js, order) && room < len(js.Instances) {
				t.Fatalf("case %d: placed in order %v, but roomFor = %d < %d instances (free %v, job %v)",
					c, order, room, len(js.Instances), led.Free, js.Instances)
			}
		}
	}
	if ruledOut == 0 {
		t.Error("no case was ruled out: the test checks nothing")
	}
}

// book is decode's booking on a copy of led: true if every instance found
// a server.
func book(led *sim.Ledger, js *sim.JobState, order []int) bool {
	l := &sim.Ledger{Free: slices.Clone(led.Free)}
	for _, in := range js.Instances {
		ok := false
		for _, k := range order {
			if l.Fits(k, in.Demand) {
				l.Take(k, in.Demand)
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
