package marl_test

import (
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/marl"
)

// TestConformance runs every variant through the shared sim.Scheduler
// harness, untrained but with its parameters perturbed (so that the
// placements are not those of one fixed initialisation) and sampling its
// actions (so that forwarding and every feasible action get exercised,
// not only the greedy ones). The harness's scenarios include a flat
// cluster (one pod, no switches above the servers) and PAI-like jobs with
// no parameter servers, no model and fractional GPUs, none of which the
// MARL workload has.
func TestConformance(t *testing.T) {
	for _, v := range marl.Variants() {
		t.Run(v, func(t *testing.T) {
			schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
				pol, err := marl.NewPolicy(tinyConfig(v), seed)
				if err != nil {
					return nil, err
				}
				pol.Params().Perturb(0.3, pipeline.Rand(seed, "test", "conformance-noise"))
				return pol.Scheduler(marl.SchedulerOptions{Sample: true, Seed: seed}), nil
			}, 60)
		})
	}
}
