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
		m.Params().Perturb(0.3, pipeline.Rand(seed, "test", "conformance-noise"))
		return NewScheduler(m), nil
	}, 60)
}
