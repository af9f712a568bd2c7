package rl

// Action is what an agent did: Index for a discrete choice, Vec for a
// continuous one (a Gaussian policy's sample). A family may use both (DAS:
// a priority vector and a machine choice).
type Action struct {
	Index int
	Vec   []float64
}

// Step is one transition as collected: the observation the agent acted
// on, its action, and what the behaviour policy and critic said at the
// time. Reward is the reward received after the action; Done marks the
// last step of an episode (no bootstrapping past it).
type Step[O any] struct {
	Obs     O
	Action  Action
	Reward  float64
	Done    bool
	Value   float64 // V(s) under the behaviour critic
	LogProb float64 // log π(a|s) under the behaviour policy
}

// Rollout accumulates Steps between updates, and the advantages and
// returns computed from them.
type Rollout[O any] struct {
	Steps      []Step[O]
	Advantages []float64
	Returns    []float64
}

// Add appends a step.
func (r *Rollout[O]) Add(s Step[O]) { r.Steps = append(r.Steps, s) }

// Len is the number of steps.
func (r *Rollout[O]) Len() int { return len(r.Steps) }

// Reset empties the rollout, keeping its storage.
func (r *Rollout[O]) Reset() {
	clear(r.Steps) // drop references held by observations
	r.Steps = r.Steps[:0]
	r.Advantages = r.Advantages[:0]
	r.Returns = r.Returns[:0]
}

// ComputeGAE fills Advantages and Returns by GAE(γ, λ) (see GAE); lastValue
// is V of the state after the last step (ignored when that step is Done).
func (r *Rollout[O]) ComputeGAE(gamma, lambda, lastValue float64) {
	n := len(r.Steps)
	r.Advantages = grow(r.Advantages, n)
	r.Returns = grow(r.Returns, n)
	rew, val, done := make([]float64, n), make([]float64, n), make([]bool, n)
	for i, s := range r.Steps {
		rew[i], val[i], done[i] = s.Reward, s.Value, s.Done
	}
	GAE(r.Advantages, r.Returns, rew, val, done, lastValue, gamma, lambda)
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
