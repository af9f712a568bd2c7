package schedulers

import "github.com/schedlab/schedlab/sim"

// BookAlways makes a walking policy (LAS, the sorted ones) book every
// first-pass job on the per-server ledger, as it does where
// runnable.counts does not hold, so a test can compare the two paths.
func BookAlways(s sim.Scheduler) {
	walker(s).noCount = true
}

// Counted is how many of a walking policy's walks counted GPUs in their
// first pass.
func Counted(s sim.Scheduler) int { return walker(s).counted }

// FillNever makes a walking policy's first pass subtract every instance
// of a many-instance booking (no runnable.fills), so a test can compare
// the two paths.
func FillNever(s sim.Scheduler) {
	walker(s).noFill = true
}

// Filled is how many runs of a walking policy's first-pass bookings were
// read from runnable.fills.
func Filled(s sim.Scheduler) int { return walker(s).filled }

func walker(s sim.Scheduler) *runnable {
	switch p := s.(type) {
	case *LAS:
		return &p.runnable
	case *sorted:
		return &p.runnable
	}
	panic("not a walking policy")
}
