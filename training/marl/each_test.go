package marl

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestEachSpreadsAndOrdersErrors: trainer.phase advances the live rollouts on
// the calling goroutine and on every worker Borrow lends (at once: two
// rollouts that each wait for the other finish only if they run side by
// side), skips the done ones, gives the workers back, and returns the
// error of the first rollout in rollout order, not the first to fail.
func TestEachSpreadsAndOrdersErrors(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var out atomic.Int64
	tr := &trainer{borrow: func() (func(), bool) {
		if out.Load() >= 1 {
			return nil, false
		}
		out.Add(1)
		return func() { out.Add(-1) }, true
	}}
	rs := []*rollout{{ep: 0}, {ep: 1, done: true}, {ep: 2}}
	var ran [3]atomic.Bool
	arrived := make(chan int, 2)
	_, _, _, err := tr.phase(context.Background(), rs, func(r *rollout) error {
		ran[r.ep].Store(true)
		arrived <- r.ep
		// Wait for the other live rollout: both must be running.
		deadline := time.After(10 * time.Second)
		for len(arrived) < 2 {
			select {
			case <-deadline:
				return errors.New("the other rollout never ran beside this one")
			default:
				time.Sleep(time.Millisecond)
			}
		}
		if r.ep == 2 {
			return errors.New("rollout 2")
		}
		time.Sleep(20 * time.Millisecond) // rollout 0 fails last
		return errors.New("rollout 0")
	})
	if err == nil || err.Error() != "rollout 0" {
		t.Errorf("phase returned %v, want rollout 0's error", err)
	}
	if !ran[0].Load() || ran[1].Load() || !ran[2].Load() {
		t.Errorf("ran %v %v %v, want the live rollouts 0 and 2 only", ran[0].Load(), ran[1].Load(), ran[2].Load())
	}
	if out.Load() != 0 {
		t.Errorf("%d borrowed workers not given back", out.Load())
	}
}
