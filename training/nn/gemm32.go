package nn

import (
	"fmt"
	"math"
	"runtime"
)

// Matrix32 is a row-major float32 matrix: element (i, j) at
// Data[i·Stride + j]. It is the storage of the single-precision path
// (Gemm32), which holds half the bytes of a float64 matrix and fills
// twice the lanes of each vector instruction.
type Matrix32 struct {
	Rows, Cols, Stride int
	Data               []float32
}

// fits reports whether m's data holds all its rows at its stride.
func (m Matrix32) fits() bool {
	if m.Rows == 0 || m.Cols == 0 {
		return m.Rows >= 0 && m.Cols >= 0
	}
	return m.Stride >= m.Cols && len(m.Data) >= (m.Rows-1)*m.Stride+m.Cols
}

// Gemm32 computes c = op(a)·op(b) + beta·c in single precision, m×k
// times k×n (op(x) = xᵀ where tx is set; beta 0 or 1: +0 or c's values
// start each chain), and returns its flop count 2·m·n·k. It is gemm's
// contract in float32 (alpha aside: there is none): every element of C is
// one chain of fused multiply-adds over the inner dimension in order,
//
//	acc = fma32(a_il, b_lj, acc) for l = 0, 1, …, k−1
//
// each correctly rounded to float32 once, whatever the machine's vector
// width or the number of goroutines (the assembly kernels, AVX2 and FMA,
// and the pure Go path, fma32, give the same bits: TestGemm32Chains).
// Its results differ from gemm's (float64) in the last bits of a float32,
// about 6e-8 relative per term: a path that uses it is a different
// computation, not a faster copy of the float64 one.
func Gemm32(ta, tb bool, a, b Matrix32, beta float32, c Matrix32) int64 {
	m, n := c.Rows, c.Cols
	am, k, bk, bn := productDims(ta, tb, a.Rows, a.Cols, b.Rows, b.Cols)
	if am != m || bk != k || bn != n || !a.fits() || !b.fits() || !c.fits() || (beta != 0 && beta != 1) {
		panic(fmt.Sprintf("nn: Gemm32 of %dx%d (stride %d, trans %v) and %dx%d (stride %d, trans %v) into %dx%d (stride %d), beta %v",
			a.Rows, a.Cols, a.Stride, ta, b.Rows, b.Cols, b.Stride, tb, m, n, c.Stride, beta))
	}
	if m == 0 || n == 0 {
		return 0
	}
	zero := beta == 0
	if k == 0 {
		if zero {
			for i := 0; i < m; i++ {
				clear(c.Data[i*c.Stride : i*c.Stride+n])
			}
		}
		return 0
	}
	flops := 2 * int64(m) * int64(n) * int64(k)
	// A transposed operand is copied into scratch first, so the kernels
	// see C += A·B with unit column strides.
	if ta {
		s := scratch32Bufs.get(m * k)
		defer scratch32Bufs.put(s)
		a = transpose32(*s, a)
	}
	if tb {
		s := scratch32Bufs.get(k * n)
		defer scratch32Bufs.put(s)
		b = transpose32(*s, b)
	}
	w := 1
	if flops >= minParallelGemmFlops {
		w = min(runtime.GOMAXPROCS(0), maxWorkers, (m+3)/4)
	}
	if w <= 1 {
		fmaRows32(c.Data, c.Stride, a.Data, a.Stride, b.Data, b.Stride, m, n, k, zero)
	} else {
		fmaRows32Split(w, c.Data, c.Stride, a.Data, a.Stride, b.Data, b.Stride, m, n, k, zero)
	}
	if countFlops.Load() {
		gemmFlops.Add(flops)
	}
	return flops
}

// fmaRows32Split is fmaRows32 with C's rows shared among w goroutines by
// splitRows4, apart from Gemm32 so that its variables stay on its stack
// when it does not split.
func fmaRows32Split(w int, c []float32, ldc int, a []float32, lda int, b []float32, ldb, m, n, k int, zero bool) {
	splitRows4(w, m, func(lo, hi int) {
		fmaRows32(c[lo*ldc:], ldc, a[lo*lda:], lda, b, ldb, hi-lo, n, k, zero)
	})
}

// fmaRows32 adds A·B to the m×n matrix C (row strides ldc, lda, ldb; +0
// first with zero set), each element one chain of float32 fused
// multiply-adds over l in order: where the machine has them, the assembly
// kernels (blocks of four rows by thirty-two columns with AVX-512, by
// sixteen with AVX2, the other columns and rows one row at a time), else
// Go. The caller checks the bounds.
func fmaRows32(c []float32, ldc int, a []float32, lda int, b []float32, ldb, m, n, k int, zero bool) {
	if !haveFMA {
		fmaGo32(c, ldc, a, lda, b, ldb, 0, m, 0, n, k, zero)
		return
	}
	n16, n32, i4 := n&^15, 0, 0
	if haveAVX512 {
		n32 = n &^ 31
	}
	for ; i4+4 <= m; i4 += 4 {
		if n32 > 0 {
			fmaRows4x32f(&c[i4*ldc], ldc, &a[i4*lda], lda, &b[0], ldb, n32, k, zero)
		}
		if n16 > n32 {
			fmaRows4f(&c[i4*ldc+n32], ldc, &a[i4*lda], lda, &b[n32], ldb, n16-n32, k, zero)
		}
		if n > n16 {
			for i := i4; i < i4+4; i++ {
				fmaRowf(&c[i*ldc+n16], &a[i*lda], &b[n16], ldb, n-n16, k, zero)
			}
		}
	}
	for i := i4; i < m; i++ {
		fmaRowf(&c[i*ldc], &a[i*lda], &b[0], ldb, n, k, zero)
	}
}

// fmaGo32 is fmaRows32 for rows [i0, i1) and columns [j0, j1) in Go:
// the same chains (fma32, about ten times slower than the hardware's).
func fmaGo32(c []float32, ldc int, a []float32, lda int, b []float32, ldb, i0, i1, j0, j1, k int, zero bool) {
	for i := i0; i < i1; i++ {
		ai := a[i*lda : i*lda+k]
		for j := j0; j < j1; j++ {
			var acc float32
			if !zero {
				acc = c[i*ldc+j]
			}
			for l, v := range ai {
				acc = fma32(v, b[l*ldb+j], acc)
			}
			c[i*ldc+j] = acc
		}
	}
}

// fma32 returns x·y + z rounded once to float32, as the hardware's
// single-precision fused multiply-add does. The product is exact in
// float64 (24 + 24 bits); the sum, rounded to float64 and then to
// float32, is rounded twice, which differs from rounding once only when
// the float64 sum falls exactly halfway between two float32 values while
// the exact sum does not: the sum's rounding error (TwoSum) says then
// which way the exact sum lies.
func fma32(x, y, z float32) float32 {
	p := float64(x) * float64(y)
	zz := float64(z)
	s := p + zz
	r := float32(s)
	if float64(r) == s || math.IsInf(float64(r), 0) || math.IsNaN(s) {
		return r
	}
	// TwoSum: s + e is exactly p + zz.
	bv := s - p
	e := (p - (s - bv)) + (zz - bv)
	if e == 0 {
		return r
	}
	// r's neighbour on s's other side; s a tie when it is their mean.
	o := math.Nextafter32(r, float32(math.Copysign(math.Inf(1), s-float64(r))))
	if (float64(r)+float64(o))/2 != s {
		return r
	}
	// The exact sum lies beyond s on e's side: round to that neighbour.
	if (e > 0) == (float64(o) > float64(r)) {
		return o
	}
	return r
}

// transpose32 writes xᵀ into dst (len ≥ x.Rows·x.Cols) and returns it.
func transpose32(dst []float32, x Matrix32) Matrix32 {
	t := Matrix32{Rows: x.Cols, Cols: x.Rows, Stride: x.Rows, Data: dst[:x.Rows*x.Cols]}
	for i := 0; i < x.Rows; i++ {
		for j, v := range x.Data[i*x.Stride : i*x.Stride+x.Cols] {
			t.Data[j*t.Stride+i] = v
		}
	}
	return t
}
