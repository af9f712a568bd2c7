package evaluation

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBootstrapMeanCI(t *testing.T) {
	vals := []float64{10, 12, 11, 13, 9}
	a := BootstrapMeanCI(vals, 0.95, BootstrapResamples, rand.NewPCG(1, 2))
	b := BootstrapMeanCI(vals, 0.95, BootstrapResamples, rand.NewPCG(1, 2))
	if a != b {
		t.Fatalf("same stream, different intervals: %+v %+v", a, b)
	}
	if a.Mean != 11 || a.N != 5 {
		t.Fatalf("mean %v n %d, want 11 and 5", a.Mean, a.N)
	}
	// The bootstrap distribution of the mean of these five values has
	// standard deviation sqrt(2/5·(4/5))≈0.63 (population variance 2, n=5,
	// resampling variance σ²/n); a 95 % percentile interval is about
	// ±1.96·0.63 ≈ ±1.24 wide, and can never leave [min, max].
	if a.Lo < 9 || a.Hi > 13 || a.Lo >= a.Mean || a.Hi <= a.Mean {
		t.Fatalf("interval %+v not inside [9,13] around 11", a)
	}
	if w := a.Hi - a.Lo; math.Abs(w-2.48) > 0.4 {
		t.Fatalf("width %.3f, want about 2.48", w)
	}
	c := BootstrapMeanCI(vals, 0.95, BootstrapResamples, rand.NewPCG(3, 4))
	if math.Abs(c.Lo-a.Lo) > 0.1 || math.Abs(c.Hi-a.Hi) > 0.1 {
		t.Fatalf("two streams disagree by more than 0.1: %+v %+v", a, c)
	}
}

func TestBootstrapMeanCIDegenerate(t *testing.T) {
	one := BootstrapMeanCI([]float64{7, math.NaN()}, 0.95, 100, rand.NewPCG(1, 1))
	if one.Valid() || one.Mean != 7 || one.Lo != 7 || one.Hi != 7 {
		t.Fatalf("one value: %+v", one)
	}
	none := BootstrapMeanCI(nil, 0.95, 100, rand.NewPCG(1, 1))
	if none.Valid() || !math.IsNaN(none.Mean) {
		t.Fatalf("no value: %+v", none)
	}
	same := BootstrapMeanCI([]float64{4, 4, 4}, 0.95, 100, rand.NewPCG(1, 1))
	if same.Lo != 4 || same.Hi != 4 {
		t.Fatalf("constant values: %+v", same)
	}
}
