package rl

import (
	"math"
	"math/rand/v2"
)

// softmaxAC is a tabular softmax policy with a tabular value function and
// hand-written exact gradients: the smallest model the algorithms can be
// tested with. Observations are state indices.
type softmaxAC struct {
	states, actions int
	lr, lrV         float64
	theta, v        []float64 // logits [s*actions+a], values [s]
	gTheta, gV      []float64
	// kept from the last Evaluate
	steps []*Step[int]
	probs [][]float64
}

func newSoftmaxAC(states, actions int, lr, lrV float64) *softmaxAC {
	return &softmaxAC{states: states, actions: actions, lr: lr, lrV: lrV,
		theta: make([]float64, states*actions), v: make([]float64, states),
		gTheta: make([]float64, states*actions), gV: make([]float64, states)}
}

func (m *softmaxAC) policy(dst []float64, s int) []float64 {
	if dst == nil {
		dst = make([]float64, m.actions)
	}
	row := m.theta[s*m.actions : (s+1)*m.actions]
	mx := math.Inf(-1)
	for _, x := range row {
		mx = math.Max(mx, x)
	}
	z := 0.0
	for a, x := range row {
		dst[a] = math.Exp(x - mx)
		z += dst[a]
	}
	for a := range dst {
		dst[a] /= z
	}
	return dst
}

func (m *softmaxAC) act(s int, rng *rand.Rand) (int, float64) {
	p := m.policy(nil, s)
	a := sample(p, rng)
	return a, math.Log(p[a])
}

func sample(p []float64, rng *rand.Rand) int {
	u, c := rng.Float64(), 0.0
	for a, x := range p {
		c += x
		if u < c {
			return a
		}
	}
	return len(p) - 1
}

func (m *softmaxAC) Evaluate(steps []*Step[int], logp, ent, value []float64) {
	m.steps = steps
	m.probs = m.probs[:0]
	for i, st := range steps {
		p := m.policy(nil, st.Obs)
		m.probs = append(m.probs, p)
		logp[i] = math.Log(p[st.Action.Index])
		h := 0.0
		for _, x := range p {
			if x > 0 {
				h -= x * math.Log(x)
			}
		}
		ent[i] = h
		if value != nil {
			value[i] = m.v[st.Obs]
		}
	}
}

func (m *softmaxAC) Backward(dLogp, dEnt, dValue []float64) {
	for i, st := range m.steps {
		p := m.probs[i]
		h := 0.0
		for _, x := range p {
			if x > 0 {
				h -= x * math.Log(x)
			}
		}
		g := m.gTheta[st.Obs*m.actions : (st.Obs+1)*m.actions]
		for b, pb := range p {
			ind := 0.0
			if b == st.Action.Index {
				ind = 1
			}
			g[b] += dLogp[i] * (ind - pb)
			if pb > 0 {
				g[b] += dEnt[i] * (-pb * (math.Log(pb) + h)) // ∂H/∂θ_b = −π_b (log π_b + H)
			}
		}
		if dValue != nil {
			m.gV[st.Obs] += dValue[i]
		}
	}
}

func (m *softmaxAC) Step() {
	for i, g := range m.gTheta {
		m.theta[i] -= m.lr * g
	}
	for i, g := range m.gV {
		m.v[i] -= m.lrV * g
	}
	clear(m.gTheta)
	clear(m.gV)
}

// tabularCritic is MAPPO's centralised critic for tests: a value per
// joint state, with a target copy.
type tabularCritic struct {
	lr        float64
	v, target []float64
	g         []float64
	steps     []*Step[int]
	syncs     int
}

func newTabularCritic(states int, lr float64) *tabularCritic {
	return &tabularCritic{lr: lr, v: make([]float64, states), target: make([]float64, states), g: make([]float64, states)}
}

func (c *tabularCritic) Values(steps []*Step[int], value []float64, target bool) {
	src := c.v
	if target {
		src = c.target
	} else {
		c.steps = steps
	}
	for i, s := range steps {
		value[i] = src[s.Obs]
	}
}

func (c *tabularCritic) Backward(d []float64) {
	for i, s := range c.steps {
		c.g[s.Obs] += d[i]
	}
}

func (c *tabularCritic) Step() {
	for i, g := range c.g {
		c.v[i] -= c.lr * g
	}
	clear(c.g)
}

func (c *tabularCritic) SyncTarget() { copy(c.target, c.v); c.syncs++ }
