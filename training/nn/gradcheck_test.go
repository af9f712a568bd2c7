package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Finite-difference settings for every operator's gradient check.
//
// Central differences have truncation error h²·|f”'|/6 and rounding error
// about ε·|L|/h (ε = 2.2e-16). With inputs and losses of order 1..10,
// h = 1e-5 puts both near 1e-10, well below the tolerance; a larger h lets
// the curvature of exp/tanh/Matérn show, a smaller one lets rounding in L
// dominate.
//
// The error measure is |analytic − numeric| / max(|analytic|, |numeric|,
// gradFloor): relative for gradients above gradFloor and absolute (scaled
// by 1/gradFloor) below it, so that entries that are zero in exact
// arithmetic, where a relative error is undefined, are judged by their
// ~1e-10 absolute error instead.
const (
	fdStep    = 1e-5
	gradFloor = 1e-3
	gradTol   = 1e-6
)

// gradInput describes one operand of a checked operator: its shape and a
// fill for its values (uniform in [lo, hi) unless fill is set).
type gradInput struct {
	rows, cols int
	lo, hi     float64
	fill       func(rng *rand.Rand, data []float64)
}

func in(rows, cols int) gradInput { return gradInput{rows: rows, cols: cols, lo: -1, hi: 1} }

func inRange(rows, cols int, lo, hi float64) gradInput {
	return gradInput{rows: rows, cols: cols, lo: lo, hi: hi}
}

// checkGrad builds the operator's graph on inputs that all require a
// gradient, contracts its output with fixed random weights R into the
// scalar L = Σ R ⊙ out (so every output entry matters and differently), and
// compares Backward's gradients with central differences of L. It reuses
// one Tape for every evaluation, which also exercises Reset.
func checkGrad(t *testing.T, inputs []gradInput, build func(tp *Tape, x []*Node) *Node) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	ps := NewParams()
	x := make([]*Node, len(inputs))
	for i, spec := range inputs {
		x[i] = ps.New(fmt.Sprint("x", i), spec.rows, spec.cols)
		if spec.fill != nil {
			spec.fill(rng, x[i].Data)
			continue
		}
		for j := range x[i].Data {
			x[i].Data[j] = spec.lo + (spec.hi-spec.lo)*rng.Float64()
		}
	}
	checkParamGrads(t, ps, rng, build, x)
}

// checkParamGrads is checkGrad's core: it checks the gradient of every
// parameter in ps, for graphs built from them by build (an operator on
// inputs, or a whole module).
func checkParamGrads[X any](t *testing.T, ps *Params, rng *rand.Rand, build func(tp *Tape, x X) *Node, x X) {
	t.Helper()
	var tp Tape
	var weights []float64
	loss := func() *Node {
		tp.Reset()
		out := build(&tp, x)
		if weights == nil {
			weights = make([]float64, len(out.Data))
			for j := range weights {
				weights[j] = 2*rng.Float64() - 1
			}
		}
		return tp.Sum(tp.Mul(out, tp.Const(out.Rows, out.Cols, weights)))
	}
	l := loss()
	if math.IsNaN(l.Data[0]) || math.IsInf(l.Data[0], 0) {
		t.Fatalf("loss is %v", l.Data[0])
	}
	ps.ZeroGrad()
	tp.Backward(l)
	worst := 0.0
	for _, p := range ps.List() {
		for j := range p.Data {
			analytic := p.Grad[j]
			orig := p.Data[j]
			p.Data[j] = orig + fdStep
			plus := loss().Data[0]
			p.Data[j] = orig - fdStep
			minus := loss().Data[0]
			p.Data[j] = orig
			numeric := (plus - minus) / (2 * fdStep)
			err := math.Abs(analytic-numeric) / max(math.Abs(analytic), math.Abs(numeric), gradFloor)
			if !(err < gradTol) {
				t.Errorf("%s[%d]: analytic %.10g, numeric %.10g, error %.2g", p.Name, j, analytic, numeric, err)
			}
			worst = max(worst, err)
		}
	}
	t.Logf("worst error %.1e", worst)
}

// spd fills an n×n matrix with AAᵀ + n·I, comfortably positive definite,
// then perturbs the upper triangle so the matrix is not symmetric (the op
// must use only its symmetric part).
func spd(n int) func(*rand.Rand, []float64) {
	return func(rng *rand.Rand, d []float64) {
		a := make([]float64, n*n)
		for i := range a {
			a[i] = 2*rng.Float64() - 1
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := 0; k < n; k++ {
					s += a[i*n+k] * a[j*n+k]
				}
				d[i*n+j] = s
			}
			d[i*n+i] += float64(n)
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				d[i*n+j] += 0.1 * rng.Float64()
			}
		}
	}
}

func TestOperatorGradients(t *testing.T) {
	// Keys of the attention sets: set 0 has all four present, set 1 only
	// one, set 2 none (its outputs must be 0, not NaN).
	keyMask := []bool{true, true, true, true, false, true, false, false, false, false, false, false}
	actMask := []bool{
		true, false, true, true,
		false, false, true, false, // one allowed action: probability 1
		true, true, true, true,
	}
	graph, err := NewGraph(5, []int{0, 1, 2, 3, 1, 0, 4}, []int{1, 2, 0, 0, 3, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	gather := []int{2, 0, 2, 1}
	cases := []struct {
		name   string
		inputs []gradInput
		build  func(tp *Tape, x []*Node) *Node
	}{
		{"MatMul", []gradInput{in(3, 4), in(4, 5)}, func(tp *Tape, x []*Node) *Node { return tp.MatMul(x[0], x[1]) }},
		{"Transpose", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Transpose(x[0]) }},
		{"Add", []gradInput{in(3, 4), in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Add(x[0], x[1]) }},
		{"Add/row", []gradInput{in(3, 4), in(1, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Add(x[0], x[1]) }},
		{"Add/col", []gradInput{in(3, 4), in(3, 1)}, func(tp *Tape, x []*Node) *Node { return tp.Add(x[0], x[1]) }},
		{"Add/scalar", []gradInput{in(3, 4), in(1, 1)}, func(tp *Tape, x []*Node) *Node { return tp.Add(x[0], x[1]) }},
		{"Sub", []gradInput{in(3, 4), in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Sub(x[0], x[1]) }},
		{"Sub/row", []gradInput{in(3, 4), in(1, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Sub(x[0], x[1]) }},
		{"Mul", []gradInput{in(3, 4), in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Mul(x[0], x[1]) }},
		{"Mul/row", []gradInput{in(3, 4), in(1, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Mul(x[0], x[1]) }},
		{"Mul/col", []gradInput{in(3, 4), in(3, 1)}, func(tp *Tape, x []*Node) *Node { return tp.Mul(x[0], x[1]) }},
		{"Mul/scalar", []gradInput{in(3, 4), in(1, 1)}, func(tp *Tape, x []*Node) *Node { return tp.Mul(x[0], x[1]) }},
		{"Mul/self", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Mul(x[0], x[0]) }},
		{"Scale", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Scale(x[0], -2.5) }},
		{"AddScalar", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.AddScalar(x[0], 0.7) }},
		// Inputs keep ≥ 0.05 away from the clamp bounds ±0.5 (and from
		// each other for Minimum) so that h cannot cross a kink.
		{"Clamp", []gradInput{{rows: 3, cols: 4, fill: func(rng *rand.Rand, d []float64) {
			for i := range d {
				d[i] = []float64{-0.9, -0.3, 0, 0.35, 0.8}[i%5] + 0.05*rng.Float64()
			}
		}}}, func(tp *Tape, x []*Node) *Node { return tp.Clamp(x[0], -0.5, 0.5) }},
		{"Minimum", []gradInput{{rows: 3, cols: 4, fill: func(rng *rand.Rand, d []float64) {
			for i := range d {
				d[i] = float64(i%3) - 1 + 0.05*rng.Float64()
			}
		}}, {rows: 3, cols: 4, fill: func(rng *rand.Rand, d []float64) {
			for i := range d {
				d[i] = float64(i%2) - 0.5 + 0.05*rng.Float64()
			}
		}}}, func(tp *Tape, x []*Node) *Node { return tp.Minimum(x[0], x[1]) }},
		// Inputs stay 0.1 away from ReLU's kink so h cannot cross it.
		{"ReLU", []gradInput{{rows: 3, cols: 4, fill: func(rng *rand.Rand, d []float64) {
			for i := range d {
				d[i] = (0.1 + rng.Float64()) * float64(1-2*(i%2))
			}
		}}}, func(tp *Tape, x []*Node) *Node { return tp.ReLU(x[0]) }},
		{"Tanh", []gradInput{inRange(3, 4, -2, 2)}, func(tp *Tape, x []*Node) *Node { return tp.Tanh(x[0]) }},
		{"Sigmoid", []gradInput{inRange(3, 4, -3, 3)}, func(tp *Tape, x []*Node) *Node { return tp.Sigmoid(x[0]) }},
		{"Exp", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Exp(x[0]) }},
		{"Log", []gradInput{inRange(3, 4, 0.5, 2)}, func(tp *Tape, x []*Node) *Node { return tp.Log(x[0]) }},
		{"Softmax", []gradInput{inRange(3, 5, -3, 3)}, func(tp *Tape, x []*Node) *Node { return tp.Softmax(x[0]) }},
		{"MaskedSoftmax", []gradInput{inRange(3, 4, -3, 3)}, func(tp *Tape, x []*Node) *Node { return tp.MaskedSoftmax(x[0], actMask) }},
		{"LogSoftmax", []gradInput{inRange(3, 5, -3, 3)}, func(tp *Tape, x []*Node) *Node { return tp.LogSoftmax(x[0]) }},
		{"ConcatCols", []gradInput{in(3, 2), in(3, 1), in(3, 3)}, func(tp *Tape, x []*Node) *Node { return tp.ConcatCols(x[0], x[1], x[2]) }},
		{"ConcatRows", []gradInput{in(2, 3), in(1, 3)}, func(tp *Tape, x []*Node) *Node { return tp.ConcatRows(x[0], x[1]) }},
		{"SliceRows", []gradInput{in(5, 3)}, func(tp *Tape, x []*Node) *Node { return tp.SliceRows(x[0], 1, 4) }},
		{"SliceCols", []gradInput{in(3, 5)}, func(tp *Tape, x []*Node) *Node { return tp.SliceCols(x[0], 2, 4) }},
		{"GatherRows", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.GatherRows(x[0], gather) }},
		{"Pick", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Pick(x[0], []int{3, 0, 3}) }},
		{"SegmentMeans", []gradInput{in(6, 2)}, func(tp *Tape, x []*Node) *Node { return tp.SegmentMeans(x[0], 3) }},
		{"Sum", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Sum(x[0]) }},
		{"Mean", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.Mean(x[0]) }},
		{"RowSums", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.RowSums(x[0]) }},
		{"RowMeans", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.RowMeans(x[0]) }},
		{"ColSums", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.ColSums(x[0]) }},
		{"ColMeans", []gradInput{in(3, 4)}, func(tp *Tape, x []*Node) *Node { return tp.ColMeans(x[0]) }},
		{"LayerNorm", []gradInput{inRange(3, 5, -2, 2), inRange(1, 5, 0.5, 1.5), in(1, 5)}, func(tp *Tape, x []*Node) *Node {
			return tp.LayerNorm(x[0], x[1], x[2], 1e-5)
		}},
		{"SelfAttention", []gradInput{in(8, 12)}, func(tp *Tape, x []*Node) *Node { return tp.SelfAttention(x[0], 4, 2, nil) }},
		{"SelfAttention/masked", []gradInput{in(12, 12)}, func(tp *Tape, x []*Node) *Node { return tp.SelfAttention(x[0], 4, 2, keyMask) }},
		{"EdgeConv", []gradInput{in(5, 3), in(7, 2), in(2, 9), in(1, 9)}, func(tp *Tape, x []*Node) *Node {
			return tp.EdgeConv(x[0], x[1], x[2], x[3], graph)
		}},
		{"EdgeConvRows", []gradInput{in(5, 3), in(7, 2), in(2, 9), in(1, 9)}, func(tp *Tape, x []*Node) *Node {
			return tp.EdgeConvRows(x[0], x[1], x[2], x[3], graph, []int{4, 1, 3})
		}},
		// f+1 = 4 and d = 16: the assembly kernels' shapes.
		{"EdgeConvRows/kernel", []gradInput{in(5, 16), in(7, 3), in(3, 256), in(1, 256)}, func(tp *Tape, x []*Node) *Node {
			return tp.EdgeConvRows(x[0], x[1], x[2], x[3], graph, []int{2, 0})
		}},
		{"GaussianLogProb", []gradInput{in(3, 2), in(3, 2), inRange(3, 2, 0.3, 1.5)}, func(tp *Tape, x []*Node) *Node {
			return tp.GaussianLogProb(x[0], x[1], x[2])
		}},
		{"GaussianEntropy", []gradInput{inRange(3, 2, 0.3, 1.5)}, func(tp *Tape, x []*Node) *Node { return tp.GaussianEntropy(x[0]) }},
		{"CategoricalLogProb", []gradInput{inRange(3, 4, -2, 2)}, func(tp *Tape, x []*Node) *Node {
			return tp.CategoricalLogProb(x[0], actMask, []int{3, 2, 1})
		}},
		{"CategoricalLogProb/nomask", []gradInput{inRange(3, 4, -2, 2)}, func(tp *Tape, x []*Node) *Node {
			return tp.CategoricalLogProb(x[0], nil, []int{0, 3, 1})
		}},
		{"CategoricalEntropy", []gradInput{inRange(3, 4, -2, 2)}, func(tp *Tape, x []*Node) *Node { return tp.CategoricalEntropy(x[0], actMask) }},
		{"Matern52", []gradInput{in(3, 2), in(4, 2), inRange(1, 1, 0.5, 1.5)}, func(tp *Tape, x []*Node) *Node {
			return tp.Matern52(x[0], x[1], x[2])
		}},
		{"Matern52/self", []gradInput{in(3, 2), inRange(1, 1, 0.5, 1.5)}, func(tp *Tape, x []*Node) *Node {
			return tp.Matern52(x[0], x[0], x[1])
		}},
		{"AddDiag", []gradInput{in(3, 3), in(1, 1)}, func(tp *Tape, x []*Node) *Node { return tp.AddDiag(x[0], x[1]) }},
		{"CholSolve", []gradInput{{rows: 4, cols: 4, fill: spd(4)}, in(4, 2)}, func(tp *Tape, x []*Node) *Node {
			return tp.CholSolve(x[0], x[1])
		}},
		// The GP's use: (K(X,X) + σ²I)⁻¹ y through the kernel.
		{"GPSolve", []gradInput{in(4, 2), inRange(1, 1, 0.5, 1.5), inRange(1, 1, 0.1, 0.5), in(4, 1)}, func(tp *Tape, x []*Node) *Node {
			return tp.CholSolve(tp.AddDiag(tp.Matern52(x[0], x[0], x[1]), x[2]), x[3])
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkGrad(t, c.inputs, c.build) })
	}
}
