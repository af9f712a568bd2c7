package marl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training/nn"
)

// TestLearnerMatchesBatchedPass checks the learner's gradient, the inner
// stack and the group scorer's candidate half back-propagated per row
// version over chunks of segmentChunk steps (nn.ECCSegment), against one
// batched pass of the same steps on a tape, to rounding: a segment of
// more than one chunk, for every variant.
func TestLearnerMatchesBatchedPass(t *testing.T) {
	c := simtest.FatTree(t, 4, "power8")
	for _, variant := range Variants() {
		t.Run(variant, func(t *testing.T) {
			cfg := VariantConfig(variant)
			rng := rand.New(rand.NewPCG(7, 8))
			jobs := handJobs(120, 4, rng)
			for i := range jobs {
				jobs[i].SubmitS = 0 // all pending at the first decision point
			}
			pol, ev, steps := agentSteps(t, c, cfg, 5, jobs, rng)
			if len(steps) <= segmentChunk {
				t.Fatalf("only %d decisions of the agent, want more than %d", len(steps), segmentChunk)
			}
			n := len(steps)
			wl, we, wv := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := range wl {
				wl[i], we[i], wv[i] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			}
			ps := pol.net.ps
			ps.ZeroGrad()
			lrn := &learner{e: ev}
			lrn.Evaluate(steps, make([]float64, n), make([]float64, n), make([]float64, n))
			lrn.Backward(wl, we, wv)
			got := map[string][]float64{}
			for _, p := range ps.List() {
				got[p.Name] = append([]float64(nil), p.Grad...)
			}
			// One batched pass: every step's graph in one block.
			ps.ZeroGrad()
			var tp nn.Tape
			os, actions := make([]*obs, n), make([]int, n)
			for i, s := range steps {
				os[i], actions[i] = s.Obs, s.Action.Index
			}
			logits, values, mask := ev.forward(&tp, os, nil)
			lp := tp.CategoricalLogProb(logits, mask, actions)
			ent := tp.CategoricalEntropy(logits, mask)
			loss := tp.Add(tp.Add(tp.Sum(tp.Mul(lp, tp.Const(lp.Rows, lp.Cols, wl))), tp.Sum(tp.Mul(ent, tp.Const(ent.Rows, ent.Cols, we)))),
				tp.Sum(tp.Mul(values, tp.Const(values.Rows, values.Cols, wv))))
			tp.Backward(loss)
			worst := 0.0
			for _, p := range ps.List() {
				scale := 0.0
				for _, v := range p.Grad {
					scale = math.Max(scale, math.Abs(v))
				}
				for i, v := range p.Grad {
					e := math.Abs(got[p.Name][i]-v) / math.Max(scale, 1e-12)
					worst = math.Max(worst, e)
					if e > 1e-9 {
						t.Fatalf("%s[%d]: learner %.17g, batched pass %.17g", p.Name, i, got[p.Name][i], v)
					}
				}
			}
			t.Logf("%s: %d steps, worst difference %.2g of a parameter's largest gradient", variant, n, worst)
		})
	}
}
