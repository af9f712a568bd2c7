package fitting_test

import (
	"context"
	"fmt"
	"math"

	"github.com/schedlab/schedlab/fitting"
	"gonum.org/v1/gonum/mat"
)

// Fit y = b1·(1 − exp(−b2·x)), the form of NIST's Misra1a and BoxBOD
// problems, to eight points made from b1 = 2.5, b2 = 0.4 with a fixed
// ±1 % wobble, from a start far off. The Jacobian is left to central
// differences. The wobble moves the estimates off the truth by about
// their standard errors; printed to three places they are far from a
// rounding boundary, so the output is the same on every platform.
func ExampleMinimize() {
	xs := []float64{1, 2, 3, 4, 5, 6, 8, 10}
	wobble := []float64{0.01, -0.01, 0.005, -0.005, 0.01, -0.01, 0.005, -0.005}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = 2.5 * (1 - math.Exp(-0.4*x)) * (1 + wobble[i])
	}
	p := fitting.Problem{M: len(xs), Residuals: func(dst, b []float64) {
		for i, x := range xs {
			dst[i] = b[0]*(1-math.Exp(-b[1]*x)) - ys[i]
		}
	}}
	res, err := fitting.Minimize(context.Background(), p, []float64{10, 0.01}, &fitting.Settings{Diff: fitting.Central})
	if err != nil {
		panic(err)
	}
	fmt.Printf("converged=%v b1=%.3f b2=%.3f\n", res.Status.Converged(), res.X[0], res.X[1])
	fmt.Printf("standard errors %.3f %.3f\n", res.StdErr[0], res.StdErr[1])
	// Output:
	// converged=true b1=2.496 b2=0.401
	// standard errors 0.014 0.006
}

// Fit the interference model "ours", S = α1·exp(α2·UC + α3·CJ) + β1·UP +
// β2·PJ + λ, to noise-free observations made from known coefficients: the
// fit recovers them.
func ExampleFitModel() {
	truth := []float64{0.05, 0.3, 0.1, 0.02, 0.01, 0.04}
	m, _ := fitting.ModelByName(fitting.Ours)
	var obs []fitting.Observation
	for _, uc := range []float64{0, 2, 4, 6} {
		for _, cj := range []float64{1, 3, 5} {
			for _, up := range []float64{0, 10} {
				for _, pj := range []float64{1, 4} {
					o := fitting.Observation{UC: uc, CJ: cj, UP: up, PJ: pj}
					o.S = m.Predict(truth, o)
					obs = append(obs, o)
				}
			}
		}
	}
	f, err := fitting.FitModel(context.Background(), m, obs)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Method, f.N, "observations, converged:", f.Converged())
	for i, p := range m.Params {
		fmt.Printf("%-6s %.4f\n", p.Name, f.Params[i])
	}
	// Output:
	// variable-projection 48 observations, converged: true
	// alpha1 0.0500
	// alpha2 0.3000
	// alpha3 0.1000
	// beta1  0.0200
	// beta2  0.0100
	// lambda 0.0400
}

// Solve an overdetermined linear system by QR: the line through four
// points that are not quite collinear.
func ExampleLinearLeastSquares() {
	a := mat.NewDense(4, 2, []float64{
		1, 0,
		1, 1,
		1, 2,
		1, 3,
	})
	b := []float64{1, 3, 4, 7}
	x, err := fitting.LinearLeastSquares(nil, a, b)
	if err != nil {
		panic(err)
	}
	fmt.Printf("intercept %.2f slope %.2f\n", x[0], x[1])
	// Output: intercept 0.90 slope 1.90
}
