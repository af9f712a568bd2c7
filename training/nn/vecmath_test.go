package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestExp4yIsMathExp checks the vector exponential against math.Exp bit
// for bit over its whole domain [expLo, 0]: random points at every scale
// and the edges of the range reduction (k·ln 2 and halfway between).
func TestExp4yIsMathExp(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2 and FMA: exp4y is not used")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{0, math.Copysign(0, -1), -1e-300, -5e-324, expLo, -707.9999999, -0.5, -1}
	for k := 0; k <= 1021; k++ {
		for _, f := range []float64{0, 0.5} {
			c := -(float64(k) + f) * math.Ln2
			xs = append(xs, c, math.Nextafter(c, 0), math.Nextafter(c, math.Inf(-1)))
		}
	}
	// 400,000 random points; 20,000 under the race detector or -short,
	// whose slowed Go loop would take seconds (the kernel is not raced).
	random := 200000
	if raceEnabled || testing.Short() {
		random = 10000
	}
	for range random {
		xs = append(xs, -math.Exp(rng.Float64()*14-7)*rng.Float64(), expLo*rng.Float64())
	}
	xs = xs[:len(xs)&^3]
	got := append([]float64(nil), xs...)
	exp4y(&got[0], len(got))
	for i, x := range xs {
		if x < expLo {
			continue
		}
		if want := math.Exp(x); math.Float64bits(got[i]) != math.Float64bits(want) {
			t.Fatalf("exp(%v): exp4y %v, math.Exp %v", x, got[i], want)
		}
	}
}

// softmaxRowRef is MaskedSoftmaxRow as it was written before the vector
// exponential: one scalar pass.
func softmaxRowRef(s []float64, present []bool) {
	m := maskedMax(s, present)
	if math.IsInf(m, -1) {
		clear(s)
		return
	}
	var sum float64
	for j, v := range s {
		if present != nil && !present[j] {
			s[j] = 0
			continue
		}
		s[j] = math.Exp(v - m)
		sum += s[j]
	}
	floats.Scale(1/sum, s)
}

// TestMaskedSoftmaxRowBits checks MaskedSoftmaxRow against the one-pass
// scalar softmax bit for bit, on both exponential paths, for rows of
// every length to 19 (vector blocks and tails), with and without masks,
// and with scores far apart, infinite or NaN (the scalar fallback).
func TestMaskedSoftmaxRowBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	saved := haveFMA
	defer func() { haveFMA = saved }()
	for _, fma := range []bool{saved, false} {
		haveFMA = fma
		for n := 0; n < 20; n++ {
			for trial := range 200 {
				s := make([]float64, n)
				for j := range s {
					s[j] = rng.NormFloat64() * []float64{0.1, 3, 400}[trial%3]
				}
				if n > 0 && trial%17 == 0 {
					s[rng.IntN(n)] = []float64{math.Inf(-1), math.Inf(1), math.NaN()}[trial%3]
				}
				var present []bool
				if trial%2 == 1 {
					present = make([]bool, n)
					for j := range present {
						present[j] = rng.IntN(3) > 0
					}
				}
				got, want := append([]float64(nil), s...), append([]float64(nil), s...)
				MaskedSoftmaxRow(got, present)
				softmaxRowRef(want, present)
				for j := range got {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("fma %v, row %v, present %v: entry %d is %v, want %v", fma, s, present, j, got[j], want[j])
					}
				}
			}
		}
	}
}

// TestAdamKernelBits steps two copies of one parameter set, one with the
// vector update and one with the scalar loop, and requires the same bits
// after every step: parameters of lengths that leave tails, gradients
// with zeros, huge and tiny entries, and clipping on.
func TestAdamKernelBits(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2 and FMA: adam4y is not used")
	}
	saved := haveFMA
	defer func() { haveFMA = saved }()
	sizes := [][2]int{{1, 1}, {3, 5}, {4, 4}, {7, 9}, {1, 3}}
	build := func() (*Params, *Adam) {
		ps := NewParams()
		rng := rand.New(rand.NewPCG(5, 6))
		for i, s := range sizes {
			p := ps.New(string(rune('a'+i)), s[0], s[1])
			for j := range p.Data {
				p.Data[j] = rng.NormFloat64()
			}
		}
		return ps, NewAdam(ps, AdamConfig{LR: 3e-3, MaxGradNorm: 5})
	}
	psV, adV := build()
	psS, adS := build()
	rng := rand.New(rand.NewPCG(7, 8))
	for step := range 50 {
		for i, p := range psV.list {
			for j := range p.Grad {
				g := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6))
				if rng.IntN(4) == 0 {
					g = 0
				}
				p.Grad[j], psS.list[i].Grad[j] = g, g
			}
		}
		haveFMA = true
		adV.Step()
		haveFMA = false
		adS.Step()
		for i, p := range psV.list {
			q := psS.list[i]
			for j := range p.Data {
				if math.Float64bits(p.Data[j]) != math.Float64bits(q.Data[j]) || p.Grad[j] != 0 || q.Grad[j] != 0 {
					t.Fatalf("step %d, parameter %d[%d]: vector %v, scalar %v", step, i, j, p.Data[j], q.Data[j])
				}
				if math.Float64bits(adV.m[i][j]) != math.Float64bits(adS.m[i][j]) || math.Float64bits(adV.v[i][j]) != math.Float64bits(adS.v[i][j]) {
					t.Fatalf("step %d, parameter %d[%d]: moments differ", step, i, j)
				}
			}
		}
	}
}
