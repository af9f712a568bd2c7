package das

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/training/nn"
	"gonum.org/v1/gonum/mat"
)

// bruteWalkKernel is the random-walk kernel by its definition on the
// product graph: 1ᵀ exp(β · P1/M1 ⊗ P2/M2) 1 / (M1·M2), with the M1M2×M1M2
// Kronecker product and gonum's matrix exponential.
func bruteWalkKernel(p1, p2 *mat.Dense, beta float64) float64 {
	m1, _ := p1.Dims()
	m2, _ := p2.Dims()
	var k mat.Dense
	k.Kronecker(p1, p2)
	k.Scale(beta/float64(m1*m2), &k)
	var e mat.Dense
	e.Exp(&k)
	return mat.Sum(&e) / float64(m1*m2)
}

func TestWalkKernelMatchesKronecker(t *testing.T) {
	cases := []struct {
		m1, m2 int
		beta   float64
	}{
		{2, 2, 0.5}, {3, 3, 1}, {4, 3, 2}, {5, 5, 1.5}, {3, 6, 0.1},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		t.Run(fmt.Sprintf("M%dx%d_beta%g", c.m1, c.m2, c.beta), func(t *testing.T) {
			var tp nn.Tape
			rho := tp.Const(1, 1, []float64{1.3})
			lb := tp.Const(1, 1, []float64{math.Log(c.beta)})
			graph := func(m int) (*nn.Node, *mat.Dense) {
				x := make([]float64, m*3)
				for i := range x {
					x[i] = rng.NormFloat64()
				}
				xn := tp.Const(m, 3, x)
				p := tp.Matern52(xn, xn, rho)
				return p, mat.NewDense(m, m, append([]float64(nil), p.Data...))
			}
			p1, d1 := graph(c.m1)
			p2, d2 := graph(c.m2)
			// L = 20: the truncated tail is below β^21/21! < 1e-13.
			f1 := walkFeatures(&tp, p1, lb, 20)
			f2 := walkFeatures(&tp, p2, lb, 20)
			got := 0.0
			for i := range f1.Data {
				got += f1.Data[i] * f2.Data[i]
			}
			want := bruteWalkKernel(d1, d2, c.beta)
			// Both sides are sums of positive terms of size O(e^β); the
			// matrix exponential (Padé) is accurate to ~1e-14 relative.
			if math.Abs(got-want) > 1e-10*want {
				t.Errorf("feature map %.15g, Kronecker exponential %.15g", got, want)
			}
		})
	}
}

// TestWalkKernelGramIsPSD: the Gram matrix of the feature map over
// several graphs has no negative eigenvalue (it is ΦΦᵀ).
func TestWalkKernelGramIsPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tp nn.Tape
	rho := tp.Const(1, 1, []float64{0.8})
	lb := tp.Const(1, 1, []float64{0.3})
	const g = 6
	phis := make([]*nn.Node, g)
	for i := range phis {
		x := make([]float64, 4*2)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		xn := tp.Const(4, 2, x)
		phis[i] = walkFeatures(&tp, tp.Matern52(xn, xn, rho), lb, 8)
	}
	phi := tp.ConcatRows(phis...)
	k := tp.MatMul(phi, tp.Transpose(phi))
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(g, k.Data), false) {
		t.Fatal("eigen decomposition failed")
	}
	for _, v := range eig.Values(nil) {
		if v < -1e-12 {
			t.Errorf("eigenvalue %g < 0", v)
		}
	}
}

// TestWalkerMatchesTape: the tape-free feature map used for acting agrees
// with the recorded one (Matern52, then walkFeatures) on random small
// graphs, including a single machine, coinciding machines (s = 0) and β
// beyond maxBeta (clamped).
func TestWalkerMatchesTape(t *testing.T) {
	cases := []struct {
		name       string
		m, e, L    int
		rho, beta  float64
		duplicates bool
	}{
		{"one machine", 1, 3, 8, 1, 1, false},
		{"L0", 4, 2, 0, 0.7, 1, false},
		{"narrow", 5, 1, 8, 0.3, 0.5, false},
		{"coinciding", 6, 4, 8, 1.2, 1.5, true},
		{"wide", 9, 16, 12, 4, 2, false},
		{"beta clamped", 7, 5, 8, 2, 5, false},
		{"long scale", 8, 3, 8, 50, 1, false},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := make([]float64, c.m*c.e)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			if c.duplicates {
				copy(x[c.e:2*c.e], x[:c.e]) // rows 0 and 1 coincide
			}
			var tp nn.Tape
			xn := tp.Const(c.m, c.e, x)
			rho := tp.Const(1, 1, []float64{c.rho})
			lb := tp.Const(1, 1, []float64{math.Log(c.beta)})
			want := walkFeatures(&tp, tp.Matern52(xn, xn, rho), lb, c.L).Data
			got := newWalker(c.m, c.rho, walkCoefs(&tp, lb, c.L).Data).features(x, c.e)
			if len(got) != len(want) {
				t.Fatalf("%d features, want %d", len(got), len(want))
			}
			// The same expressions in the same order: equal in practice;
			// 1e-12 relative leaves room for a BLAS that sums otherwise.
			for l := range want {
				if math.Abs(got[l]-want[l]) > 1e-12*math.Abs(want[l]) {
					t.Errorf("φ_%d: walker %.17g, tape %.17g", l, got[l], want[l])
				}
			}
		})
	}
}
