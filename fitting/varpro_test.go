package fitting

import (
	"context"
	"math"
	"testing"
)

// TestVarproMatchesLM checks variable projection against
// Levenberg–Marquardt over all six (four) parameters from the same grid
// start, the method the fit used before. Both stop at a minimum to
// round-off, so their sums of squares agree to 1e-13 relative (measured:
// ≤ 2e-15 at 480 samples, ≤ 2e-14 at 100,000). The parameters agree to
// what the problem determines: the valley of α1 against α3 is so flat
// that SSR changes by 1e-14 relative while the parameters move by 1e-6
// (the same spread as between this fit and SciPy's curve_fit), so 1e-5.
// Standard errors come from the same Jacobian at points that close: 1e-5.
func TestVarproMatchesLM(t *testing.T) {
	for _, c := range []struct {
		n    int
		seed uint64
	}{{48, 3}, {480, 1}, {480, 2}, {3000, 4}} {
		obs := synthObs(t, c.n, c.seed)
		for _, name := range []string{Ours, OursNoPCIe} {
			m, _ := ModelByName(name)
			start, err := gridStart(m, obs)
			if err != nil {
				t.Fatal(err)
			}
			vp, err := fitFrom(context.Background(), m, obs, start, nil)
			if err != nil {
				t.Fatal(err)
			}
			if vp.Method != MethodVarpro || !vp.Converged() {
				t.Fatalf("n=%d seed %d %s: method %s, %v; want variable projection, converged", c.n, c.seed, name, vp.Method, vp.Status)
			}
			lm, err := Minimize(context.Background(), problem(m, obs), start, &Settings{Lower: m.Lower, Upper: m.Upper})
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(vp.SSR-lm.SSR) / lm.SSR; d > 1e-13 {
				t.Errorf("n=%d seed %d %s: SSR %.17g, LM %.17g (relative %.2g)", c.n, c.seed, name, vp.SSR, lm.SSR, d)
			}
			for j := range vp.Params {
				if d := math.Abs(vp.Params[j]-lm.X[j]) / math.Abs(lm.X[j]); d > 1e-5 {
					t.Errorf("n=%d seed %d %s: %s = %.17g, LM %.17g", c.n, c.seed, name, m.Params[j].Name, vp.Params[j], lm.X[j])
				}
				if d := math.Abs(vp.StdErr[j]-lm.StdErr[j]) / lm.StdErr[j]; !(d <= 1e-5) {
					t.Errorf("n=%d seed %d %s: std err of %s = %.17g, LM %.17g", c.n, c.seed, name, m.Params[j].Name, vp.StdErr[j], lm.StdErr[j])
				}
			}
			if vp.Iterations >= lm.Iterations {
				t.Errorf("n=%d seed %d %s: %d iterations, LM %d: Newton should need fewer", c.n, c.seed, name, vp.Iterations, lm.Iterations)
			}
		}
	}
}

// TestVarproNewtonDerivatives checks newton's gradient and Hessian of the
// reduced functional f(θ) = ½‖P⊥(θ)·S‖² against central differences of f
// itself (ssrAt), away from the minimum where they are not small. Step
// h = 1e-4 per core: truncation error ~h²·f‴ and rounding ~ε·f/h² both
// stay below 1e-5 relative of the entries' scale.
func TestVarproNewtonDerivatives(t *testing.T) {
	obs := synthObs(t, 480, 1)
	for _, name := range []string{Ours, OursNoPCIe} {
		m, _ := ModelByName(name)
		v := newVarpro(m, obs)
		x := [2]float64{0.12, 0.3}
		f := func(a, b float64) float64 { return v.ssrAt([2]float64{a, b}) / 2 }
		v.at(x[:])
		g, _, h := v.newton()
		const d = 1e-4
		var gfd [2]float64
		var hfd [2][2]float64
		f0 := f(x[0], x[1])
		gfd[0] = (f(x[0]+d, x[1]) - f(x[0]-d, x[1])) / (2 * d)
		gfd[1] = (f(x[0], x[1]+d) - f(x[0], x[1]-d)) / (2 * d)
		hfd[0][0] = (f(x[0]+d, x[1]) - 2*f0 + f(x[0]-d, x[1])) / (d * d)
		hfd[1][1] = (f(x[0], x[1]+d) - 2*f0 + f(x[0], x[1]-d)) / (d * d)
		hfd[0][1] = (f(x[0]+d, x[1]+d) - f(x[0]+d, x[1]-d) - f(x[0]-d, x[1]+d) + f(x[0]-d, x[1]-d)) / (4 * d * d)
		hfd[1][0] = hfd[0][1]
		gs := math.Max(math.Abs(gfd[0]), math.Abs(gfd[1]))
		hs := math.Max(math.Abs(hfd[0][0]), math.Abs(hfd[1][1]))
		for j := 0; j < 2; j++ {
			if math.Abs(g[j]-gfd[j]) > 1e-5*gs {
				t.Errorf("%s: g[%d] = %.10g, finite differences %.10g", name, j, g[j], gfd[j])
			}
			for k := 0; k < 2; k++ {
				if math.Abs(h[j][k]-hfd[j][k]) > 1e-4*hs {
					t.Errorf("%s: H[%d][%d] = %.10g, finite differences %.10g", name, j, k, h[j][k], hfd[j][k])
				}
			}
		}
		v.release()
	}
}

// TestVarproFallsBackWhenAlpha1Binds: slowdowns that fall as the
// exponential grows want α1 < 0, which variable projection cannot bound;
// the fit must then be Levenberg–Marquardt over all parameters with α1 on
// its bound 0, not a variable-projection answer outside the bounds.
func TestVarproFallsBackWhenAlpha1Binds(t *testing.T) {
	obs := synthObs(t, 480, 1)
	for i := range obs {
		o := &obs[i]
		o.S = 1 - 0.05*math.Exp(0.3*o.UC+0.1*o.CJ) + 0.001*o.UP + 0.01*math.Sin(float64(i))
	}
	m, _ := ModelByName(Ours)
	f, err := FitModel(context.Background(), m, obs)
	if err != nil {
		t.Fatal(err)
	}
	if f.Method != MethodLM {
		t.Errorf("method %s, want %s", f.Method, MethodLM)
	}
	if f.Params[0] < 0 {
		t.Errorf("alpha1 = %g < 0", f.Params[0])
	}
}
