package rl

import (
	"fmt"
	"math/rand/v2"
)

// MAPPOConfig configures multi-agent PPO with decentralised actors and a
// centralised critic (Yu et al. 2022), as the DAS paper trains its
// ordering and placement agents: γ 0.98, entropy 0.03, clip 0.2 and a
// target critic copied every z = 2 updates.
type MAPPOConfig struct {
	PPO         PPOConfig
	Gamma       float64
	Lambda      float64 // GAE λ
	TargetEvery int     // z: updates between copies of the critic into its target
}

// DefaultMAPPOConfig is the DAS paper's setting (λ 0.95, which the paper
// does not state, is the MAPPO authors' default).
func DefaultMAPPOConfig() MAPPOConfig {
	p := DefaultPPOConfig()
	p.EntropyCoef = 0.03
	return MAPPOConfig{PPO: p, Gamma: 0.98, Lambda: 0.95, TargetEvery: 2}
}

// Validate reports an unusable setting.
func (c MAPPOConfig) Validate() error {
	if err := c.PPO.Validate(); err != nil {
		return err
	}
	if !(c.Gamma >= 0 && c.Gamma <= 1) || !(c.Lambda >= 0 && c.Lambda <= 1) {
		return fmt.Errorf("gamma and lambda must be in [0, 1], got %v, %v", c.Gamma, c.Lambda)
	}
	if c.TargetEvery < 1 {
		return fmt.Errorf("target_every: must be ≥ 1, got %d", c.TargetEvery)
	}
	return nil
}

// MAPPO trains cooperative agents that share one reward: each actor sees
// the observation it needs (the steps' Obs is the joint observation, and
// each actor reads its own part), the critic sees everything.
type MAPPO[O any] struct {
	Actors  []ActorCritic[O]
	Critic  Critic[O]
	Config  MAPPOConfig
	updates int
}

// Update trains on one rollout per actor. The rollouts hold the same
// joint steps (the same Obs, Reward and Done at each index) and differ
// in each agent's Action and LogProb. Advantages and value targets come
// from the target critic (GAE with lastValue, the target value of the
// state after the last step); every actor is updated against the shared
// advantages, then the critic regresses on the targets; every
// TargetEvery updates the target copy is refreshed. It returns the
// actors' statistics and the critic's value loss.
func (m *MAPPO[O]) Update(rollouts []*Rollout[O], lastValue float64, rng *rand.Rand) ([]UpdateStats, float64) {
	if len(rollouts) != len(m.Actors) {
		panic("rl: MAPPO.Update: one rollout per actor")
	}
	base := rollouts[0]
	n := base.Len()
	for _, r := range rollouts[1:] {
		if r.Len() != n {
			panic("rl: MAPPO.Update: rollouts of different lengths")
		}
	}
	// Values from the target critic: the stable baseline that the target
	// copy exists for.
	scr := newScratch[O](n, true)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	scr.load(base, idx)
	m.Critic.Values(scr.steps, scr.val, true)
	release(m.Critic)
	for i := range base.Steps {
		base.Steps[i].Value = scr.val[i]
	}
	base.ComputeGAE(m.Config.Gamma, m.Config.Lambda, lastValue)
	stats := make([]UpdateStats, len(m.Actors))
	for a, actor := range m.Actors {
		r := rollouts[a]
		r.Advantages = append(r.Advantages[:0], base.Advantages...)
		r.Returns = append(r.Returns[:0], base.Returns...)
		stats[a] = PPOUpdate(actor, r, m.Config.PPO, false, rng)
		release(actor)
	}
	vloss := m.fitCritic(base, rng)
	release(m.Critic)
	m.updates++
	if m.updates%m.Config.TargetEvery == 0 {
		m.Critic.SyncTarget()
	}
	return stats, vloss
}

// fitCritic regresses the critic on the returns over the PPO epochs and
// minibatches; it returns the mean squared error of the last epoch.
func (m *MAPPO[O]) fitCritic(r *Rollout[O], rng *rand.Rand) float64 {
	n := r.Len()
	cfg := m.Config.PPO
	mb := min(cfg.Minibatch, n)
	s := newScratch[O](mb, true)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	loss := 0.0
	for e := 0; e < cfg.Epochs; e++ {
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		loss = 0
		for lo := 0; lo < n; lo += mb {
			idx := perm[lo:min(lo+mb, n)]
			s.load(r, idx)
			m.Critic.Values(s.steps, s.val, false)
			b := float64(len(idx))
			for k, i := range idx {
				d := s.val[k] - r.Returns[i]
				loss += d * d / float64(n)
				s.dVal[k] = 2 * cfg.ValueCoef * d / b
			}
			m.Critic.Backward(s.dVal)
			m.Critic.Step()
		}
	}
	return loss
}
