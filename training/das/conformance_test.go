package das

import (
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

// TestConformance runs every variant, with random non-zero weights (the
// zero start would make it FIFO first-fit), through the shared
// sim.Scheduler harness.
func TestConformance(t *testing.T) {
	for _, v := range Variants() {
		t.Run(v, func(t *testing.T) {
			schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
				m := NewModel(tinyConfig(v), pipeline.Rand(seed, "test", "conformance"))
				m.Params().Perturb(0.3, pipeline.Rand(seed, "test", "conformance-noise"))
				return NewScheduler(m), nil
			}, 60)
		})
	}
}
