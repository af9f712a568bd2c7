package dl2

import (
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

func TestConformance(t *testing.T) {
	schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
		m := NewModel(tiny(), pipeline.Rand(seed, "test", "conformance"))
		rng := pipeline.Rand(seed, "test", "conformance-noise")
		for _, p := range m.Params().List() {
			for i := range p.Data {
				p.Data[i] += 0.3 * rng.NormFloat64()
			}
		}
		return NewScheduler(m), nil
	}, 60)
}
