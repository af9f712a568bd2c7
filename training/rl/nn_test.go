package rl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/training/nn"
)

// mlpAC is an actor-critic on training/nn, the way the learned families
// plug a network into this package: Evaluate records the networks on a
// tape; Backward forms the linear surrogate Σ dLogp·logp + Σ dEnt·H +
// Σ dV·V, whose gradient is exactly the chain rule through the given
// partial derivatives, and back-propagates it; Step is Adam.
type mlpAC struct {
	features func(s int) []float64
	nFeat    int
	ps       *nn.Params
	actor    *nn.MLP
	critic   *nn.MLP
	opt      *nn.Adam
	tape     nn.Tape
	logp     *nn.Node
	ent      *nn.Node
	val      *nn.Node
	obs      []float64
	acts     []int
}

func newMLPAC(nFeat, actions int, features func(int) []float64, seed uint64) *mlpAC {
	rng := rand.New(rand.NewPCG(seed, 0))
	m := &mlpAC{features: features, nFeat: nFeat, ps: nn.NewParams()}
	m.actor = nn.NewMLP(m.ps, "actor", []int{nFeat, 32, actions}, nn.Tanh, rng)
	m.critic = nn.NewMLP(m.ps, "critic", []int{nFeat, 32, 1}, nn.Tanh, rng)
	m.opt = nn.NewAdam(m.ps, nn.AdamConfig{LR: 3e-3, MaxGradNorm: 1})
	return m
}

func (m *mlpAC) encode(steps []*Step[int]) *nn.Node {
	m.obs = m.obs[:0]
	m.acts = m.acts[:0]
	for _, s := range steps {
		m.obs = append(m.obs, m.features(s.Obs)...)
		m.acts = append(m.acts, s.Action.Index)
	}
	return m.tape.Const(len(steps), m.nFeat, m.obs)
}

// act samples an action in state s and returns it, its log-probability
// and V(s).
func (m *mlpAC) act(s int, rng *rand.Rand) (int, float64, float64) {
	m.tape.Reset()
	x := m.tape.Const(1, m.nFeat, m.features(s))
	logits := m.actor.Forward(&m.tape, x)
	p := m.tape.Softmax(logits)
	a := sample(p.Data, rng)
	return a, math.Log(p.Data[a]), m.critic.Forward(&m.tape, x).Scalar()
}

func (m *mlpAC) Evaluate(steps []*Step[int], logp, ent, value []float64) {
	m.tape.Reset()
	x := m.encode(steps)
	logits := m.actor.Forward(&m.tape, x)
	m.logp = m.tape.CategoricalLogProb(logits, nil, m.acts)
	m.ent = m.tape.CategoricalEntropy(logits, nil)
	copy(logp, m.logp.Data)
	copy(ent, m.ent.Data)
	m.val = nil
	if value != nil {
		m.val = m.critic.Forward(&m.tape, x)
		copy(value, m.val.Data)
	}
}

func (m *mlpAC) Backward(dLogp, dEnt, dValue []float64) {
	t := &m.tape
	n := len(dLogp)
	loss := t.Add(t.Sum(t.Mul(m.logp, t.Const(n, 1, dLogp))), t.Sum(t.Mul(m.ent, t.Const(n, 1, dEnt))))
	if m.val != nil {
		loss = t.Add(loss, t.Sum(t.Mul(m.val, t.Const(n, 1, dValue))))
	}
	t.Backward(loss)
}

func (m *mlpAC) Step() { m.opt.Step() }

// TestPPOWithNetworkGrid: PPO trains a two-layer network policy and
// critic (training/nn) on the 5×5 gridworld from (x, y) features; within
// 150 updates of 256 steps the greedy policy walks a shortest path (8
// steps) to the goal. This is the interface the learned families use.
func TestPPOWithNetworkGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a network for a few seconds")
	}
	env := grid{w: 5, h: 5}
	feat := func(s int) []float64 {
		x, y := env.xy(s)
		return []float64{float64(x) / 4, float64(y) / 4, 1}
	}
	m := newMLPAC(3, 4, feat, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	cfg := DefaultPPOConfig()
	var r Rollout[int]
	s, k := env.start(), 0
	greedyPath := func() int {
		s := env.start()
		for steps := 1; steps <= 50; steps++ {
			m.tape.Reset()
			logits := m.actor.Forward(&m.tape, m.tape.Const(1, 3, feat(s)))
			next, _, done := env.step(s, Argmax(logits.Data))
			if done {
				return steps
			}
			s = next
		}
		return -1
	}
	if steps := greedyPath(); steps == env.shortest() {
		t.Fatalf("the untrained network already walks a shortest path: nothing to learn")
	}
	for u := 0; u < 150; u++ {
		r.Reset()
		for i := 0; i < 256; i++ {
			a, lp, v := m.act(s, rng)
			next, rew, done := env.step(s, a)
			k++
			if k == 50 { // time limit: cut the episode (treated as terminal)
				done = true
			}
			r.Add(Step[int]{Obs: s, Action: Action{Index: a}, Reward: rew, Done: done, Value: v, LogProb: lp})
			s = next
			if done {
				s, k = env.start(), 0
			}
		}
		_, _, last := m.act(s, rng)
		r.ComputeGAE(0.99, 0.95, last)
		PPOUpdate[int](m, &r, cfg, true, rng)
		if steps := greedyPath(); steps == env.shortest() {
			t.Logf("shortest path after %d updates", u+1)
			return
		}
	}
	t.Fatalf("greedy path takes %d steps after 150 updates, want %d", greedyPath(), env.shortest())
}
