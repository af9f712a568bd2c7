package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
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

// element returns the element (r, c) of a row-major matrix's data with
// row stride s, or of its transpose with t set.
func element[T float32 | float64](t bool, data []T, s int) func(r, c int) T {
	return func(r, c int) T {
		if t {
			return data[c*s+r]
		}
		return data[r*s+c]
	}
}

// chainRef is gemm's contract written out: every element of C one chain
// of fused multiply-adds over the inner dimension in order, starting from
// beta·c (+0 for beta = 0, c for beta = 1), each term's coefficient
// alpha·a_il rounded first.
func chainRef(ta, tb bool, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	at, bt := element(ta, a.Data, a.Stride), element(tb, b.Data, b.Stride)
	_, k, _, _ := productDims(ta, tb, a.Rows, a.Cols, b.Rows, b.Cols)
	for i := 0; i < c.Rows; i++ {
		for j := 0; j < c.Cols; j++ {
			acc := c.Data[i*c.Stride+j]
			switch beta {
			case 0:
				acc = 0
			case 1:
			default:
				acc *= beta
			}
			if alpha != 0 {
				for l := 0; l < k; l++ {
					acc = math.FMA(alpha*at(i, l), bt(l, j), acc)
				}
			}
			c.Data[i*c.Stride+j] = acc
		}
	}
}

// fmaPaths runs test with the pure Go products and, where the machine
// has AVX2 and FMA, with the assembly kernels, and where it has AVX-512F
// too, with its kernel: they must give the same bits.
func fmaPaths(t *testing.T, test func(*testing.T)) {
	paths := []bool{false}
	if haveFMA {
		paths = append(paths, true)
	} else {
		t.Log("no AVX2 and FMA here: the kernels untested")
	}
	defer func(v, w bool) { haveFMA, haveAVX512 = v, w }(haveFMA, haveAVX512)
	avx512 := haveAVX512
	for _, on := range paths {
		haveFMA, haveAVX512 = on, false
		t.Run(fmt.Sprintf("fma=%v", on), test)
	}
	if avx512 && !raceEnabled {
		haveFMA, haveAVX512 = true, true
		t.Run("fma=true/avx512", test)
	} else if haveFMA && !raceEnabled {
		t.Log("no AVX-512F here: its kernel untested")
	}
}

// TestGemmChains compares gemm with chainRef bit for bit on products
// small enough to run on one goroutine and large enough to be split
// among several (whose rows must not change), every transposition, and
// the betas and alphas the package uses and others; and, as a check of the
// arithmetic rather than of the rounding, with gonum's Dgemm to a
// relative 1e-12. Under the race detector only the alphas and betas the
// package uses (make test-norace runs all five pairs).
func TestGemmChains(t *testing.T) {
	fmaPaths(t, testGemmChains)
}

func testGemmChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][3]int{{200, 1, 128}, {1, 1, 128}, {200, 128, 1}, {20, 3, 1}, {300, 1, 70}, {1, 96, 64}, {411, 16, 32}, {411, 64, 16}, {200, 128, 33}, {64, 16, 411}, {130, 130, 200}, {300, 70, 150}, {5, 300, 129}, {7, 24, 9}, {10, 40, 5}, {17, 48, 6}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				// Each beta with an alpha (the package uses beta 0 and 1
				// with alpha 1); not every pair, to keep the test short.
				pairs := [][2]float64{{1, 0}, {1, 1}, {-0.7, 1}, {0, 0.5}, {1, 0.5}}
				if raceEnabled {
					pairs = pairs[:2]
				}
				for _, ab := range pairs {
					alpha, beta := ab[0], ab[1]
					a := general(m, k, k, randSparse(m*k, rng))
					if ta {
						a = general(k, m, m, a.Data)
					}
					b := general(k, n, n, randSparse(k*n, rng))
					if tb {
						b = general(n, k, k, b.Data)
					}
					c0 := randSparse(m*n, rng)
					want, got, dg := append([]float64(nil), c0...), append([]float64(nil), c0...), append([]float64(nil), c0...)
					chainRef(ta, tb, alpha, a, b, beta, general(m, n, n, want))
					if fl := gemm(ta, tb, alpha, a, b, beta, general(m, n, n, got)); fl != int64(2*m*n*k) && alpha != 0 {
						t.Fatalf("%v: flops %d", sh, fl)
					}
					tA, tB := blas.NoTrans, blas.NoTrans
					if ta {
						tA = blas.Trans
					}
					if tb {
						tB = blas.Trans
					}
					blas64.Gemm(tA, tB, alpha, a, b, beta, general(m, n, n, dg))
					for i := range want {
						if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
							t.Fatalf("%dx%dx%d ta=%v tb=%v alpha=%v beta=%v: element %d is %v, the chain gives %v", m, n, k, ta, tb, alpha, beta, i, got[i], want[i])
						}
						if math.Abs(got[i]-dg[i]) > 1e-12*(1+math.Abs(dg[i]))*float64(k+1) {
							t.Fatalf("%dx%dx%d ta=%v tb=%v alpha=%v beta=%v: element %d is %v, Dgemm gives %v", m, n, k, ta, tb, alpha, beta, i, got[i], dg[i])
						}
					}
				}
			}
		}
	}
}

// TestMessageChains compares the message loops (for f = 3, four
// coefficients, the AVX2 kernels where d is a multiple of 4) with their
// chains of math.FMA written out, bit for bit, on inputs with and without
// exact zeros, −0, NaN and ±Inf.
func TestMessageChains(t *testing.T) { fmaPaths(t, testMessageChains) }

func testMessageChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		f := []int{1, 3, 3, 5}[trial%4]
		for _, d := range []int{1, 2, 4, 8, 15, 16, 17, 24} {
			messageChains(t, rng, trial, f, d)
		}
	}
}

func messageChains(t *testing.T, rng *rand.Rand, trial, f, d int) {
	t.Helper()
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
	c := messageCoefs(nil, s, ef, 0, f)
	want, got := append([]float64(nil), o...), append([]float64(nil), o...)
	for k := 0; k <= f; k++ {
		for j := range want {
			want[j] = math.FMA(c[k], y[k*d+j], want[j])
		}
	}
	addMessage(got, c, y)
	for i := range want {
		if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
			t.Fatalf("addMessage f=%d d=%d: element %d is %#x, the chain gives %#x", f, d, i, math.Float64bits(got[i]), math.Float64bits(want[i]))
		}
	}
	g := vec(d)
	wantDY, gotDY := append([]float64(nil), y...), append([]float64(nil), y...)
	for k := 0; k <= f; k++ {
		for j := range g {
			wantDY[k*d+j] = math.FMA(c[k], g[j], wantDY[k*d+j])
		}
	}
	spreadMessage(gotDY, c, g)
	for i := range wantDY {
		if math.Float64bits(wantDY[i]) != math.Float64bits(gotDY[i]) {
			t.Fatalf("spreadMessage f=%d d=%d: element %d is %#x, the chain gives %#x", f, d, i, math.Float64bits(gotDY[i]), math.Float64bits(wantDY[i]))
		}
	}
}

// TestGemmStridedBits compares gemm with chainRef bit for bit on random
// products: every transposition, strided views (sub-matrices of wider
// ones), betas and alphas the package uses and others, and inputs with
// exact zeros, −0, NaN and ±Inf. A NaN's payload is compared too: the
// kernels and math.FMA must propagate the same one.
func TestGemmStridedBits(t *testing.T) { fmaPaths(t, testGemmStridedBits) }

func testGemmStridedBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 800; trial++ {
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
		chainRef(ta, tb, alpha, a, b, beta, want)
		gemm(ta, tb, alpha, a, b, beta, got)
		for i := range want.Data {
			if math.Float64bits(want.Data[i]) != math.Float64bits(got.Data[i]) {
				t.Fatalf("trial %d: %dx%dx%d ta=%v tb=%v alpha=%v beta=%v strides %d,%d,%d: element %d is %v (%#x), the chain gives %v (%#x)",
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
// the other parameters the same bits. Shapes cover products run on one
// goroutine and split among several, and both operand orders.
func TestMatMulGradColsBits(t *testing.T) {
	shapes := []struct{ rows, cx, ch, in, out, batch int }{
		{5, 3, 4, 6, 2, 1}, {300, 17, 16, 20, 16, 1}, {592, 17, 16, 20, 16, 8},
		{256, 17, 16, 40, 128, 1}, {256, 17, 16, 40, 128, 30}, {64, 70, 60, 9, 3, 1},
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

// TestMatMulGradRowsBits checks that a product of [z, h] whose z is
// rows of constants around a few rows that need a gradient (the MARL
// inter-scheduler stack's first layer) gives every parameter the bits it
// gets when all of z's rows need one, though dA's block of z is computed
// at those few rows only.
func TestMatMulGradRowsBits(t *testing.T) {
	shapes := []struct{ rows, lo, hi, cz, ch, in, out int }{
		{120, 7, 8, 32, 32, 5, 32}, {120, 0, 3, 9, 4, 6, 5}, {41, 38, 41, 16, 17, 3, 8},
	}
	for _, sh := range shapes {
		run := func(all bool) [][]float64 {
			rng := rand.New(rand.NewPCG(uint64(sh.rows), uint64(sh.lo)))
			ps := NewParams()
			wz := ps.New("wz", sh.in, sh.cz)
			wh := ps.New("wh", sh.in, sh.ch)
			w := ps.New("w", sh.cz+sh.ch, sh.out)
			states := ps.New("states", sh.rows, sh.cz)
			for _, p := range []*Node{wz, wh, w, states} {
				copy(p.Data, randSparse(len(p.Data), rng))
			}
			var tp Tape
			above := tp.Const(sh.lo, sh.cz, states.Data[:sh.lo*sh.cz])
			below := tp.Const(sh.rows-sh.hi, sh.cz, states.Data[sh.hi*sh.cz:])
			if all {
				above, below = tp.SliceRows(states, 0, sh.lo), tp.SliceRows(states, sh.hi, sh.rows)
			}
			z := tp.ConcatRows(above, tp.MatMul(tp.Const(sh.hi-sh.lo, sh.in, randSparse((sh.hi-sh.lo)*sh.in, rng)), wz), below)
			h := tp.ReLU(tp.MatMul(tp.Const(sh.rows, sh.in, randSparse(sh.rows*sh.in, rng)), wh))
			y := tp.MatMul(tp.ConcatCols(z, h), w)
			tp.Backward(tp.Sum(tp.Mul(y, tp.Const(sh.rows, sh.out, randSparse(sh.rows*sh.out, rng)))))
			var out [][]float64
			for _, p := range []*Node{wz, wh, w} {
				out = append(out, append([]float64(nil), p.Grad...))
			}
			return out
		}
		want, got := run(true), run(false)
		for i, name := range []string{"wz", "wh", "w"} {
			if !sameBits(got[i], want[i]) {
				t.Errorf("%+v: %s's gradient differs from the one with every row's", sh, name)
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
