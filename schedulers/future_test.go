package schedulers_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

// TestNoFutureReads: no heuristic's decisions change when the true
// durations of jobs not yet finished are permuted (DESIGN.md §4, "What a
// scheduler sees"), and each oracle's do, which shows the check can fail.
// Two permutation seeds; the jobs have a handful of users so that MALO's
// and MOSA's estimates differ per user.
func TestNoFutureReads(t *testing.T) {
	c, _ := sim.Flat(4, "pai-v100")
	n, rate := 80, 0.02
	if raceEnabled {
		n = 30
	}
	jobs := schedulerstest.PAILike(n, rate, 13)
	for i := range jobs {
		jobs[i].User = fmt.Sprintf("u%d", i%5)
	}
	for _, name := range schedulers.Heuristics() {
		t.Run(string(name), func(t *testing.T) {
			opts := schedulers.Options{Seed: 3, DataDir: sharedDataDir()}
			if _, err := schedulers.New(name, opts); errors.Is(err, schedulers.ErrNeedsData) {
				t.Skipf("%v", err)
			}
			for _, seed := range []uint64{1, 2} {
				diff, err := schedulerstest.FutureDependence(context.Background(), func() (sim.Scheduler, error) {
					return schedulers.New(name, opts)
				}, c, jobs, sim.DefaultConfig(), seed)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case name.Oracle() && diff == "":
					t.Errorf("seed %d: an oracle decided alike on permuted durations: the check cannot see the future", seed)
				case !name.Oracle() && diff != "":
					t.Errorf("seed %d: reads the future: %s", seed, diff)
				}
			}
		})
	}
}
