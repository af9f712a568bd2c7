package nn

import (
	"errors"
	"fmt"
	"math"
)

// An Optimizer updates a parameter set from its accumulated gradients and
// then clears them, so the next Backward starts from zero. Step returns the
// global gradient norm before any clipping (a training curve worth
// logging).
type Optimizer interface {
	Step() float64
}

// GradNorm returns the Euclidean norm of all gradients of ps together,
// summed in parameter order so the result is the same on every run.
func GradNorm(ps *Params) float64 {
	var s float64
	for _, p := range ps.list {
		for _, g := range p.Grad {
			// A zero gradient adds +0, which changes no sum that started
			// from +0: skipping it keeps the bits and shortens the chain
			// of dependent additions (a layer whose inputs are zero has
			// whole rows of zero gradients).
			if g != 0 {
				s += g * g
			}
		}
	}
	return math.Sqrt(s)
}

// ClipGradNorm scales all gradients of ps by one factor so that their
// global norm is at most maxNorm (no-op when it already is, or when
// maxNorm ≤ 0), and returns the norm before clipping.
func ClipGradNorm(ps *Params, maxNorm float64) float64 {
	norm := GradNorm(ps)
	if maxNorm > 0 && norm > maxNorm {
		f := maxNorm / norm
		for _, p := range ps.list {
			for i := range p.Grad {
				p.Grad[i] *= f
			}
		}
	}
	return norm
}

// AdamConfig configures Adam. The zero value means the defaults of Kingma
// & Ba: LR 1e-3, Beta1 0.9, Beta2 0.999, Eps 1e-8, and no clipping.
type AdamConfig struct {
	LR, Beta1, Beta2, Eps float64
	// MaxGradNorm, if positive, clips the global gradient norm before each
	// step.
	MaxGradNorm float64
}

// Validate reports a configuration Adam cannot run with.
func (c AdamConfig) Validate() error {
	c = c.withDefaults()
	var errs []error
	if !(c.LR > 0) {
		errs = append(errs, fmt.Errorf("nn: Adam learning rate %g is not positive", c.LR))
	}
	if !(c.Beta1 >= 0 && c.Beta1 < 1) || !(c.Beta2 >= 0 && c.Beta2 < 1) {
		errs = append(errs, fmt.Errorf("nn: Adam betas %g, %g outside [0, 1)", c.Beta1, c.Beta2))
	}
	if !(c.Eps > 0) {
		errs = append(errs, fmt.Errorf("nn: Adam epsilon %g is not positive", c.Eps))
	}
	if c.MaxGradNorm < 0 {
		errs = append(errs, fmt.Errorf("nn: Adam gradient clip %g is negative", c.MaxGradNorm))
	}
	return errors.Join(errs...)
}

func (c AdamConfig) withDefaults() AdamConfig {
	if c.LR == 0 {
		c.LR = 1e-3
	}
	if c.Beta1 == 0 {
		c.Beta1 = 0.9
	}
	if c.Beta2 == 0 {
		c.Beta2 = 0.999
	}
	if c.Eps == 0 {
		c.Eps = 1e-8
	}
	return c
}

// Adam is the Adam optimiser with bias-corrected moment estimates:
//
//	m ← β1 m + (1−β1) g,  v ← β2 v + (1−β2) g²,
//	θ ← θ − lr · (m/(1−β1ᵗ)) / (√(v/(1−β2ᵗ)) + ε).
type Adam struct {
	cfg  AdamConfig
	ps   *Params
	m, v [][]float64
	t    int
}

// NewAdam returns Adam over ps; cfg must pass Validate.
func NewAdam(ps *Params, cfg AdamConfig) *Adam {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	a := &Adam{cfg: cfg.withDefaults(), ps: ps}
	// The moments of all parameters lie in one slice each, a.m[i] and
	// a.v[i] being parameter i's part.
	size := 0
	for _, p := range ps.list {
		size += len(p.Data)
	}
	m, v := make([]float64, size), make([]float64, size)
	for _, p := range ps.list {
		k := len(p.Data)
		a.m, a.v = append(a.m, m[:k:k]), append(a.v, v[:k:k])
		m, v = m[k:], v[k:]
	}
	return a
}

// SetLR changes the learning rate (for schedules).
func (a *Adam) SetLR(lr float64) { a.cfg.LR = lr }

// Steps returns the number of steps taken.
func (a *Adam) Steps() int { return a.t }

// Step applies one update from the accumulated gradients and clears them.
func (a *Adam) Step() float64 {
	if len(a.m) != len(a.ps.list) {
		panic("nn: parameters were added after NewAdam")
	}
	norm := ClipGradNorm(a.ps, a.cfg.MaxGradNorm)
	a.t++
	c := a.cfg
	bc1 := 1 - math.Pow(c.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(c.Beta2, float64(a.t))
	coefs := adamCoefs{c.Beta1, 1 - c.Beta1, c.Beta2, 1 - c.Beta2, c.LR, bc1, bc2, c.Eps}
	for i, p := range a.ps.list {
		m, v, g := a.m[i], a.v[i], p.Grad
		n4 := 0
		if haveFMA {
			n4 = len(g) &^ 3
			if n4 > 0 {
				adam4y(&p.Data[0], &g[0], &m[0], &v[0], n4, &coefs)
			}
		}
		for j := n4; j < len(g); j++ {
			m[j] = c.Beta1*m[j] + (1-c.Beta1)*g[j]
			v[j] = c.Beta2*v[j] + (1-c.Beta2)*g[j]*g[j]
			p.Data[j] -= c.LR * (m[j] / bc1) / (math.Sqrt(v[j]/bc2) + c.Eps)
		}
		clear(g[n4:])
	}
	return norm
}

// adamCoefs is what adam4y needs of a step: β1, 1−β1, β2, 1−β2, the
// learning rate and the two bias corrections, ε.
type adamCoefs [8]float64

// SGD is plain stochastic gradient descent, θ ← θ − lr·g, with optional
// global-norm clipping.
type SGD struct {
	Params      *Params
	LR          float64
	MaxGradNorm float64
}

// Step applies one update from the accumulated gradients and clears them.
func (s *SGD) Step() float64 {
	norm := ClipGradNorm(s.Params, s.MaxGradNorm)
	for _, p := range s.Params.list {
		for j, g := range p.Grad {
			p.Data[j] -= s.LR * g
		}
		clear(p.Grad)
	}
	return norm
}
