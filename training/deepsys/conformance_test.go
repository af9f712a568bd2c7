package deepsys_test

import (
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/deepsys"
)

// perturb adds N(0, 0.3²) noise to every parameter, so that an untrained
// model's choices are not those of one fixed initialisation (and differ
// between servers that a zero-bias start would score alike).
func perturb(seed uint64, xs [][]float64) {
	rng := pipeline.Rand(seed, "test", "conformance-noise")
	for _, x := range xs {
		for i := range x {
			x[i] += 0.3 * rng.NormFloat64()
		}
	}
}

// TestConformance runs DeepSys's speed model and Atte, untrained with
// perturbed parameters, through the shared sim.Scheduler harness (flat,
// fat-tree and BCube clusters; PAI-like and MARL-like jobs).
func TestConformance(t *testing.T) {
	t.Run(deepsys.VariantDeepSys, func(t *testing.T) {
		schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
			m, err := deepsys.NewSpeedModel(deepsys.DefaultSpeedConfig(), pipeline.Rand(seed, "test", "conformance"))
			if err != nil {
				return nil, err
			}
			var xs [][]float64
			for _, p := range m.Params().List() {
				xs = append(xs, p.Data)
			}
			perturb(seed, xs)
			return m.Scheduler(), nil
		}, 60)
	})
	t.Run(deepsys.VariantAtte, func(t *testing.T) {
		schedulerstest.Run(t, func(seed uint64) (sim.Scheduler, error) {
			a, err := deepsys.NewAtte(deepsys.DefaultAtteConfig(), pipeline.Rand(seed, "test", "conformance"))
			if err != nil {
				return nil, err
			}
			var xs [][]float64
			for _, p := range a.Params().List() {
				xs = append(xs, p.Data)
			}
			perturb(seed, xs)
			return a.Scheduler(), nil
		}, 60)
	})
}
