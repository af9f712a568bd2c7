package deepsys_test

import (
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/deepsys"
	"github.com/schedlab/schedlab/training/nn"
)

// perturbed adds N(0, 0.3²) noise to every parameter of m, so that an
// untrained model's choices are not those of one fixed initialisation (and
// differ between servers that a zero-bias start would score alike), and
// returns m's scheduler; err is m's constructor's.
func perturbed(seed uint64, m interface {
	Params() *nn.Params
	Scheduler() sim.Scheduler
}, err error) (sim.Scheduler, error) {
	if err != nil {
		return nil, err
	}
	rng := pipeline.Rand(seed, "test", "conformance-noise")
	for _, p := range m.Params().List() {
		for i := range p.Data {
			p.Data[i] += 0.3 * rng.NormFloat64()
		}
	}
	return m.Scheduler(), nil
}

// TestConformance runs DeepSys's speed model and Atte, untrained with
// perturbed parameters, through the shared sim.Scheduler harness (flat,
// fat-tree and BCube clusters; PAI-like and MARL-like jobs).
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		variant string
		build   func(seed uint64) (sim.Scheduler, error)
	}{
		{deepsys.VariantDeepSys, func(seed uint64) (sim.Scheduler, error) {
			m, err := deepsys.NewSpeedModel(deepsys.DefaultSpeedConfig(), pipeline.Rand(seed, "test", "conformance"))
			return perturbed(seed, m, err)
		}},
		{deepsys.VariantAtte, func(seed uint64) (sim.Scheduler, error) {
			a, err := deepsys.NewAtte(deepsys.DefaultAtteConfig(), pipeline.Rand(seed, "test", "conformance"))
			return perturbed(seed, a, err)
		}},
	} {
		t.Run(tc.variant, func(t *testing.T) { schedulerstest.Run(t, tc.build, 60) })
	}
}
