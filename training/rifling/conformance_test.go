package rifling

import (
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

// TestConformance runs a policy with random groups and Q-values (waiting
// included) through the shared sim.Scheduler harness.
func TestConformance(t *testing.T) {
	schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
		rng := pipeline.Rand(seed, "test", "conformance")
		p := &Policy{Config: DefaultConfig(), Q: newTable(4)}
		for k := 0; k < 4; k++ {
			c := make([]float64, stateWidth)
			for i := range c {
				c[i] = rng.Float64()
			}
			p.Centroids = append(p.Centroids, c)
		}
		for i := range p.Q.Q {
			p.Q.Q[i] = rng.Float64()
		}
		return NewScheduler(p), nil
	}, 60)
}
