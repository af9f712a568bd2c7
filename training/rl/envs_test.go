package rl

import "math/rand/v2"

// bandit is a k-armed bandit with Gaussian rewards (one state, episodes of
// one step). Its optimum is the arm with the largest mean.
type bandit struct {
	means []float64
	noise float64
}

func (b bandit) pull(a int, rng *rand.Rand) float64 { return b.means[a] + b.noise*rng.NormFloat64() }

func (b bandit) best() int { return Argmax(b.means) }

// trainBandit makes updates PPO updates of m on env, each on a rollout of
// pulls one-step episodes.
func trainBandit(m *softmaxAC, env bandit, cfg PPOConfig, updates, pulls int, rng *rand.Rand) {
	var r Rollout[int]
	for range updates {
		r.Reset()
		for range pulls {
			a, lp := m.act(0, rng)
			r.Add(Step[int]{Obs: 0, Action: Action{Index: a}, Reward: env.pull(a, rng), Done: true, Value: m.v[0], LogProb: lp})
		}
		r.ComputeGAE(1, 1, 0)
		PPOUpdate[int](m, &r, cfg, true, rng)
	}
}

// chain is a corridor of n states: action 1 moves right (reward 1 and the
// end of the episode on reaching the last state), action 0 quits at once
// for a small reward. With γ^(n−2) > quit the optimal policy is "always
// right", but quitting is what a myopic agent learns first.
type chain struct {
	n    int
	quit float64
}

// step returns the next state, the reward and whether the episode ended.
func (c chain) step(s, a int) (int, float64, bool) {
	if a == 0 {
		return s, c.quit, true
	}
	if s+1 == c.n-1 {
		return s + 1, 1, true
	}
	return s + 1, 0, false
}

// grid is a w×h gridworld: start at the top-left corner, reward 1 on
// reaching the bottom-right one, −0.01 per step; actions up, right, down,
// left; moves into a wall stay. The shortest path takes w+h−2 steps.
type grid struct{ w, h int }

func (g grid) start() int          { return 0 }
func (g grid) states() int         { return g.w * g.h }
func (g grid) goal() int           { return g.w*g.h - 1 }
func (g grid) shortest() int       { return g.w + g.h - 2 }
func (g grid) xy(s int) (int, int) { return s % g.w, s / g.w }

func (g grid) step(s, a int) (int, float64, bool) {
	x, y := g.xy(s)
	switch a {
	case 0:
		y = max(0, y-1)
	case 1:
		x = min(g.w-1, x+1)
	case 2:
		y = min(g.h-1, y+1)
	case 3:
		x = max(0, x-1)
	}
	n := y*g.w + x
	if n == g.goal() {
		return n, 1, true
	}
	return n, -0.01, false
}
