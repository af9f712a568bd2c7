package rl

// PGConfig configures the one-pass policy-gradient updates: advantage
// actor-critic (the MARL paper) and REINFORCE with a baseline.
type PGConfig struct {
	Gamma       float64 // discount
	ValueCoef   float64 // weight of the value regression
	EntropyCoef float64 // weight of the entropy bonus (0 in the MARL paper)
}

// A2CUpdate is one step of advantage actor-critic with the TD(0)
// advantage A_t = r_t + γ V(s_{t+1}) − V(s_t) of the MARL paper, over the
// whole rollout (lastValue is V of the state after its last step). The
// values stored in the steps are those of the current critic (on-policy),
// so the advantage is taken from them. Loss:
//
//	L = (1/n) Σ_t [ −A_t log π(a_t|s_t) + c_v (V(s_t) − R_t)² − c_e H_t ],  R_t = A_t + V(s_t).
func A2CUpdate[O any](model ActorCritic[O], r *Rollout[O], cfg PGConfig, lastValue float64) UpdateStats {
	r.ComputeGAE(cfg.Gamma, 0, lastValue)
	return pgUpdate(model, r, cfg)
}

// REINFORCEUpdate is one step of REINFORCE with a learned baseline
// (Williams 1992): the Monte-Carlo return G_t of each step's episode, the
// advantage G_t − V(s_t), and a value regression towards G_t. The rollout
// must end at an episode boundary (its last step Done).
func REINFORCEUpdate[O any](model ActorCritic[O], r *Rollout[O], cfg PGConfig) UpdateStats {
	n := r.Len()
	if n > 0 && !r.Steps[n-1].Done {
		panic("rl: REINFORCEUpdate: the rollout must end with a finished episode")
	}
	r.Returns = grow(r.Returns, n)
	r.Advantages = grow(r.Advantages, n)
	rew, done := make([]float64, n), make([]bool, n)
	for i, s := range r.Steps {
		rew[i], done[i] = s.Reward, s.Done
	}
	DiscountedReturns(r.Returns, rew, done, cfg.Gamma)
	for i, s := range r.Steps {
		r.Advantages[i] = r.Returns[i] - s.Value
	}
	return pgUpdate(model, r, cfg)
}

func pgUpdate[O any](model ActorCritic[O], r *Rollout[O], cfg PGConfig) UpdateStats {
	n := r.Len()
	var st UpdateStats
	if n == 0 {
		return st
	}
	s := newScratch[O](n, true)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	s.load(r, idx)
	model.Evaluate(s.steps, s.logp, s.ent, s.val)
	b := float64(n)
	for i := range idx {
		a := r.Advantages[i]
		st.PolicyLoss -= a * s.logp[i] / b
		s.dLogp[i] = -a / b
		st.Entropy += s.ent[i] / b
		s.dEnt[i] = -cfg.EntropyCoef / b
		d := s.val[i] - r.Returns[i]
		st.ValueLoss += d * d / b
		s.dVal[i] = 2 * cfg.ValueCoef * d / b
		st.ApproxKL += (r.Steps[i].LogProb - s.logp[i]) / b
	}
	model.Backward(s.dLogp, s.dEnt, s.dVal)
	model.Step()
	st.Minibatches = 1
	return st
}
