package schedulers_test

import (
	"testing"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

func TestConformance(t *testing.T) {
	for _, name := range schedulers.Heuristics() {
		t.Run(string(name), func(t *testing.T) {
			n := 120
			if name == "malo" || name == "mosa" {
				n = 80 // thousands of surrogate evaluations per decision
			}
			schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) { return schedulers.New(name, schedulers.Options{Seed: seed}) }, n)
		})
	}
}
