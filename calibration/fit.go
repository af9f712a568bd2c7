package calibration

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/fitting"
	"github.com/schedlab/schedlab/sim"
)

// MARLPaper is the name of the MARL paper's environment.
const MARLPaper = "marl-paper"

// Targets are the numeric targets of a fit: mean slowdowns vs standalone
// (fractions) with their tolerance.
type Targets struct {
	Packed, LoadBalanced float64
	Tolerance            float64
}

// MARLTargets are the MARL paper's §II figures: 30 % under bin packing
// (Fig. 1a), 37 % under load balancing (Fig. 3a), each ±3 points.
var MARLTargets = Targets{Packed: 0.30, LoadBalanced: 0.37, Tolerance: 0.03}

// Measurement is what the speed model gives on the §II scenarios.
type Measurement struct {
	// Packed and LoadBalanced are the per-job slowdowns (Table I order)
	// of Figs 1(a) and 3(a); PackedMean and LoadBalancedMean their means.
	Packed, LoadBalanced         []float64
	PackedMean, LoadBalancedMean float64
	// ResNet and VGG are the Fig. 1(b) slowdowns of ResNet-50 and VGG-16
	// beside k = 1, 2, 3 CTC jobs.
	ResNet, VGG []float64
	// SameCPU and DifferentCPU are the Fig. 2(b) slowdowns.
	SameCPU, DifferentCPU float64
}

// CTCCounts are the numbers of CTC jobs of Fig. 1(b).
var CTCCounts = []int{1, 2, 3}

// Measure runs every §II scenario with the base interference model and the
// environment env (nil: none).
func Measure(model sim.Interference, env *sim.Environment) (*Measurement, error) {
	var m Measurement
	packed, err := PackedScenario()
	if err != nil {
		return nil, err
	}
	lb, err := LoadBalancedScenario()
	if err != nil {
		return nil, err
	}
	if m.Packed, err = Slowdowns(packed, model, env); err != nil {
		return nil, err
	}
	if m.LoadBalanced, err = Slowdowns(lb, model, env); err != nil {
		return nil, err
	}
	m.PackedMean, m.LoadBalancedMean = Mean(m.Packed), Mean(m.LoadBalanced)
	for _, k := range CTCCounts {
		for _, t := range []struct {
			model string
			dst   *[]float64
		}{{"resnet-50", &m.ResNet}, {"vgg-16", &m.VGG}} {
			sc, err := CTCScenario(t.model, k)
			if err != nil {
				return nil, err
			}
			s, err := Slowdowns(sc, model, env)
			if err != nil {
				return nil, err
			}
			*t.dst = append(*t.dst, s[0])
		}
	}
	for _, same := range []bool{true, false} {
		sc, err := LocalityScenario(same)
		if err != nil {
			return nil, err
		}
		s, err := Slowdowns(sc, model, env)
		if err != nil {
			return nil, err
		}
		if same {
			m.SameCPU = s[0]
		} else {
			m.DifferentCPU = s[0]
		}
	}
	return &m, nil
}

// Check is one row of the calibration table.
type Check struct {
	Target    string // what is compared, with the paper's figure
	Paper     string
	Ours      string
	Tolerance string
	Within    bool
}

// Checks compares m with the targets t: the two numeric targets, then the
// orderings.
func (m *Measurement) Checks(t Targets) []Check {
	pct := func(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }
	tol := fmt.Sprintf("±%.0f points", 100*t.Tolerance)
	out := []Check{
		{"Fig. 1(a): mean slowdown, bin packing", pct(t.Packed), pct(m.PackedMean), tol, math.Abs(m.PackedMean-t.Packed) <= t.Tolerance},
		{"Fig. 3(a): mean slowdown, load balancing", pct(t.LoadBalanced), pct(m.LoadBalancedMean), tol, math.Abs(m.LoadBalancedMean-t.LoadBalanced) <= t.Tolerance},
	}
	for i, k := range CTCCounts {
		out = append(out, Check{fmt.Sprintf("Fig. 1(b): beside %d CTC, ResNet-50 slower than VGG-16", k), "yes",
			fmt.Sprintf("%s vs %s", pct(m.ResNet[i]), pct(m.VGG[i])), "ordering", m.ResNet[i] > m.VGG[i]})
	}
	grows := true
	for i := 1; i < len(CTCCounts); i++ {
		grows = grows && m.ResNet[i] > m.ResNet[i-1] && m.VGG[i] > m.VGG[i-1]
	}
	out = append(out,
		Check{"Fig. 1(b): slowdown grows with the number of CTC jobs", "yes", fmt.Sprintf("ResNet-50 %s → %s", pct(m.ResNet[0]), pct(m.ResNet[len(m.ResNet)-1])), "ordering", grows},
		Check{"Fig. 2(b): same CPU slower than different CPUs", "yes", fmt.Sprintf("%s vs %s", pct(m.SameCPU), pct(m.DifferentCPU)), "ordering", m.SameCPU > m.DifferentCPU},
		Check{"Fig. 2(b): different CPUs slower than standalone", "yes", pct(m.DifferentCPU), "ordering", m.DifferentCPU > 0},
	)
	return out
}

// residuals writes the fit's residuals: (ours − target)/tolerance for the
// two numeric targets, then a hinge max(0, lower − higher)/tolerance per
// ordering (zero when it holds).
func (m *Measurement) residuals(dst []float64, t Targets) []float64 {
	dst = append(dst[:0], (m.PackedMean-t.Packed)/t.Tolerance, (m.LoadBalancedMean-t.LoadBalanced)/t.Tolerance)
	hinge := func(higher, lower float64) float64 { return max(0, lower-higher) / t.Tolerance }
	for i := range CTCCounts {
		dst = append(dst, hinge(m.ResNet[i], m.VGG[i]))
	}
	return append(dst, hinge(m.SameCPU, m.DifferentCPU), hinge(m.DifferentCPU, 0))
}

// numResiduals is len(residuals).
var numResiduals = 2 + len(CTCCounts) + 2

// Result is a fitted environment with the evidence.
type Result struct {
	Environment sim.Environment
	// Before is the speed model with no environment, After in the fitted
	// one.
	Before, After *Measurement
	Targets       Targets
	// Residuals are the fit's residuals at the fitted point (numeric
	// targets first, then the ordering hinges).
	Residuals []float64
	Fit       *fitting.Result
	// NoEffect lists the parameters that do not change any residual at
	// the fitted point (a 10 % step, at least 1 % of the range, inward at
	// a bound): the targets do not determine them.
	NoEffect []string
}

// Fit fits environment name's parameters to targets over the §II scenarios
// with the base interference model (nil: sim.DefaultInterference), from
// the neutral environment within the parameters' documented ranges.
func Fit(ctx context.Context, name string, model sim.Interference, t Targets) (*Result, error) {
	keys, lo, hi := sim.EnvironmentParams()
	env := sim.NeutralEnvironment()
	env.Name = name
	env.Source = fmt.Sprintf("fitted to MARL §II: %.0f %% packed, %.0f %% load-balanced (±%.0f), Figs 1(b), 2(b) orderings", 100*t.Packed, 100*t.LoadBalanced, 100*t.Tolerance)
	before, err := Measure(model, nil)
	if err != nil {
		return nil, err
	}
	var evalErr error
	p := fitting.Problem{M: numResiduals, Residuals: envResiduals(env, &evalErr, func(e *sim.Environment, dst []float64) error {
		m, err := Measure(model, e)
		if err == nil {
			m.residuals(dst[:0], t)
		}
		return err
	})}
	res, err := fitting.Minimize(ctx, p, env.Params(), &fitting.Settings{Lower: lo, Upper: hi})
	if err != nil {
		return nil, fmt.Errorf("calibration: fit %s (%v): %w", name, keys, err)
	}
	if evalErr != nil {
		return nil, fmt.Errorf("calibration: fit %s: %w", name, evalErr)
	}
	env.SetParams(res.X)
	after, err := Measure(model, &env)
	if err != nil {
		return nil, err
	}
	out := &Result{Environment: env, Before: before, After: after, Targets: t,
		Residuals: after.residuals(nil, t), Fit: res}
	for i, k := range keys {
		// A step of 10 % (at least 1 % of the range), inward at a bound.
		x := env.Params()
		step := max(0.1*math.Abs(x[i]), 0.01*(hi[i]-lo[i]))
		if x[i]+step <= hi[i] {
			x[i] += step
		} else {
			x[i] -= step
		}
		e := env
		e.SetParams(x)
		m, err := Measure(model, &e)
		if err != nil {
			return nil, err
		}
		if slices.Equal(m.residuals(nil, t), out.Residuals) {
			out.NoEffect = append(out.NoEffect, k)
		}
	}
	return out, nil
}

// envResiduals is a fitting residual function over an environment's
// parameters: measure scores env with the parameters x into dst. The
// first measurement error is kept in *errp (the fit cannot carry it) and
// its residuals are NaN, which stops the fit.
func envResiduals(env sim.Environment, errp *error, measure func(e *sim.Environment, dst []float64) error) func(dst, x []float64) {
	return func(dst, x []float64) {
		e := env
		e.SetParams(x)
		if err := measure(&e, dst); err != nil {
			if *errp == nil {
				*errp = err
			}
			for i := range dst {
				dst[i] = math.NaN()
			}
		}
	}
}
