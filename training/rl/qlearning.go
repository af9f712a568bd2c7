package rl

import (
	"math"
	"math/rand/v2"
)

// Explorer picks an action from estimated values: q[a] is the value of
// action a, counts[a] how often it was taken in this state (or overall,
// for a function approximator), t the total number of choices made.
type Explorer interface {
	Choose(q []float64, counts []int, t int, rng *rand.Rand) int
}

// EpsilonGreedy takes a uniformly random action with probability Epsilon,
// the greedy one otherwise (ties to the lowest index, so that runs repeat).
type EpsilonGreedy struct{ Epsilon float64 }

// Choose implements Explorer.
func (e EpsilonGreedy) Choose(q []float64, _ []int, _ int, rng *rand.Rand) int {
	if rng.Float64() < e.Epsilon {
		return rng.IntN(len(q))
	}
	return Argmax(q)
}

// UCB is upper-confidence-bound exploration (UCB1, Auer et al. 2002):
// an untried action first, then argmax_a q[a] + C·sqrt(ln t / n_a). RIFLING
// explores this way.
type UCB struct{ C float64 }

// Choose implements Explorer.
func (u UCB) Choose(q []float64, counts []int, t int, _ *rand.Rand) int {
	best, bestV := 0, math.Inf(-1)
	for a := range q {
		if counts[a] == 0 {
			return a
		}
		v := q[a] + u.C*math.Sqrt(math.Log(float64(max(t, 1)))/float64(counts[a]))
		if v > bestV {
			best, bestV = a, v
		}
	}
	return best
}

// Argmax is the index of the largest value, the lowest on ties.
func Argmax(q []float64) int {
	best := 0
	for a, v := range q {
		if v > q[best] {
			best = a
		}
	}
	return best
}

// QTable is tabular Q-learning (Watkins 1989):
// Q(s,a) ← Q(s,a) + α (r + γ max_b Q(s',b) − Q(s,a)), no bootstrap at a
// terminal transition.
type QTable struct {
	States, Actions int
	Alpha, Gamma    float64
	Q               []float64 // Q[s*Actions+a]
	N               []int     // visits of (s, a)
	T               int       // choices made
}

// NewQTable returns a table of zeros.
func NewQTable(states, actions int, alpha, gamma float64) *QTable {
	return &QTable{States: states, Actions: actions, Alpha: alpha, Gamma: gamma,
		Q: make([]float64, states*actions), N: make([]int, states*actions)}
}

// Values is the row of action values of state s (not a copy).
func (q *QTable) Values(s int) []float64 { return q.Q[s*q.Actions : (s+1)*q.Actions] }

// Act chooses an action in state s and counts the choice.
func (q *QTable) Act(s int, ex Explorer, rng *rand.Rand) int {
	a := ex.Choose(q.Values(s), q.N[s*q.Actions:(s+1)*q.Actions], q.T, rng)
	q.N[s*q.Actions+a]++
	q.T++
	return a
}

// Update applies one Q-learning backup and returns the TD error.
func (q *QTable) Update(s, a int, r float64, next int, done bool) float64 {
	target := r
	if !done {
		target += q.Gamma * q.Values(next)[Argmax(q.Values(next))]
	}
	i := s*q.Actions + a
	td := target - q.Q[i]
	q.Q[i] += q.Alpha * td
	return td
}

// LinearQ is Q-learning with a linear function approximator, Q(s,a) =
// w_aᵀ φ(s), updated by the semi-gradient rule
// w_a ← w_a + α (r + γ max_b Q(s',b) − Q(s,a)) φ(s).
type LinearQ struct {
	Features, Actions int
	Alpha, Gamma      float64
	W                 []float64 // W[a*Features+f]
	N                 []int     // choices of each action
	T                 int
	q                 []float64
}

// NewLinearQ returns zero weights.
func NewLinearQ(features, actions int, alpha, gamma float64) *LinearQ {
	return &LinearQ{Features: features, Actions: actions, Alpha: alpha, Gamma: gamma,
		W: make([]float64, features*actions), N: make([]int, actions), q: make([]float64, actions)}
}

// Values fills dst[a] = Q(φ, a) and returns it (allocated when nil).
func (l *LinearQ) Values(dst, phi []float64) []float64 {
	if dst == nil {
		dst = make([]float64, l.Actions)
	}
	for a := 0; a < l.Actions; a++ {
		w := l.W[a*l.Features : (a+1)*l.Features]
		s := 0.0
		for f, x := range phi {
			s += w[f] * x
		}
		dst[a] = s
	}
	return dst
}

// Act chooses an action for features phi and counts the choice.
func (l *LinearQ) Act(phi []float64, ex Explorer, rng *rand.Rand) int {
	a := ex.Choose(l.Values(l.q, phi), l.N, l.T, rng)
	l.N[a]++
	l.T++
	return a
}

// Update applies one semi-gradient backup and returns the TD error.
func (l *LinearQ) Update(phi []float64, a int, r float64, next []float64, done bool) float64 {
	target := r
	if !done {
		q := l.Values(l.q, next)
		target += l.Gamma * q[Argmax(q)]
	}
	w := l.W[a*l.Features : (a+1)*l.Features]
	cur := 0.0
	for f, x := range phi {
		cur += w[f] * x
	}
	td := target - cur
	for f, x := range phi {
		w[f] += l.Alpha * td * x
	}
	return td
}
