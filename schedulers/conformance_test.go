package schedulers_test

import (
	"errors"
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

func TestConformance(t *testing.T) {
	for _, name := range schedulers.Heuristics() {
		t.Run(string(name), func(t *testing.T) {
			n := 120
			if isMeta(name) {
				n = 80 // thousands of surrogate evaluations per decision
			}
			if raceEnabled {
				// Ten times as slow under the detector, which has no
				// goroutine to watch in sim or schedulers: a third of
				// the jobs still queue in every scenario (make
				// test-norace runs them all).
				n /= 3
			}
			if _, err := schedulers.New(name, schedulers.Options{DataDir: sharedDataDir()}); errors.Is(err, schedulers.ErrNeedsData) {
				t.Skip(err)
			}
			schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
				return schedulers.New(name, schedulers.Options{Seed: seed, DataDir: sharedDataDir()})
			}, n)
		})
	}
}

// isMeta reports whether name is MALO or MOSA (fair or oracle): a search
// per decision, which tests run on fewer jobs.
func isMeta(name schedulers.Name) bool {
	switch name {
	case "malo", "mosa", "malo-oracle", "mosa-oracle":
		return true
	}
	return false
}
