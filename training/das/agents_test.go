package das

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/rl"
)

// TestEvaluateMatchesBehaviour: the agents' Evaluate, on the steps just
// collected and the same parameters, gives the log-probabilities recorded
// while acting, so PPO's first ratio is 1.
func TestEvaluateMatchesBehaviour(t *testing.T) {
	c := simtest.Preset(t, "small")
	for _, v := range Variants() {
		t.Run(v, func(t *testing.T) {
			cfg := tinyConfig(v)
			sp := prepareSynth(t, c, cfg, 120, 3)
			m := NewModel(cfg, pipeline.Rand(1, "test", "init"))
			out := collectEpisode(t, m, c, sp, 1)
			n := out.ord.Len()
			if n == 0 {
				t.Fatal("no decisions")
			}
			steps := make([]*rl.Step[*Obs], n)
			for i := range steps {
				steps[i] = &out.ord.Steps[i]
			}
			check := func(name string, a rl.ActorCritic[*Obs], r *rl.Rollout[*Obs]) {
				for i := range steps {
					steps[i] = &r.Steps[i]
				}
				lp, ent := make([]float64, n), make([]float64, n)
				a.Evaluate(steps, lp, ent, nil)
				for i := range lp {
					if d := math.Abs(lp[i] - r.Steps[i].LogProb); d > 1e-9*(1+math.Abs(lp[i])) {
						t.Fatalf("%s step %d: evaluate %v, behaviour %v", name, i, lp[i], r.Steps[i].LogProb)
					}
				}
			}
			check("order", &orderAgent{m: m}, out.ord)
			check("place", &placeAgent{m: m}, out.plc)
		})
	}
}
