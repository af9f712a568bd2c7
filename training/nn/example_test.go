package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedlab/schedlab/training/nn"
)

// Fit y = 2x + 1 with one Linear layer and Adam. The tape is reset and
// rebuilt every step; after the first step that costs no allocation.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := nn.NewParams()
	lin := nn.NewLinear(ps, "fit", 1, 1, nn.Glorot, rng)
	opt := nn.NewAdam(ps, nn.AdamConfig{LR: 0.05})

	xs := []float64{-2, -1, 0, 1, 2, 3}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = 2*x + 1
	}
	var t nn.Tape
	for range 2000 {
		t.Reset()
		pred := lin.Forward(&t, t.Const(len(xs), 1, xs))
		diff := t.Sub(pred, t.Const(len(ys), 1, ys))
		t.Backward(t.Mean(t.Mul(diff, diff)))
		opt.Step()
	}
	fmt.Printf("w = %.3f, b = %.3f\n", lin.W.Scalar(), lin.B.Scalar())
	// Output: w = 2.000, b = 1.000
}
