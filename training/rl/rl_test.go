package rl

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGAE(t *testing.T) {
	rew := []float64{1, 0, 2, 1}
	val := []float64{0.5, 0.4, 0.3, 0.2}
	done := []bool{false, true, false, false}
	const gamma, last = 0.9, 0.7
	adv, ret := make([]float64, 4), make([]float64, 4)

	// λ = 0: the one-step TD error, no bootstrap across the done at t=1.
	GAE(adv, ret, rew, val, done, last, gamma, 0)
	want := []float64{1 + 0.9*0.4 - 0.5, 0 - 0.4, 2 + 0.9*0.2 - 0.3, 1 + 0.9*0.7 - 0.2}
	for i := range want {
		if math.Abs(adv[i]-want[i]) > 1e-15 || math.Abs(ret[i]-(want[i]+val[i])) > 1e-15 {
			t.Errorf("λ=0: adv[%d] = %v, want %v", i, adv[i], want[i])
		}
	}
	// λ = 1: the discounted return (bootstrapped from last at the end)
	// minus the value.
	GAE(adv, ret, rew, val, done, last, gamma, 1)
	g := []float64{1 + 0.9*0, 0, 2 + 0.9*(1+0.9*0.7), 1 + 0.9*0.7}
	for i := range g {
		if math.Abs(adv[i]-(g[i]-val[i])) > 1e-14 || math.Abs(ret[i]-g[i]) > 1e-14 {
			t.Errorf("λ=1: ret[%d] = %v, want %v", i, ret[i], g[i])
		}
	}
	dr := make([]float64, 4)
	DiscountedReturns(dr, rew, done, gamma)
	for i, w := range []float64{1, 0, 2 + 0.9, 1} {
		if math.Abs(dr[i]-w) > 1e-15 {
			t.Errorf("DiscountedReturns[%d] = %v, want %v", i, dr[i], w)
		}
	}
}

// recorder is an ActorCritic that returns fixed outputs and records the
// loss derivatives it is given, to check them against central differences
// of the loss each algorithm documents.
type recorder struct {
	logp, ent, val    []float64
	dLogp, dEnt, dVal []float64
}

func (r *recorder) Evaluate(steps []*Step[int], logp, ent, value []float64) {
	for i, s := range steps {
		logp[i], ent[i] = r.logp[s.Obs], r.ent[s.Obs]
		if value != nil {
			value[i] = r.val[s.Obs]
		}
	}
}

func (r *recorder) Backward(dLogp, dEnt, dValue []float64) {
	r.dLogp = append(r.dLogp[:0], dLogp...)
	r.dEnt = append(r.dEnt[:0], dEnt...)
	r.dVal = append(r.dVal[:0], dValue...)
}

func (r *recorder) Step() {}

// TestPPOLossGradient checks PPOUpdate's loss derivatives against central
// differences of the documented clipped loss (h = 1e-6 on O(1) values:
// the loss is piecewise linear/quadratic, so away from a kink the
// difference is exact to rounding, ~1e-10).
func TestPPOLossGradient(t *testing.T) {
	cfg := PPOConfig{Clip: 0.2, ValueCoef: 0.5, EntropyCoef: 0.03, Epochs: 1, Minibatch: 8}
	var r Rollout[int]
	rng := rand.New(rand.NewPCG(1, 2))
	n := 8
	rec := &recorder{}
	for i := 0; i < n; i++ {
		// log-ratios spread over both sides of the clip range.
		old := -1 + 0.1*rng.NormFloat64()
		rec.logp = append(rec.logp, old+0.5*rng.NormFloat64())
		rec.ent = append(rec.ent, rng.Float64())
		rec.val = append(rec.val, rng.NormFloat64())
		r.Add(Step[int]{Obs: i, LogProb: old})
		r.Advantages = append(r.Advantages, rng.NormFloat64())
		r.Returns = append(r.Returns, rng.NormFloat64())
	}
	loss := func(logp, ent, val []float64) float64 {
		l := 0.0
		for i := range logp {
			ratio := math.Exp(logp[i] - r.Steps[i].LogProb)
			a := r.Advantages[i]
			c := math.Max(1-cfg.Clip, math.Min(1+cfg.Clip, ratio))
			d := val[i] - r.Returns[i]
			l += -math.Min(ratio*a, c*a) + cfg.ValueCoef*d*d - cfg.EntropyCoef*ent[i]
		}
		return l / float64(len(logp))
	}
	PPOUpdate[int](rec, &r, cfg, true, rand.New(rand.NewPCG(3, 4)))
	// The update shuffles: map the recorded derivatives back by Obs.
	// Minibatch = n, so one minibatch in shuffled order; recompute it.
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	rand.New(rand.NewPCG(3, 4)).Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	const h = 1e-6
	for k, i := range perm {
		for _, c := range []struct {
			name string
			x    []float64
			got  float64
		}{{"logp", rec.logp, rec.dLogp[k]}, {"entropy", rec.ent, rec.dEnt[k]}, {"value", rec.val, rec.dVal[k]}} {
			x0 := c.x[i]
			c.x[i] = x0 + h
			up := loss(rec.logp, rec.ent, rec.val)
			c.x[i] = x0 - h
			down := loss(rec.logp, rec.ent, rec.val)
			c.x[i] = x0
			fd := (up - down) / (2 * h)
			if math.Abs(fd-c.got) > 1e-7 {
				t.Errorf("step %d: ∂L/∂%s = %v, central difference %v", i, c.name, c.got, fd)
			}
		}
	}
}

// TestPPOBandit: PPO with a softmax policy finds the best of 5 arms.
// Known optimum: arm 2; it must hold ≥ 95 % of the probability after 60
// updates of 64 pulls (3,840 pulls; measured: about 25 updates suffice).
func TestPPOBandit(t *testing.T) {
	env := bandit{means: []float64{0.1, 0.5, 0.9, 0.3, 0.2}, noise: 0.5}
	rng := rand.New(rand.NewPCG(7, 7))
	m := newSoftmaxAC(1, 5, 0.1, 0.1)
	cfg := DefaultPPOConfig()
	cfg.Minibatch = 32
	trainBandit(m, env, cfg, 60, 64, rng)
	p := m.policy(nil, 0)
	if p[env.best()] < 0.95 {
		t.Fatalf("π(best arm) = %.3f after 60 updates, want ≥ 0.95 (π = %.3f)", p[env.best()], p)
	}
}

// runChain collects one episode of the chain under m.
func runChain(env chain, m *softmaxAC, r *Rollout[int], rng *rand.Rand) float64 {
	s, ret := 0, 0.0
	for {
		a, lp := m.act(s, rng)
		next, rew, done := env.step(s, a)
		r.Add(Step[int]{Obs: s, Action: Action{Index: a}, Reward: rew, Done: done, Value: m.v[s], LogProb: lp})
		ret += rew
		if done {
			return ret
		}
		s = next
	}
}

// alwaysRight reports whether the greedy policy of m goes right in every
// non-terminal state of the chain, with probability ≥ p.
func alwaysRight(env chain, m *softmaxAC, p float64) bool {
	for s := 0; s < env.n-1; s++ {
		if m.policy(nil, s)[1] < p {
			return false
		}
	}
	return true
}

// TestA2CChain: advantage actor-critic with the TD(0) advantage learns to
// walk a 6-state chain past the tempting quit action (optimal return
// γ^4 = 0.656 at γ 0.9, against 0.2 for quitting) within 3,000 episodes
// of one update each, for each of 5 seeds (measured: 680–1,400 episodes).
func TestA2CChain(t *testing.T) {
	env := chain{n: 6, quit: 0.2}
	cfg := PGConfig{Gamma: 0.9, ValueCoef: 0.5, EntropyCoef: 0.05}
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		m := newSoftmaxAC(env.n, 2, 0.5, 1)
		var r Rollout[int]
		ep := 0
		for ; ep < 3000 && !alwaysRight(env, m, 0.95); ep++ {
			r.Reset()
			runChain(env, m, &r, rng)
			A2CUpdate[int](m, &r, cfg, 0)
		}
		if !alwaysRight(env, m, 0.95) {
			t.Fatalf("seed %d: not optimal after 3000 episodes: π(right|s) = %v", seed, rightProbs(env, m))
		}
		t.Logf("seed %d: optimal after %d episodes", seed, ep)
	}
}

// TestREINFORCEChain: REINFORCE with a learned baseline on the same chain,
// within 3,000 episodes.
func TestREINFORCEChain(t *testing.T) {
	env := chain{n: 6, quit: 0.2}
	rng := rand.New(rand.NewPCG(12, 1))
	m := newSoftmaxAC(env.n, 2, 0.5, 0.5)
	cfg := PGConfig{Gamma: 0.9, ValueCoef: 0.5}
	var r Rollout[int]
	for ep := 0; ep < 3000; ep++ {
		r.Reset()
		runChain(env, m, &r, rng)
		REINFORCEUpdate[int](m, &r, cfg)
		if alwaysRight(env, m, 0.95) {
			t.Logf("optimal after %d episodes", ep+1)
			return
		}
	}
	t.Fatalf("not optimal after 3000 episodes: π(right|s) = %v", rightProbs(env, m))
}

func rightProbs(env chain, m *softmaxAC) []float64 {
	var p []float64
	for s := 0; s < env.n-1; s++ {
		p = append(p, m.policy(nil, s)[1])
	}
	return p
}

// TestQLearningGrid: tabular Q-learning with ε-greedy exploration on a
// 5×5 gridworld; after 400 episodes the greedy policy reaches the goal
// along a shortest path (8 steps).
func TestQLearningGrid(t *testing.T) {
	env := grid{w: 5, h: 5}
	rng := rand.New(rand.NewPCG(5, 5))
	q := NewQTable(env.states(), 4, 0.5, 0.95)
	ex := EpsilonGreedy{Epsilon: 0.2}
	for ep := 0; ep < 400; ep++ {
		s := env.start()
		for k := 0; k < 200; k++ {
			a := q.Act(s, ex, rng)
			next, r, done := env.step(s, a)
			q.Update(s, a, r, next, done)
			if done {
				break
			}
			s = next
		}
	}
	s, steps := env.start(), 0
	for ; steps < 100; steps++ {
		next, _, done := env.step(s, Argmax(q.Values(s)))
		s = next
		if done {
			steps++
			break
		}
	}
	if s != env.goal() || steps != env.shortest() {
		t.Fatalf("greedy policy: %d steps ending in state %d, want %d steps to %d", steps, s, env.shortest(), env.goal())
	}
}

// TestUCBBandit: UCB1 over sample-average estimates (QTable with one state
// and α = 1/n via the update below) pulls the best of 5 arms in ≥ 85 % of
// 3,000 pulls; its regret grows logarithmically.
func TestUCBBandit(t *testing.T) {
	env := bandit{means: []float64{0.1, 0.5, 0.9, 0.3, 0.2}, noise: 0.5}
	rng := rand.New(rand.NewPCG(9, 9))
	q := NewQTable(1, 5, 0, 0)
	ex := UCB{C: math.Sqrt(2)}
	for i := 0; i < 3000; i++ {
		a := q.Act(0, ex, rng)
		q.Alpha = 1 / float64(q.N[a]) // sample average
		q.Update(0, a, env.pull(a, rng), 0, true)
	}
	if share := float64(q.N[env.best()]) / 3000; share < 0.85 {
		t.Fatalf("UCB pulled the best arm %.1f %% of the time, want ≥ 85 %% (counts %v)", 100*share, q.N)
	}
}

// TestLinearQChain: semi-gradient Q-learning with one-hot features (so the
// approximator can represent Q exactly) learns "always right" on the chain
// within 3,000 episodes. Q-learning is off-policy, so the behaviour can be
// uniformly random (ε = 1): a greedy-leaning walk would hardly ever reach
// the far end past the quit action.
func TestLinearQChain(t *testing.T) {
	env := chain{n: 6, quit: 0.2}
	rng := rand.New(rand.NewPCG(4, 4))
	l := NewLinearQ(env.n, 2, 0.3, 0.9)
	phi := func(s int) []float64 {
		f := make([]float64, env.n)
		f[s] = 1
		return f
	}
	ex := EpsilonGreedy{Epsilon: 1}
	for ep := 0; ep < 3000; ep++ {
		s := 0
		for {
			a := l.Act(phi(s), ex, rng)
			next, r, done := env.step(s, a)
			l.Update(phi(s), a, r, phi(next), done)
			if done {
				break
			}
			s = next
		}
	}
	for s := 0; s < env.n-1; s++ {
		q := l.Values(nil, phi(s))
		if Argmax(q) != 1 {
			t.Fatalf("state %d: Q = %v, greedy action is not right", s, q)
		}
		// Q*(s, right) = γ^(n−2−s).
		if want := math.Pow(0.9, float64(env.n-2-s)); math.Abs(q[1]-want) > 0.02 {
			t.Errorf("state %d: Q(right) = %.4f, want %.4f", s, q[1], want)
		}
	}
}

// TestMAPPOCoordination: two agents choose one of three actions each and
// share the reward 1 when both pick 2, 0.5 when they pick the same other
// action, 0 otherwise. MAPPO with a centralised critic (target copy every
// 2 updates) reaches the joint optimum (2, 2) with probability ≥ 0.9
// within 80 updates of 64 joint steps.
func TestMAPPOCoordination(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	a1, a2 := newSoftmaxAC(1, 3, 0.1, 0), newSoftmaxAC(1, 3, 0.1, 0)
	critic := newTabularCritic(1, 0.2)
	cfg := DefaultMAPPOConfig()
	cfg.PPO.Minibatch = 32
	m := &MAPPO[int]{Actors: []ActorCritic[int]{a1, a2}, Critic: critic, Config: cfg}
	r1, r2 := &Rollout[int]{}, &Rollout[int]{}
	reward := func(x, y int) float64 {
		switch {
		case x == 2 && y == 2:
			return 1
		case x == y:
			return 0.5
		}
		return 0
	}
	for u := 0; u < 80; u++ {
		r1.Reset()
		r2.Reset()
		for i := 0; i < 64; i++ {
			x, lx := a1.act(0, rng)
			y, ly := a2.act(0, rng)
			rew := reward(x, y)
			r1.Add(Step[int]{Obs: 0, Action: Action{Index: x}, Reward: rew, Done: true, LogProb: lx})
			r2.Add(Step[int]{Obs: 0, Action: Action{Index: y}, Reward: rew, Done: true, LogProb: ly})
		}
		m.Update([]*Rollout[int]{r1, r2}, 0, rng)
	}
	p := a1.policy(nil, 0)[2] * a2.policy(nil, 0)[2]
	if p < 0.9 {
		t.Fatalf("P(joint optimum) = %.3f after 80 updates, want ≥ 0.9", p)
	}
	if critic.syncs != 40 {
		t.Errorf("target synced %d times in 80 updates, want 40 (z = 2)", critic.syncs)
	}
	if math.Abs(critic.v[0]-1) > 0.1 {
		t.Errorf("critic V = %.3f, want ≈ 1 at the optimum", critic.v[0])
	}
}

// TestPPODeterministic: a fixed seed gives bit-identical parameters.
func TestPPODeterministic(t *testing.T) {
	train := func() []float64 {
		env := bandit{means: []float64{0.1, 0.5, 0.9}, noise: 0.5}
		rng := rand.New(rand.NewPCG(1, 1))
		m := newSoftmaxAC(1, 3, 0.1, 0.1)
		trainBandit(m, env, DefaultPPOConfig(), 10, 32, rng)
		return append(m.theta, m.v...)
	}
	a, b := train(), train()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("parameter %d differs between runs: %v vs %v", i, a[i], b[i])
		}
	}
}
