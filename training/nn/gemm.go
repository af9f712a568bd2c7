package nn

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/conc"
	"gonum.org/v1/gonum/blas/blas64"
)

// minParallelGemmFlops is the least product worth sharing among
// goroutines, about a millisecond of one core's work. Below it, starting
// the goroutines and waking an idle core for each product cost more than
// the second core saves (the MARL inner graph's products, 411×64 results
// of 16 to 64 terms, ran faster unsplit on the 2-core machine). Where the
// rows run never changes a bit.
const minParallelGemmFlops = 4 << 20

// gemm computes c = alpha·op(a)·op(b) + beta·c, m×k times k×n, and returns
// its flop count 2·m·n·k.
//
// Every element of C is one chain of fused multiply-adds over the inner
// dimension in order:
//
//	acc = beta·c_ij (+0 for beta = 0, c_ij itself for beta = 1)
//	acc = fma(alpha·a_il, b_lj, acc) for l = 0, 1, …, k−1
//
// whatever the shapes, the transpositions, the machine's vector width or
// the number of goroutines: the assembly kernels (AVX2 and FMA: four rows
// of C by eight columns, or one row by sixteen, in registers while the
// terms are added), the pure Go path (math.FMA, correctly rounded in
// software where the hardware has no FMA) and any split of C's rows among
// workers give the same bits (TestGemmChains). No term is skipped: a zero
// times an infinity is NaN, as the arithmetic says.
//
// op(B) = Bᵀ is transposed into scratch first and op(A)'s elements are
// scaled by alpha there when alpha ≠ 1, so the kernels only see
// C += A·B with A read through strides.
func gemm(ta, tb bool, alpha float64, a, b blas64.General, beta float64, c blas64.General) int64 {
	m, n := c.Rows, c.Cols
	am, k, bk, bn := productDims(ta, tb, a.Rows, a.Cols, b.Rows, b.Cols)
	if am != m || bk != k || bn != n || !fits(a) || !fits(b) || !fits(c) {
		panic(fmt.Sprintf("nn: gemm of %dx%d (stride %d, trans %v) and %dx%d (stride %d, trans %v) into %dx%d (stride %d)",
			a.Rows, a.Cols, a.Stride, ta, b.Rows, b.Cols, b.Stride, tb, m, n, c.Stride))
	}
	if m == 0 || n == 0 {
		return 0
	}
	if k == 0 || alpha == 0 {
		scaleC(beta, c, m, n)
		return 0
	}
	// For beta = 0 the chains start at +0 rather than reading zeros
	// written first: zeroing C was a pass through memory of its own.
	zero := beta == 0
	if !zero {
		scaleC(beta, c, m, n)
	}
	flops := 2 * int64(m) * int64(n) * int64(k)
	ad, inca, rowa := a.Data, 1, a.Stride
	if ta {
		inca, rowa = a.Stride, 1
	}
	bd, ldb := b.Data, b.Stride
	if tb {
		s := scratchBufs.get(k * n)
		defer scratchBufs.put(s)
		for j := 0; j < n; j++ {
			row := b.Data[j*b.Stride : j*b.Stride+k]
			for l, v := range row {
				(*s)[l*n+j] = v
			}
		}
		bd, ldb = *s, n
	}
	if alpha != 1 {
		s := scratchBufs.get(m * k)
		defer scratchBufs.put(s)
		for i := 0; i < m; i++ {
			for l := 0; l < k; l++ {
				(*s)[i*k+l] = alpha * ad[i*rowa+l*inca]
			}
		}
		ad, inca, rowa = *s, 1, k
	}
	w := 1
	if flops >= minParallelGemmFlops {
		w = min(runtime.GOMAXPROCS(0), maxWorkers, (m+3)/4)
	}
	if w <= 1 {
		fmaRows(c.Data, c.Stride, ad, inca, rowa, bd, ldb, m, n, k, zero)
	} else {
		fmaRowsSplit(w, c.Data, c.Stride, ad, inca, rowa, bd, ldb, m, n, k, zero)
	}
	if countFlops.Load() {
		gemmFlops.Add(flops)
	}
	return flops
}

// countFlops switches the count on (CountFlops); off, the products pay
// one load of a flag nobody writes, never an add to a shared counter.
var (
	countFlops atomic.Bool
	gemmFlops  atomic.Int64
)

// CountFlops switches on or off the count GemmFlops reads (off at
// start).
func CountFlops(on bool) { countFlops.Store(on) }

// GemmFlops returns the floating-point operations of the matrix products
// the package computed while CountFlops was on (2·m·n·k each, on tapes
// or in the incremental passes, on any goroutine): benchmarks divide it
// by their time for the rate the products achieved. Element-wise work
// and the graph operators' per-edge sums are not counted.
func GemmFlops() int64 { return gemmFlops.Load() }

// fmaRowsSplit is fmaRows with C's rows shared among w goroutines by
// splitRows4. A function of its own so that gemm's variables stay on its
// stack when it does not split.
func fmaRowsSplit(w int, c []float64, ldc int, a []float64, inca, rowa int, b []float64, ldb, m, n, k int, zero bool) {
	splitRows4(w, m, func(lo, hi int) {
		fmaRows(c[lo*ldc:], ldc, a[lo*rowa:], inca, rowa, b, ldb, hi-lo, n, k, zero)
	})
}

// splitRows4 calls rows(lo, hi) on w goroutines for contiguous runs of
// whole blocks of four of m rows, one run each, and waits for them: a
// row is computed wholly by one of them, so the split cannot change a
// bit.
func splitRows4(w, m int, rows func(lo, hi int)) {
	blocks := (m + 3) / 4
	var wg conc.WaitGroup
	for p := range w {
		lo, hi := 4*(p*blocks/w), min(m, 4*((p+1)*blocks/w))
		if lo >= hi {
			continue
		}
		wg.Go(func() { rows(lo, hi) })
	}
	wg.Wait()
}

func fits(m blas64.General) bool {
	if m.Rows == 0 || m.Cols == 0 {
		return m.Rows >= 0 && m.Cols >= 0
	}
	return m.Stride >= m.Cols && len(m.Data) >= (m.Rows-1)*m.Stride+m.Cols
}

// productDims are the shapes of op(A) (am × k) and op(B) (bk × bn) for
// A of aRows × aCols and B of bRows × bCols, transposed where ta, tb say.
func productDims(ta, tb bool, aRows, aCols, bRows, bCols int) (am, k, bk, bn int) {
	am, k = aRows, aCols
	if ta {
		am, k = aCols, aRows
	}
	bk, bn = bRows, bCols
	if tb {
		bk, bn = bCols, bRows
	}
	return am, k, bk, bn
}

// bufList is a free list of gemm's scratch buffers. Not a sync.Pool:
// under the race detector a Pool drops a share of what it is given, and a
// warmed-up training step must not allocate (TestSteadyStateAllocations).
type bufList[T float32 | float64] struct {
	sync.Mutex
	free []*[]T
}

// get returns a buffer of n values, contents unspecified; put it back
// when done.
func (l *bufList[T]) get(n int) *[]T {
	l.Lock()
	var s *[]T
	if k := len(l.free); k > 0 {
		s = l.free[k-1]
		l.free = l.free[:k-1]
	}
	l.Unlock()
	if s == nil {
		s = new([]T)
	}
	switch {
	case cap(*s) >= n:
		*s = (*s)[:n]
	case cap(*s) == 0:
		*s = make([]T, n)
	default: // as resize: a quarter more than asked
		*s = make([]T, n, n+n/4)
	}
	return s
}

// put returns a buffer get handed out.
func (l *bufList[T]) put(s *[]T) {
	l.Lock()
	l.free = append(l.free, s)
	l.Unlock()
}

// scratchBufs and scratch32Bufs are Gemm's and Gemm32's transposition
// buffers.
var (
	scratchBufs   bufList[float64]
	scratch32Bufs bufList[float32]
)

// fmaRows adds A·B to the m×n matrix C (row stride ldc; +0 first with
// zero set), a_il at a[i·rowa + l·inca] and b_lj at b[l·ldb + j], each
// element one chain of fused multiply-adds over l in order (gemm): the
// assembly kernels where the machine has them, four rows at a time and
// then one, the other columns in Go. The caller checks the bounds.
func fmaRows(c []float64, ldc int, a []float64, inca, rowa int, b []float64, ldb, m, n, k int, zero bool) {
	i4, n8, n16 := 0, 0, 0
	if haveFMA {
		n8, n16 = n&^7, n&^15
		// With AVX-512 the first n16 columns of each block of four
		// rows go sixteen at a time, the next eight (if any) in AVX2.
		w16 := 0
		if haveAVX512 {
			w16 = n16
		}
		if n8 > 0 {
			for ; i4+4 <= m; i4 += 4 {
				if w16 > 0 {
					fmaRows4x16(&c[i4*ldc], ldc, &a[i4*rowa], inca, rowa, &b[0], ldb, w16, k, zero)
				}
				if n8 > w16 {
					fmaRows4(&c[i4*ldc+w16], ldc, &a[i4*rowa], inca, rowa, &b[w16], ldb, n8-w16, k, zero)
				}
			}
		}
		if n16 > 0 {
			// A lone row's first columns go sixty-four at a time with
			// AVX-512 (n&^63 of them), else thirty-two (n&^31): eight
			// chains in flight.
			wide := n &^ 31
			if haveAVX512 {
				wide = n &^ 63
			}
			for i := i4; i < m; i++ {
				switch {
				case wide > 0 && haveAVX512:
					fmaRow64z(&c[i*ldc], &a[i*rowa], inca, &b[0], ldb, wide, k, zero)
				case wide > 0:
					fmaRow32(&c[i*ldc], &a[i*rowa], inca, &b[0], ldb, wide, k, zero)
				}
				if n16 > wide {
					fmaRow16(&c[i*ldc+wide], &a[i*rowa], inca, &b[wide], ldb, n16-wide, k, zero)
				}
			}
		}
	}
	fmaGo(c, ldc, a, inca, rowa, b, ldb, 0, i4, n8, n, k, zero)
	fmaGo(c, ldc, a, inca, rowa, b, ldb, i4, m, n16, n, k, zero)
}

// fmaGo is fmaRows for rows [i0, i1) and columns [j0, j1) in Go: the
// same chains (math.FMA). It serves the columns the kernels leave (a
// product's last few, or all of a one-column product such as a scorer's
// output layer), so it runs four rows' chains side by side, each over
// l in order, rather than one chain at a time.
func fmaGo(c []float64, ldc int, a []float64, inca, rowa int, b []float64, ldb, i0, i1, j0, j1, k int, zero bool) {
	if i0 >= i1 || j0 >= j1 {
		return
	}
	if zero {
		for i := i0; i < i1; i++ {
			clear(c[i*ldc+j0 : i*ldc+j1])
		}
	}
	last := (k - 1) * inca
	i := i0
	for ; i+4 <= i1; i += 4 {
		a0, a1, a2, a3 := a[i*rowa:i*rowa+last+1], a[(i+1)*rowa:(i+1)*rowa+last+1], a[(i+2)*rowa:(i+2)*rowa+last+1], a[(i+3)*rowa:(i+3)*rowa+last+1]
		for j := j0; j < j1; j++ {
			c0, c1, c2, c3 := c[i*ldc+j], c[(i+1)*ldc+j], c[(i+2)*ldc+j], c[(i+3)*ldc+j]
			for l, o := 0, 0; l < k; l, o = l+1, o+inca {
				bl := b[l*ldb+j]
				c0 = math.FMA(a0[o], bl, c0)
				c1 = math.FMA(a1[o], bl, c1)
				c2 = math.FMA(a2[o], bl, c2)
				c3 = math.FMA(a3[o], bl, c3)
			}
			c[i*ldc+j], c[(i+1)*ldc+j], c[(i+2)*ldc+j], c[(i+3)*ldc+j] = c0, c1, c2, c3
		}
	}
	for ; i < i1; i++ {
		ai := a[i*rowa : i*rowa+last+1]
		for j := j0; j < j1; j++ {
			acc := c[i*ldc+j]
			for l, o := 0, 0; l < k; l, o = l+1, o+inca {
				acc = math.FMA(ai[o], b[l*ldb+j], acc)
			}
			c[i*ldc+j] = acc
		}
	}
}

// scaleC scales the m×n block of c by beta before a product is added:
// zeroing it for beta = 0 (so NaNs there do not survive), leaving it
// alone for beta = 1.
func scaleC(beta float64, c blas64.General, m, n int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c.Data[i*c.Stride : i*c.Stride+n]
		for j := range row {
			if beta == 0 {
				row[j] = 0
			} else {
				row[j] *= beta
			}
		}
	}
}

// Gemm computes c = alpha·op(a)·op(b) + beta·c as every product of this
// package does (each element one chain of fused multiply-adds over the
// inner dimension in order), for code outside it that must reproduce a
// tape's bits without a tape (DAS's incremental orderer). It returns the
// flop count.
func Gemm(ta, tb bool, alpha float64, a, b blas64.General, beta float64, c blas64.General) int64 {
	return gemm(ta, tb, alpha, a, b, beta, c)
}
