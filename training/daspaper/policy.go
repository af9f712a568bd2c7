package daspaper

import (
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// PolicyObs is one choice of a baseline's discrete policy: its flat
// feature vector and the actions that may be chosen.
type PolicyObs struct {
	X    []float64
	Mask []bool
}

// Categorical is the actor-critic the RL baselines train with PPO (DAS
// App. D: "PPO, the single-agent version of MAPPO"): a two-layer MLP of
// the logits of a masked categorical policy and another of the state
// value, on the same input, with one Adam. The logits' last layer starts
// at zero, so the untrained deterministic policy (Pick without rng) takes
// the allowed action of lowest index. It implements rl.ActorCritic.
type Categorical struct {
	ps       *nn.Params
	pol, val *nn.MLP
	opt      *nn.Adam

	t          nn.Tape
	lp, ent, v *nn.Node
	batch      int
}

// NewCategorical builds the networks for inputs of width in and the given
// number of actions, drawing the initial weights from rng (the policy's,
// then the value's).
func NewCategorical(in, hidden, actions int, lr, maxGradNorm float64, rng *rand.Rand) *Categorical {
	ps := nn.NewParams()
	m := &Categorical{ps: ps,
		pol: nn.NewMLP(ps, "policy", []int{in, hidden, hidden, actions}, nn.ReLU, rng),
		val: nn.NewMLP(ps, "value", []int{in, hidden, hidden, 1}, nn.ReLU, rng),
	}
	clear(m.pol.Layers[len(m.pol.Layers)-1].W.Data)
	m.opt = nn.NewAdam(ps, nn.AdamConfig{LR: lr, MaxGradNorm: maxGradNorm})
	return m
}

// Params are the networks' parameters.
func (m *Categorical) Params() *nn.Params { return m.ps }

// Optimizer is the Adam of every update.
func (m *Categorical) Optimizer() *nn.Adam { return m.opt }

// Evaluate implements rl.ActorCritic.
func (m *Categorical) Evaluate(steps []*rl.Step[*PolicyObs], logp, entropy, value []float64) {
	t := &m.t
	t.Reset()
	B := len(steps)
	d, n := len(steps[0].Obs.X), len(steps[0].Obs.Mask)
	x := make([]float64, 0, B*d)
	mask := make([]bool, 0, B*n)
	acts := make([]int, B)
	for i, s := range steps {
		x = append(x, s.Obs.X...)
		mask = append(mask, s.Obs.Mask...)
		acts[i] = s.Action.Index
	}
	xn := t.Const(B, d, x)
	logits := m.pol.Forward(t, xn)
	m.lp = t.CategoricalLogProb(logits, mask, acts)
	m.ent = t.CategoricalEntropy(logits, mask)
	copy(logp, m.lp.Data)
	copy(entropy, m.ent.Data)
	m.v = nil
	if value != nil {
		m.v = m.val.Forward(t, xn)
		copy(value, m.v.Data)
	}
	m.batch = B
}

// Backward implements rl.ActorCritic.
func (m *Categorical) Backward(dLogp, dEntropy, dValue []float64) {
	t := &m.t
	B := m.batch
	loss := t.Add(t.Sum(t.Mul(m.lp, t.Const(B, 1, dLogp))), t.Sum(t.Mul(m.ent, t.Const(B, 1, dEntropy))))
	if dValue != nil && m.v != nil {
		loss = t.Add(loss, t.Sum(t.Mul(m.v, t.Const(B, 1, dValue))))
	}
	t.Backward(loss)
}

// Step implements rl.ActorCritic.
func (m *Categorical) Step() { m.opt.Step() }

// Pick chooses an allowed action: sampled from the policy with rng, else
// the arg max (ties to the lowest index). It returns the action (−1 when
// none is allowed), its log-probability and the state value.
func (m *Categorical) Pick(o *PolicyObs, rng *rand.Rand) (int, float64, float64) {
	t := &m.t
	t.Reset()
	x := t.Const(1, len(o.X), o.X)
	logits := m.pol.Forward(t, x).Data
	v := m.val.Forward(t, x).Data[0]
	// The masked log-softmax, as nn.CategoricalLogProb computes it.
	hi := math.Inf(-1)
	for a, ok := range o.Mask {
		if ok {
			hi = math.Max(hi, logits[a])
		}
	}
	if math.IsInf(hi, -1) {
		return -1, 0, v
	}
	sum := 0.0
	for a, ok := range o.Mask {
		if ok {
			sum += math.Exp(logits[a] - hi)
		}
	}
	lse := hi + math.Log(sum)
	best := -1
	for a, ok := range o.Mask {
		if ok && (best < 0 || logits[a] > logits[best]) {
			best = a
		}
	}
	choice := best
	if rng != nil {
		u := rng.Float64()
		for a, ok := range o.Mask {
			if !ok {
				continue
			}
			u -= math.Exp(logits[a] - lse)
			if u <= 0 {
				choice = a
				break
			}
		}
	}
	return choice, logits[choice] - lse, v
}
