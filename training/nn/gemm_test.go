package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// withSpecials turns about 3 in oneIn of x's values into NaN, +Inf or
// −Inf, and returns x. The NaNs carry their index in their payload, so
// that where two meet, which one a kernel keeps shows: x86 keeps the
// first operand's, so the operands' order is part of the bits.
func withSpecials(x []float64, oneIn int, rng *rand.Rand) []float64 {
	for i := range x {
		switch rng.IntN(oneIn) {
		case 0:
			x[i] = math.Float64frombits(0x7ff8000000000000 | uint64(i+1))
		case 1:
			x[i] = math.Inf(1)
		case 2:
			x[i] = math.Inf(-1)
		}
	}
	return x
}

// randSparse draws n values of which about a third are exact zeros (as
// after a ReLU), a few −0: the kernels skip zero terms, which the serial
// emulation must do too.
func randSparse(n int, rng *rand.Rand) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch rng.IntN(12) {
		case 0, 1, 2:
		case 3:
			x[i] = math.Copysign(0, -1)
		default:
			x[i] = rng.NormFloat64()
		}
	}
	return x
}

// TestGemmMatchesDgemm compares gemm with gonum's Dgemm bit for bit on
// products small enough for Dgemm's serial path and large enough for its
// parallel one (at least 4 blocks of 64×64 in C), with inner dimensions
// over several blocks of 64, every transposition, and the betas the
// package uses.
func TestGemmMatchesDgemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][3]int{{200, 1, 128}, {1, 1, 128}, {200, 128, 1}, {20, 3, 1}, {300, 1, 70}, {1, 96, 64}, {411, 16, 32}, {411, 64, 16}, {200, 128, 33}, {64, 16, 411}, {130, 130, 200}, {300, 70, 150}, {5, 300, 129}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, beta := range []float64{0, 1, 0.5} {
					for _, alpha := range []float64{1, -0.7, 0} {
						a := general(m, k, k, randSparse(m*k, rng))
						if ta {
							a = general(k, m, m, a.Data)
						}
						b := general(k, n, n, randSparse(k*n, rng))
						if tb {
							b = general(n, k, k, b.Data)
						}
						c0 := randSparse(m*n, rng)
						want, got := append([]float64(nil), c0...), append([]float64(nil), c0...)
						tA, tB := blas.NoTrans, blas.NoTrans
						if ta {
							tA = blas.Trans
						}
						if tb {
							tB = blas.Trans
						}
						blas64.Gemm(tA, tB, alpha, a, b, beta, general(m, n, n, want))
						if fl := gemm(ta, tb, alpha, a, b, beta, general(m, n, n, got)); fl != int64(2*m*n*k) {
							t.Fatalf("%v: flops %d", sh, fl)
						}
						for i := range want {
							if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
								t.Fatalf("%dx%dx%d ta=%v tb=%v alpha=%v beta=%v: element %d is %v, Dgemm gives %v", m, n, k, ta, tb, alpha, beta, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestMessageMatchesAddScaled compares the fused message loops (for
// f = 3, four coefficients, the assembly kernels on the even part of
// the row) with the floats.AddScaled calls they replace, on inputs with
// and without exact zeros, −0, NaN and ±Inf.
func TestMessageMatchesAddScaled(t *testing.T) { bothKernelPaths(t, testMessageMatchesAddScaled) }

func testMessageMatchesAddScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		f := []int{1, 3, 3, 5}[trial%4]
		for _, d := range []int{1, 2, 8, 15, 16, 17, 24} {
			messageMatchesAddScaled(t, rng, trial, f, d)
		}
	}
}

// messageKernelWidth is how many of a row's d elements addMessage and
// spreadMessage leave to the assembly kernels with f+1 coefficients.
func messageKernelWidth(f, d int) int {
	switch {
	case f+1 != 4 || !haveKernels:
		return 0
	case haveAVX512 && d%8 == 0:
		return d
	default:
		return d &^ 1
	}
}

// messageMatchesAddScaled compares one message of f features on rows of
// d values with AddScaled. The kernels' elements must have its bits. The
// Go loops' may keep another NaN's payload where two NaNs meet in a sum
// (Go may emit a commutative addition either way round), so there a NaN
// matches any NaN; every other value must have the same bits.
func messageMatchesAddScaled(t *testing.T, rng *rand.Rand, trial, f, d int) {
	t.Helper()
	kw := messageKernelWidth(f, d)
	same := func(j int, want, got float64) bool {
		return math.Float64bits(want) == math.Float64bits(got) || j >= kw && math.IsNaN(want) && math.IsNaN(got)
	}
	vec := func(n int) []float64 {
		v := randSparse(n, rng)
		if trial%2 == 1 {
			v = withSpecials(v, 30, rng)
		}
		return v
	}
	ef := vec(f)
	y := vec((f + 1) * d)
	s := rng.Float64()
	o := vec(d)
	want, got := append([]float64(nil), o...), append([]float64(nil), o...)
	for k := 0; k < f; k++ {
		floats.AddScaled(want, s*ef[k], y[k*d:(k+1)*d])
	}
	floats.AddScaled(want, s, y[f*d:])
	c := messageCoefs(nil, s, ef, 0, f)
	addMessage(got, c, y)
	for i := range want {
		if !same(i, want[i], got[i]) {
			t.Fatalf("addMessage f=%d d=%d: element %d is %#x, AddScaled gives %#x", f, d, i, math.Float64bits(got[i]), math.Float64bits(want[i]))
		}
	}
	g := vec(d)
	wantDY, gotDY := append([]float64(nil), y...), append([]float64(nil), y...)
	for k := 0; k < f; k++ {
		floats.AddScaled(wantDY[k*d:(k+1)*d], s*ef[k], g)
	}
	floats.AddScaled(wantDY[f*d:], s, g)
	spreadMessage(gotDY, c, g)
	for i := range wantDY {
		if !same(i%d, wantDY[i], gotDY[i]) {
			t.Fatalf("spreadMessage f=%d d=%d: element %d is %#x, AddScaled gives %#x", f, d, i, math.Float64bits(gotDY[i]), math.Float64bits(wantDY[i]))
		}
	}
}

// TestGemmSerialBits compares gemmSerial with gonum's Dgemm bit for bit
// on random serial-sized products: every transposition, strided views
// (sub-matrices of wider ones, as gemm's blocks are), betas and alphas
// the package uses and others, and inputs with exact zeros, −0, NaN and
// ±Inf (the kernels skip a term whose coefficient is 0 but not one that
// is NaN, and must propagate what Dgemm propagates).
func TestGemmSerialBits(t *testing.T) { bothKernelPaths(t, testGemmSerialBits) }

// bothKernelPaths runs test without the AVX-512 kernels and, where the
// machine has AVX-512F, with them: they must give the same bits.
func bothKernelPaths(t *testing.T, test func(*testing.T)) {
	paths := []bool{false}
	if haveAVX512 {
		paths = append(paths, true)
	} else {
		t.Log("no AVX-512F here: its kernels untested")
	}
	defer func(v bool) { haveAVX512 = v }(haveAVX512)
	for _, on := range paths {
		haveAVX512 = on
		t.Run(fmt.Sprintf("avx512=%v", on), test)
	}
}

func testGemmSerialBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 3000; trial++ {
		m, n, k := 1+rng.IntN(64), 1+rng.IntN(80), rng.IntN(70)
		ta, tb := rng.IntN(2) == 1, rng.IntN(4) == 0
		alpha := []float64{1, -0.7, 0, 2.5}[rng.IntN(4)]
		beta := []float64{0, 1, 0.5, -1}[rng.IntN(4)]
		view := func(r, c int) blas64.General {
			pad := rng.IntN(3) * rng.IntN(9)
			d := randSparse(max(1, r*(c+pad)), rng)
			if trial%3 == 0 {
				d = withSpecials(d, 60, rng)
			}
			return general(r, c, c+pad, d)
		}
		var a, b blas64.General
		if ta {
			a = view(k, m)
		} else {
			a = view(m, k)
		}
		if tb {
			b = view(n, k)
		} else {
			b = view(k, n)
		}
		c0 := view(m, n)
		want := general(m, n, c0.Stride, append([]float64(nil), c0.Data...))
		got := general(m, n, c0.Stride, append([]float64(nil), c0.Data...))
		tA, tB := blas.NoTrans, blas.NoTrans
		if ta {
			tA = blas.Trans
		}
		if tb {
			tB = blas.Trans
		}
		if k == 0 {
			// blas64.General cannot describe a k = 0 operand (its
			// checks want a stride ≥ 1 and data); gemm handles k = 0
			// itself before calling gemmSerial.
			continue
		}
		blas64.Gemm(tA, tB, alpha, a, b, beta, want)
		gemmSerial(tA, tB, alpha, a, b, beta, got)
		for i := range want.Data {
			if math.Float64bits(want.Data[i]) != math.Float64bits(got.Data[i]) {
				t.Fatalf("trial %d: %dx%dx%d ta=%v tb=%v alpha=%v beta=%v strides %d,%d,%d: element %d is %v (%#x), Dgemm gives %v (%#x)",
					trial, m, n, k, ta, tb, alpha, beta, a.Stride, b.Stride, c0.Stride, i, got.Data[i], math.Float64bits(got.Data[i]), want.Data[i], math.Float64bits(want.Data[i]))
			}
		}
	}
}

// TestMatMulGradColsBits checks that MatMul's backward pass, computing
// dA only for the columns of a concatenation whose operands need a
// gradient (gradCols), leaves every parameter gradient bit-identical to
// the whole product's: the same network with the constant operand made
// a parameter (so that every column's gradient is computed) must give
// the other parameters the same bits. Shapes cover the serial and
// parallel blockings, a row batch (SetRowBatch) and both operand
// orders.
func TestMatMulGradColsBits(t *testing.T) {
	shapes := []struct{ rows, cx, ch, in, out, batch int }{
		{5, 3, 4, 6, 2, 1}, {300, 17, 16, 20, 16, 1}, {592, 17, 16, 20, 16, 8},
		{256, 17, 16, 40, 128, 1}, {256, 17, 16, 40, 128, 30}, {64, 70, 60, 9, 3, 1},
		// The columns needing a gradient span fewer blocks of 64 than
		// the whole: Dgemm would go serial on them where the whole
		// product goes parallel (summing k = 100 in two blocks), so
		// the whole product must be computed.
		{128, 70, 60, 9, 100, 1},
	}
	for _, sh := range shapes {
		for _, constFirst := range []bool{true, false} {
			run := func(xParam bool) (gW, gW1 []float64) {
				rng := rand.New(rand.NewPCG(uint64(sh.rows), 12))
				ps := NewParams()
				w1 := ps.New("w1", sh.in, sh.ch)
				w := ps.New("w", sh.cx+sh.ch, sh.out)
				p := ps.New("p", sh.rows, sh.cx)
				copy(w1.Data, randSparse(len(w1.Data), rng))
				copy(w.Data, randSparse(len(w.Data), rng))
				xdata := randSparse(sh.rows*sh.cx, rng)
				copy(p.Data, xdata)
				var tp Tape
				tp.SetRowBatch(sh.batch)
				h := tp.ReLU(tp.MatMul(tp.Const(sh.rows, sh.in, randSparse(sh.rows*sh.in, rng)), w1))
				x := tp.Const(sh.rows, sh.cx, xdata)
				if xParam {
					x = p
				}
				cat := tp.ConcatCols(x, h)
				if !constFirst {
					cat = tp.ConcatCols(h, x)
				}
				y := tp.MatMul(cat, w)
				tp.Backward(tp.Sum(tp.Mul(y, tp.Const(sh.rows, sh.out, randSparse(sh.rows*sh.out, rng)))))
				return append([]float64(nil), w.Grad...), append([]float64(nil), w1.Grad...)
			}
			wantW, wantW1 := run(true)
			gotW, gotW1 := run(false)
			for _, c := range []struct {
				name      string
				want, got []float64
			}{{"W", wantW, gotW}, {"W1", wantW1, gotW1}} {
				for i := range c.want {
					if math.Float64bits(c.want[i]) != math.Float64bits(c.got[i]) {
						t.Fatalf("%+v constFirst=%v: %s.Grad[%d] is %v, %v with every column's gradient", sh, constFirst, c.name, i, c.got[i], c.want[i])
					}
				}
			}
		}
	}
}

// TestReLUInlinedBits compares the inlined ReLU loops of elementwise and
// its backward pass with the generic path (the same functions called per
// element) bit for bit, on inputs with ±0, NaN and ±Inf and incoming
// gradients with −0 (which the +0 added where x ≤ 0 turns into +0).
func TestReLUInlinedBits(t *testing.T) {
	generic := &elementwiseOp{f: reluOp.f, grad: reluOp.grad}
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 2000
	x, g0, gout := randSparse(n, rng), randSparse(n, rng), randSparse(n, rng)
	withSpecials(x, 40, rng)
	run := func(op *elementwiseOp) (y, g []float64) {
		a := &Node{Rows: 1, Cols: n, Data: x, Grad: append([]float64(nil), g0...), needGrad: true}
		var tp Tape
		out := tp.elementwise(op, a)
		out.Grad = gout
		op.backward(&tp, out)
		return out.Data, a.Grad
	}
	wy, wg := run(generic)
	gy, gg := run(reluOp)
	for i := range wy {
		if math.Float64bits(wy[i]) != math.Float64bits(gy[i]) || math.Float64bits(wg[i]) != math.Float64bits(gg[i]) {
			t.Fatalf("element %d (x = %v, dA = %v): inlined gives %v and %v, generic %v and %v", i, x[i], g0[i], gy[i], gg[i], wy[i], wg[i])
		}
	}
}
