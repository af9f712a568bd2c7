package fitting

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/profiling"
	"gonum.org/v1/gonum/mat"
)

func synthObs(tb testing.TB, n int, seed uint64) []Observation {
	tb.Helper()
	cfg := profiling.DefaultSynthConfig()
	cfg.Samples = n
	s, err := profiling.Synthesize(context.Background(), cfg, pipeline.RandSource(seed, "profile", "synthetic"))
	if err != nil {
		tb.Fatal(err)
	}
	obs, bad := Observations(s)
	if len(bad) != 0 {
		tb.Fatalf("synthetic samples quarantined: %v", bad[0])
	}
	return obs
}

func TestTableIIIOnSynthetic(t *testing.T) {
	obs := synthObs(t, 480, 1)
	for _, m := range Models() {
		cv, err := CrossValidate(context.Background(), m, obs, 5, pipeline.RandSource(1, "fit", "cv"))
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		fit, err := FitModel(context.Background(), m, obs)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		t.Logf("%-17s cv %.4f  train %.4f  rmse %.4f  %v/%d  p=%.4g", m.Name, cv.Error, fit.MeanRelErr, fit.RMSE, fit.Status, fit.Iterations, fit.Params)
		if !fit.Converged() {
			t.Errorf("%s: not converged: %v", m.Name, fit.Status)
		}
	}
}

// TestRecoverOurs generates slowdowns from "ours" itself with small noise
// and checks that the fit recovers the coefficients within 5 standard errors.
func TestRecoverOurs(t *testing.T) {
	obs := synthObs(t, 2000, 2)
	m, _ := ModelByName(Ours)
	truth := []float64{0.05, 0.15, 0.1, 0.002, 0.001, -0.02}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range obs {
		obs[i].S = m.Predict(truth, obs[i]) + 0.01*rng.NormFloat64()
	}
	fit, err := FitModel(context.Background(), m, obs)
	if err != nil {
		t.Fatal(err)
	}
	if !fit.Converged() {
		t.Fatalf("not converged: %v", fit.Status)
	}
	for j, want := range truth {
		if d := math.Abs(fit.Params[j] - want); d > 5*fit.StdErr[j] {
			t.Errorf("%s = %g ± %g, truth %g", m.Params[j].Name, fit.Params[j], fit.StdErr[j], want)
		}
	}
}

// TestLinearQRMatchesLM cross-checks the QR solution of each linear model
// against Levenberg–Marquardt started from zero. Both minimise the same
// convex quadratic, so they must agree to ~1e-8 relative (LM stops at
// XTol 1e-12 on the scaled step; the residual disagreement is rounding in
// a problem whose condition number is ~1e4 for TRACON-quadratic).
func TestLinearQRMatchesLM(t *testing.T) {
	obs := synthObs(t, 480, 3)
	for _, m := range Models() {
		if !m.Linear {
			continue
		}
		qr, err := LinearLeastSquares(nil, design(m, obs), slowdowns(obs))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Minimize(context.Background(), problem(m, obs), make([]float64, len(m.Params)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := range qr {
			if d := math.Abs(qr[j]-res.X[j]) / math.Max(math.Abs(qr[j]), 1e-6); d > 1e-6 {
				t.Errorf("%s %s: QR %g, LM %g (rel %g, %v)", m.Name, m.Params[j].Name, qr[j], res.X[j], d, res.Status)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	good := profiling.Sample{SampleID: "ok", CPUCores: 2, PCIeGbps: 10, CoresPerSocket: 8, Slowdown: 0.2,
		CoRunners: []profiling.CoRunner{{Socket: "same", CPUCores: 3, PCIeGbps: 5}}}
	mut := func(f func(*profiling.Sample)) profiling.Sample {
		s := good
		s.CoRunners = append([]profiling.CoRunner(nil), good.CoRunners...)
		f(&s)
		return s
	}
	tests := []struct {
		name   string
		sample profiling.Sample
		reason string
	}{
		{"NaN slowdown", mut(func(s *profiling.Sample) { s.Slowdown = math.NaN() }), "slowdown: not finite (NaN)"},
		{"Inf PCIe", mut(func(s *profiling.Sample) { s.PCIeGbps = math.Inf(1) }), "pcie_gbps: not finite (+Inf)"},
		{"negative CPU", mut(func(s *profiling.Sample) { s.CPUCores = -1 }), "cpu_cores: negative utilisation -1"},
		{"negative co-runner", mut(func(s *profiling.Sample) { s.CoRunners[0].CPUCores = -2 }), "co_runners[0].cpu_cores: negative utilisation -2"},
		{"no co-runners", mut(func(s *profiling.Sample) { s.CoRunners = nil }), "co_runners: none (a standalone run is the baseline, not a co-location sample)"},
		{"bad socket", mut(func(s *profiling.Sample) { s.CoRunners[0].Socket = "left" }), `co_runners[0].socket: "left" is neither "same" nor "other"`},
		{"zero cores", mut(func(s *profiling.Sample) { s.CoresPerSocket = 0 }), "cores_per_socket: must be a positive number, got 0"},
		{"run time ≤ 0", mut(func(s *profiling.Sample) { s.Slowdown = -1 }), "slowdown: -1 ≤ −1 means a non-positive run time"},
	}
	for _, tt := range tests {
		obs, bad := Observations([]profiling.Sample{good, tt.sample})
		if len(obs) != 1 || len(bad) != 1 || bad[0].Row != 1 || bad[0].Reason != tt.reason {
			t.Errorf("%s: got %d accepted, quarantined %+v; want reason %q", tt.name, len(obs), bad, tt.reason)
		}
	}

	m, _ := ModelByName(Ours)
	if _, err := FitModel(context.Background(), m, synthObs(t, 6, 1)); !errors.Is(err, ErrTooFewSamples) {
		t.Errorf("6 samples for 6 parameters: got %v, want ErrTooFewSamples", err)
	}
	// A design where PJ is constant: TRACON-linear's c0 and c_pj are then
	// the same column up to scale.
	obs := synthObs(t, 100, 4)
	for i := range obs {
		obs[i].PJ = 40
	}
	lin, _ := ModelByName(TraconLinear)
	_, err := FitModel(context.Background(), lin, obs)
	var se *SingularError
	if !errors.As(err, &se) || !errors.Is(err, ErrSingular) {
		t.Errorf("constant PJ: got %v, want a SingularError", err)
	}
}

func TestNonConvergenceIsReported(t *testing.T) {
	obs := synthObs(t, 480, 5)
	m, _ := ModelByName(Ours)
	f, err := fitModel(context.Background(), m, obs, &Settings{MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if f.Converged() || f.Status != IterationLimit {
		t.Errorf("1 iteration: status %v, want iteration limit", f.Status)
	}
}

// TestModelGradients checks every model's analytic gradient against
// central differences (h = 1e-6·max(1,|p|); truncation error O(h²) ≈ 1e-12,
// rounding ≈ ε/h ≈ 1e-10 relative, hence the 1e-6 tolerance), and that the
// cached-exponential path of problem() gives the same Jacobian.
func TestModelGradients(t *testing.T) {
	obs := synthObs(t, 20, 6)
	rng := rand.New(rand.NewPCG(8, 9))
	for _, m := range Models() {
		n := len(m.Params)
		p := make([]float64, n)
		for j := range p {
			p[j] = 0.2 * rng.NormFloat64()
		}
		g := make([]float64, n)
		for i := range obs {
			o := obs[i]
			m.grad(g, p, &o)
			for j := range p {
				h := 1e-6 * math.Max(1, math.Abs(p[j]))
				pp := append([]float64(nil), p...)
				pp[j] += h
				up := m.eval(pp, &o)
				pp[j] -= 2 * h
				down := m.eval(pp, &o)
				fd := (up - down) / (2 * h)
				if math.Abs(fd-g[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s ∂/∂%s at obs %d: analytic %g, central difference %g", m.Name, m.Params[j].Name, i, g[j], fd)
				}
			}
		}
		prob := problem(m, obs)
		r := make([]float64, len(obs))
		prob.Residuals(r, p) // fills the exponential cache at p
		jac := mat.NewDense(len(obs), n, nil)
		prob.Jacobian(jac, p)
		for i := range obs {
			m.grad(g, p, &obs[i])
			for j := range g {
				if jac.At(i, j) != g[j] {
					t.Fatalf("%s: cached Jacobian (%d,%d) = %g, direct %g", m.Name, i, j, jac.At(i, j), g[j])
				}
			}
			if want := m.Predict(p, obs[i]) - obs[i].S; r[i] != want {
				t.Fatalf("%s: cached residual %d = %g, direct %g", m.Name, i, r[i], want)
			}
		}
	}
}

// TestNoStartingPointSaysWhy: observations whose squared error overflows at
// every grid start are refused with the reason (issue 16: the message was
// "no starting point: %!w(<nil>)").
func TestNoStartingPointSaysWhy(t *testing.T) {
	obs := synthObs(t, 100, 6)
	// Slowdowns of 1e200 are finite (Observations accepts them), but
	// their squared residuals overflow.
	for i := range obs {
		obs[i].S = 1e200 * float64(i%3)
	}
	m, _ := ModelByName(Ours)
	_, err := GridStart(m, obs)
	if err == nil {
		t.Fatal("GridStart on overflowing observations succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, "%!") || !strings.Contains(msg, "not finite") {
		t.Errorf("message %q: want the reason (squared error not finite), no formatting verbs", msg)
	}
}
