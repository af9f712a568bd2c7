package das

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/rl"
	"github.com/schedlab/schedlab/training/trainingtest"
)

// TestEvaluateMatchesBehaviour: the agents' Evaluate, on the steps just
// collected and the same parameters, gives the log-probabilities recorded
// while acting, so PPO's first ratio is 1.
func TestEvaluateMatchesBehaviour(t *testing.T) {
	eachVariant(t, 120, 3, func(t *testing.T, c *sim.Cluster, cfg Config, sp daspaper.Split) {
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

// TestAgentGradients checks, for every variant and both agents, the
// gradient of a PPO-shaped loss Σ w_i log π_i + Σ u_i H_i (the form
// rl hands to Backward) against central finite differences, for a few
// entries of every parameter. This covers everything composed here on
// top of nn's checked operators: the gate, the position embedding, the
// masked per-decision sums, the random-walk feature map, the GP posterior
// (CholSolve of the history kernel, the learned mean, the variance floor
// through exp(½ log ·)) and the MLP placement head.
func TestAgentGradients(t *testing.T) {
	eachVariant(t, 150, 5, func(t *testing.T, c *sim.Cluster, cfg Config, sp daspaper.Split) {
		// Non-zero heads, so that every path carries gradient.
		m := noisyModel(cfg, "test", 2, 0.1)
		out := collectEpisode(t, m, c, sp, 2)
		// Steps that placed something and, for the GP, had history.
		var steps []*rl.Step[*Obs]
		for i := range out.plc.Steps {
			s := &out.plc.Steps[i]
			if len(s.Obs.Placed) > 0 && (len(s.Obs.Hist) > 1 || !cfg.rwgp()) {
				steps = append(steps, s)
			}
			if len(steps) == 4 {
				break
			}
		}
		if len(steps) == 0 {
			t.Fatal("no step with placements and history")
		}
		ordSteps := make([]*rl.Step[*Obs], len(steps))
		for i, s := range steps {
			ordSteps[i] = &out.ord.Steps[indexOf(out.plc.Steps, s)]
		}
		w := []float64{0.7, -1.1, 0.4, 0.9}[:len(steps)]
		u := []float64{0.3, 0.2, -0.5, 0.1}[:len(steps)]
		gradCheck(t, "order", m, &orderAgent{m: m}, ordSteps, w, u)
		gradCheck(t, "place", m, &placeAgent{m: m}, steps, w, u)
	})
}

func indexOf(steps []rl.Step[*Obs], s *rl.Step[*Obs]) int {
	for i := range steps {
		if &steps[i] == s {
			return i
		}
	}
	panic("step not found")
}

func gradCheck(t *testing.T, name string, m *Model, a rl.ActorCritic[*Obs], steps []*rl.Step[*Obs], w, u []float64) {
	t.Helper()
	n := len(steps)
	lp, ent := make([]float64, n), make([]float64, n)
	loss := func() float64 {
		a.Evaluate(steps, lp, ent, nil)
		s := 0.0
		for i := range lp {
			s += w[i]*lp[i] + u[i]*ent[i]
		}
		return s
	}
	m.ps.ZeroGrad()
	loss()
	a.Backward(w, u, nil)
	c := trainingtest.CheckGradients(t, name, m.ps, loss)
	t.Logf("%s: %d entries of %d parameters (%d with a gradient), worst relative error %.2g", name, c.Checked, len(m.ps.List()), c.Live, c.Worst)
}
