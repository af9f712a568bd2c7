package nn

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// fma32Exact is x·y + z rounded once to float32 through exact big
// arithmetic: the reference fma32 must match.
func fma32Exact(x, y, z float32) float32 {
	if math.IsNaN(float64(x)) || math.IsNaN(float64(y)) || math.IsNaN(float64(z)) ||
		math.IsInf(float64(x), 0) || math.IsInf(float64(y), 0) || math.IsInf(float64(z), 0) {
		return float32(float64(x)*float64(y) + float64(z)) // no rounding question
	}
	p := new(big.Float).SetPrec(200).Mul(big.NewFloat(float64(x)).SetPrec(200), big.NewFloat(float64(y)))
	s := new(big.Float).SetPrec(200).Add(p, big.NewFloat(float64(z)))
	r, _ := s.Float32()
	if r == 0 && s.Sign() == 0 {
		// The exact sum is 0: its sign is IEEE's (+0 unless both
		// addends are −0), which big.Float does not keep.
		return float32(float64(x)*float64(y) + float64(z))
	}
	return r
}

// rand32 draws float32 values over a wide range of exponents, with exact
// zeros, −0 and subnormals among them.
func rand32(n int, rng *rand.Rand) []float32 {
	x := make([]float32, n)
	for i := range x {
		switch rng.IntN(12) {
		case 0, 1:
		case 2:
			x[i] = float32(math.Copysign(0, -1))
		case 3:
			x[i] = math.Float32frombits(rng.Uint32() & 0x807fffff) // subnormal
		default:
			x[i] = float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20)))
		}
	}
	return x
}

// TestFMA32 checks fma32 against exact arithmetic on random triples
// over a wide range of exponents, and on the sums where rounding to
// float64 and then to float32 goes wrong: the float64 sum lands on a
// float32 tie while the exact sum lies to one side of it.
func TestFMA32(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	check := func(x, y, z float32) {
		t.Helper()
		got, want := fma32(x, y, z), fma32Exact(x, y, z)
		if math.Float32bits(got) != math.Float32bits(want) && !(math.IsNaN(float64(got)) && math.IsNaN(float64(want))) {
			t.Fatalf("fma32(%g, %g, %g) = %g (%#x), exact rounding %g (%#x)", x, y, z, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	v := rand32(3000, rng)
	for i := 0; i+2 < len(v); i++ {
		check(v[i], v[i+1], v[i+2])
	}
	// z = 1 + j·2⁻²³ and x·y = ±2⁻²⁴·(1 − 2⁻⁴⁶): the float64 sum is the
	// tie z ± 2⁻²⁴, the exact sum 2⁻⁷⁰ nearer z. Rounding twice goes to
	// the even neighbour, which for odd j is the wrong one.
	x, y := float32(1+math.Exp2(-23)), float32((1-math.Exp2(-23))*math.Exp2(-24))
	wrong := 0
	for j := range 64 {
		z := float32(1 + float64(j)*math.Exp2(-23))
		for _, sx := range []float32{x, -x} {
			check(sx, y, z)
			if float32(float64(sx)*float64(y)+float64(z)) != fma32Exact(sx, y, z) {
				wrong++
			}
		}
	}
	if wrong == 0 {
		t.Fatal("no case where rounding twice is wrong: the tie cases test nothing")
	}
	// Exact ties (x·y = half an ulp of z): ties to even.
	for j := range 64 {
		check(float32(math.Exp2(-24)), 1, float32(1+float64(j)*math.Exp2(-23)))
	}
	// Specials: infinities and NaN go through float64 unchanged.
	inf := float32(math.Inf(1))
	check(inf, 0, 1)
	check(inf, 2, -inf)
	check(float32(math.MaxFloat32), 2, 0)
}

// chainRef32 is Gemm32's contract written out: every element of C one
// chain of fma32 over the inner dimension in order.
func chainRef32(ta, tb bool, a, b Matrix32, beta float32, c Matrix32) {
	at, bt := element(ta, a.Data, a.Stride), element(tb, b.Data, b.Stride)
	_, k, _, _ := productDims(ta, tb, a.Rows, a.Cols, b.Rows, b.Cols)
	for i := 0; i < c.Rows; i++ {
		for j := 0; j < c.Cols; j++ {
			acc := c.Data[i*c.Stride+j] * beta
			if beta == 0 {
				acc = 0
			}
			for l := 0; l < k; l++ {
				acc = fma32(at(i, l), bt(l, j), acc)
			}
			c.Data[i*c.Stride+j] = acc
		}
	}
}

func mat32(r, c int, d []float32) Matrix32 { return Matrix32{Rows: r, Cols: c, Stride: c, Data: d} }

// TestGemm32Chains compares Gemm32 with chainRef32 bit for bit (the
// assembly kernels and the Go path alike), on shapes that take every
// kernel and the Go columns, every transposition, both betas, and
// products large enough to be split among goroutines; and, as a check of
// the arithmetic, with float64's gemm to float32's error bound: k + 1
// roundings of at most 2⁻²⁴ relative each, of the sum of the terms'
// magnitudes.
func TestGemm32Chains(t *testing.T) { fmaPaths(t, testGemm32Chains) }

func testGemm32Chains(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 32))
	// Every kernel and its tails: four-row blocks of 32 (AVX-512) and
	// 16 columns, then the rows' 32, 8 and single columns; the last
	// rows one at a time; a long inner dimension.
	shapes := [][3]int{{1, 1, 1}, {4, 16, 1}, {5, 33, 7}, {9, 57, 13}, {8, 96, 5}, {6, 48, 130}, {3, 31, 5}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, beta := range []float32{0, 1} {
					a := mat32(m, k, rand32(m*k, rng))
					if ta {
						a = mat32(k, m, a.Data)
					}
					b := mat32(k, n, rand32(k*n, rng))
					if tb {
						b = mat32(n, k, b.Data)
					}
					c0 := rand32(m*n, rng)
					want, got := append([]float32(nil), c0...), append([]float32(nil), c0...)
					chainRef32(ta, tb, a, b, beta, mat32(m, n, want))
					if fl := Gemm32(ta, tb, a, b, beta, mat32(m, n, got)); fl != int64(2*m*n*k) {
						t.Fatalf("%v: flops %d", sh, fl)
					}
					// float64 of the same values, and the terms' magnitudes.
					wide := func(x Matrix32) blas64.General {
						d := make([]float64, len(x.Data))
						for i, v := range x.Data {
							d[i] = float64(v)
						}
						return general(x.Rows, x.Cols, x.Stride, d)
					}
					abs := func(x blas64.General) blas64.General {
						d := make([]float64, len(x.Data))
						for i, v := range x.Data {
							d[i] = math.Abs(v)
						}
						return general(x.Rows, x.Cols, x.Stride, d)
					}
					a64, b64, c64 := wide(a), wide(b), wide(mat32(m, n, c0))
					mag := abs(c64)
					gemm(ta, tb, 1, abs(a64), abs(b64), float64(beta), mag)
					gemm(ta, tb, 1, a64, b64, float64(beta), c64)
					bound := float64(k+1) * math.Exp2(-24) * 1.01
					for i := range want {
						if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
							t.Fatalf("%dx%dx%d ta=%v tb=%v beta=%v: element %d is %v, the chain gives %v", m, n, k, ta, tb, beta, i, got[i], want[i])
						}
						// A float32 subnormal's absolute error is
						// 2⁻¹⁵⁰ per rounding at most.
						if d := math.Abs(float64(got[i]) - c64.Data[i]); d > bound*mag.Data[i]+float64(k+1)*math.Exp2(-149) {
							t.Fatalf("%dx%dx%d ta=%v tb=%v beta=%v: element %d is %v, float64 gives %v: off by %g, bound %g", m, n, k, ta, tb, beta, i, got[i], c64.Data[i], d, bound*mag.Data[i])
						}
					}
				}
			}
		}
	}
}

// TestGemm32Workers: a product large enough to be split among
// goroutines has the same bits at GOMAXPROCS 1 and 2.
func TestGemm32Workers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 32))
	const m, n, k = 256, 128, 128 // 8.4 Mflop: split
	a, b := mat32(m, k, rand32(m*k, rng)), mat32(k, n, rand32(k*n, rng))
	run := func(procs int) []float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		c := mat32(m, n, make([]float32, m*n))
		Gemm32(false, false, a, b, 0, c)
		return c.Data
	}
	one, two := run(1), run(2)
	for i := range one {
		if math.Float32bits(one[i]) != math.Float32bits(two[i]) {
			t.Fatalf("element %d: %v at GOMAXPROCS 1, %v at 2", i, one[i], two[i])
		}
	}
}

// BenchmarkGemm32 compares Gemm32 with the float64 gemm on the MARL
// network's products at k = 20: an inner ECC layer's H·Msᵀ over a pod's
// 411-node graph (width 16, (f+1)d = 64), its filter product
// [h, agg]·W (32 → 16), and the forward scorer's candidate half (20
// schedulers' 96-wide states by 96×128 weights). GFLOP/s each.
func BenchmarkGemm32(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 32))
	for _, sh := range []struct {
		name    string
		m, n, k int
	}{{"HMs", 411, 64, 16}, {"Filter", 411, 16, 32}, {"Scorer", 20, 128, 96}} {
		// Normal values: a subnormal costs the FMA units a microcode
		// assist, which the network's values do not meet.
		narrow := func(x []float64) []float32 {
			y := make([]float32, len(x))
			for i, v := range x {
				y[i] = float32(v)
			}
			return y
		}
		a32, b32 := mat32(sh.m, sh.k, narrow(randSparse(sh.m*sh.k, rng))), mat32(sh.k, sh.n, narrow(randSparse(sh.k*sh.n, rng)))
		c32 := mat32(sh.m, sh.n, make([]float32, sh.m*sh.n))
		a64, b64 := general(sh.m, sh.k, sh.k, randSparse(sh.m*sh.k, rng)), general(sh.k, sh.n, sh.n, randSparse(sh.k*sh.n, rng))
		c64 := general(sh.m, sh.n, sh.n, make([]float64, sh.m*sh.n))
		flops := int64(2 * sh.m * sh.n * sh.k)
		b.Run(fmt.Sprintf("%s/float64", sh.name), func(b *testing.B) {
			for b.Loop() {
				gemm(false, false, 1, a64, b64, 0, c64)
			}
			reportGFLOPS(b, int64(b.N)*flops)
		})
		b.Run(fmt.Sprintf("%s/float32", sh.name), func(b *testing.B) {
			for b.Loop() {
				Gemm32(false, false, a32, b32, 0, c32)
			}
			reportGFLOPS(b, int64(b.N)*flops)
		})
	}
}
