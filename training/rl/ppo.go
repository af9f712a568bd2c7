package rl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// PPOConfig configures proximal policy optimisation (Schulman et al.
// 2017). The zero value is not valid; start from DefaultPPOConfig.
type PPOConfig struct {
	Clip        float64 // ε of the clipped surrogate, e.g. 0.2
	ValueCoef   float64 // weight of the value regression (V − R)²
	EntropyCoef float64 // weight of the entropy bonus
	Epochs      int     // passes over the rollout per update
	Minibatch   int     // steps per gradient step (the rollout is cut into minibatches)
	// NormalizeAdvantages rescales the rollout's advantages to mean 0 and
	// standard deviation 1 before the update, as the common PPO
	// implementations do.
	NormalizeAdvantages bool
}

// DefaultPPOConfig is ε 0.2, value weight 0.5, entropy weight 0.01, 4
// epochs of minibatches of 64, advantages normalised.
func DefaultPPOConfig() PPOConfig {
	return PPOConfig{Clip: 0.2, ValueCoef: 0.5, EntropyCoef: 0.01, Epochs: 4, Minibatch: 64, NormalizeAdvantages: true}
}

// Validate reports an unusable setting.
func (c PPOConfig) Validate() error {
	var errs []error
	if !(c.Clip > 0 && c.Clip < 1) {
		errs = append(errs, fmt.Errorf("clip: must be in (0, 1), got %v", c.Clip))
	}
	if c.ValueCoef < 0 || c.EntropyCoef < 0 {
		errs = append(errs, fmt.Errorf("value and entropy coefficients must be ≥ 0, got %v, %v", c.ValueCoef, c.EntropyCoef))
	}
	if c.Epochs < 1 || c.Minibatch < 1 {
		errs = append(errs, fmt.Errorf("epochs and minibatch must be ≥ 1, got %d, %d", c.Epochs, c.Minibatch))
	}
	return errors.Join(errs...)
}

// UpdateStats summarises one update, averaged over its minibatches.
type UpdateStats struct {
	PolicyLoss   float64
	ValueLoss    float64
	Entropy      float64
	ClipFraction float64 // share of samples whose ratio was clipped
	ApproxKL     float64 // mean of log π_old − log π_new
	Minibatches  int
}

func (s *UpdateStats) average() {
	if s.Minibatches == 0 {
		return
	}
	k := float64(s.Minibatches)
	s.PolicyLoss /= k
	s.ValueLoss /= k
	s.Entropy /= k
	s.ClipFraction /= k
	s.ApproxKL /= k
}

// PPOUpdate runs cfg.Epochs passes of clipped-surrogate updates over r,
// whose Advantages and Returns must be filled (Rollout.ComputeGAE). When
// value is false the model is evaluated without values (an actor whose
// critic is trained elsewhere, as in MAPPO). Minibatches are drawn by a
// shuffle from rng. The loss of a minibatch B is
//
//	L = (1/|B|) Σ_i [ −min(ρ_i A_i, clip(ρ_i, 1−ε, 1+ε) A_i) + c_v (V_i − R_i)² − c_e H_i ]
//
// with ρ_i = exp(log π(a_i|s_i) − log π_old(a_i|s_i)).
func PPOUpdate[O any](model ActorCritic[O], r *Rollout[O], cfg PPOConfig, value bool, rng *rand.Rand) UpdateStats {
	n := r.Len()
	if len(r.Advantages) != n || len(r.Returns) != n {
		panic("rl: PPOUpdate: advantages and returns not computed for the rollout")
	}
	adv := r.Advantages
	if cfg.NormalizeAdvantages {
		adv = normalized(adv)
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	mb := min(cfg.Minibatch, n)
	s := newScratch[O](mb, value)
	var st UpdateStats
	for e := 0; e < cfg.Epochs; e++ {
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for lo := 0; lo < n; lo += mb {
			idx := perm[lo:min(lo+mb, n)]
			s.load(r, idx)
			model.Evaluate(s.steps, s.logp, s.ent, s.val)
			b := float64(len(idx))
			for k, i := range idx {
				a := adv[i]
				ratio := math.Exp(s.logp[k] - r.Steps[i].LogProb)
				clipped := math.Max(1-cfg.Clip, math.Min(1+cfg.Clip, ratio))
				surr1, surr2 := ratio*a, clipped*a
				if surr1 <= surr2 {
					st.PolicyLoss -= surr1 / b
					s.dLogp[k] = -surr1 / b // d(ρA)/d log π = ρA
				} else {
					st.PolicyLoss -= surr2 / b
					s.dLogp[k] = 0 // the clipped term is constant in the parameters
				}
				if clipped != ratio {
					st.ClipFraction += 1 / b
				}
				st.ApproxKL += (r.Steps[i].LogProb - s.logp[k]) / b
				st.Entropy += s.ent[k] / b
				s.dEnt[k] = -cfg.EntropyCoef / b
				if value {
					d := s.val[k] - r.Returns[i]
					st.ValueLoss += d * d / b
					s.dVal[k] = 2 * cfg.ValueCoef * d / b
				}
			}
			model.Backward(s.dLogp, s.dEnt, s.dVal)
			model.Step()
			st.Minibatches++
		}
	}
	st.average()
	return st
}

// scratch holds one minibatch's buffers, reused across minibatches.
type scratch[O any] struct {
	steps               []*Step[O]
	logp, ent, val      []float64
	dLogp, dEnt, dVal   []float64
	fullLogp, fullEnt   []float64
	fullVal             []float64
	fullDLogp, fullDEnt []float64
	fullDVal            []float64
	value               bool
}

func newScratch[O any](n int, value bool) *scratch[O] {
	s := &scratch[O]{
		steps: make([]*Step[O], n), value: value,
		fullLogp: make([]float64, n), fullEnt: make([]float64, n),
		fullDLogp: make([]float64, n), fullDEnt: make([]float64, n),
	}
	if value {
		s.fullVal, s.fullDVal = make([]float64, n), make([]float64, n)
	}
	return s
}

// load points the minibatch buffers at the steps idx of r.
func (s *scratch[O]) load(r *Rollout[O], idx []int) {
	k := len(idx)
	s.steps = s.steps[:k]
	for j, i := range idx {
		s.steps[j] = &r.Steps[i]
	}
	s.logp, s.ent = s.fullLogp[:k], s.fullEnt[:k]
	s.dLogp, s.dEnt = s.fullDLogp[:k], s.fullDEnt[:k]
	if s.value {
		s.val, s.dVal = s.fullVal[:k], s.fullDVal[:k]
	}
}

// normalized returns (x − mean)/std (std floored at 1e-8), a new slice.
func normalized(x []float64) []float64 {
	n := float64(len(x))
	if n == 0 {
		return x
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= n
	v2 := 0.0
	for _, v := range x {
		v2 += (v - mean) * (v - mean)
	}
	std := math.Max(math.Sqrt(v2/n), 1e-8)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v - mean) / std
	}
	return out
}
