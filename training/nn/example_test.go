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

// A batch of sets for the DAS ordering network: 2 decisions with up to 3
// pending jobs each, stacked as 6 rows; the second decision has only one
// job, so its other two rows are padding that no job attends to.
func ExampleMultiHeadAttention() {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := nn.NewParams()
	attn := nn.NewMultiHeadAttention(ps, "attn", 8, 2, rng)

	const sets, jobs, dim = 2, 3, 8
	x := make([]float64, sets*jobs*dim)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	present := []bool{true, true, true, true, false, false}
	var t nn.Tape
	out := attn.Forward(&t, t.Const(sets*jobs, dim, x), jobs, present)
	fmt.Printf("%dx%d\n", out.Rows, out.Cols)
	// Output: 6x8
}

// One edge-conditioned convolution over a 3-node path graph; each link is
// two directed edges, and every edge carries 2 features.
func ExampleECC() {
	rng := rand.New(rand.NewPCG(1, 2))
	g, err := nn.NewGraph(3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1})
	if err != nil {
		panic(err)
	}
	ps := nn.NewParams()
	layer := nn.NewECC(ps, "ecc", 4, 2, 5, rng)

	var t nn.Tape
	h := t.Const(3, 4, []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0})
	edges := t.Const(4, 2, []float64{1, 0.5, 1, 0.5, 0.2, 1, 0.2, 1})
	out := layer.Forward(&t, h, edges, g)
	fmt.Printf("%dx%d, parameters %d\n", out.Rows, out.Cols, ps.Size())
	// Output: 3x5, parameters 92
}
