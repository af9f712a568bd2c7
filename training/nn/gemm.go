package nn

import (
	"runtime"

	"github.com/sourcegraph/conc"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// gonum's Dgemm splits C into blocks of gemmBlock×gemmBlock and, when
// there are at least gemmMinPar of them, computes each block on a
// goroutine of its own, summing the inner dimension in blocks of
// gemmBlock (its blockSize and minParBlock).
const gemmBlock, gemmMinPar = 64, 4

// minParallelGemmFlops is the least product worth sharing among
// goroutines, about a millisecond of one core's work. Below it, starting
// the goroutines and waking an idle core for each product cost more than
// the second core saves: MARL training on fat-tree k = 20, whose inner
// graph products (411×64 results of 16 to 64 terms, 0.8 to 3.4 Mflop)
// all take the blocked path, ran a 3-interval episode in 21.5 s of wall
// time with every blocked product split and 16.4 s with none split (2
// cores; 10 % of its CPU went to futex wake-ups), while the DAS nightly
// training, whose larger products gain from the split, lost no wall time
// at this bound. Where the blocks run never changes a bit.
const minParallelGemmFlops = 4 << 20

func gemmBlocks(n int) int { return (n + gemmBlock - 1) / gemmBlock }

// GemmParallel reports whether gonum's Dgemm would run a product with an
// m×n result in parallel (at least gemmMinPar blocks of 64×64), which
// products here reproduce: the parallel path sums the inner dimension in
// blocks of 64, so the two paths round differently. A caller that leaves
// rows out of a batch uses it to keep the path the whole batch took.
func GemmParallel(m, n int) bool { return gemmBlocks(m)*gemmBlocks(n) >= gemmMinPar }

// gemm computes c = alpha·op(a)·op(b) + beta·c, m×k times k×n, and returns
// its flop count 2·m·n·k; empty products only scale c.
//
// The bits are those of blas64.Gemm (gonum's Dgemm), with less overhead
// where Dgemm goes parallel: it starts a goroutine, a channel operation
// and an allocation per 64×64 block of C, which on the small products of
// this package costs about what it saves (the MARL inner graph's
// 411×64×16 product ran 4.5× slower through it than serially on the
// loaded 2-core machine). A product Dgemm would run in parallel is
// computed here block by block, each block in the order one of Dgemm's
// workers computes it: the same kernels on the same sub-matrices, so the
// same rounding (which matters for C += A·Bᵀ, whose kernel adds one dot
// product per k-block to C), the blocks shared among one goroutine per
// core.
func gemm(ta, tb bool, alpha float64, a, b blas64.General, beta float64, c blas64.General) int64 {
	if c.Rows == 0 || c.Cols == 0 {
		return 0
	}
	k := a.Cols
	if ta {
		k = a.Rows
	}
	if k == 0 {
		if beta != 1 {
			for i := 0; i < c.Rows; i++ {
				row := c.Data[i*c.Stride : i*c.Stride+c.Cols]
				for j := range row {
					row[j] *= beta
				}
			}
		}
		return 0
	}
	flops := 2 * int64(c.Rows) * int64(c.Cols) * int64(k)
	if gemmThin(ta, tb, alpha, a, b, beta, c, k) {
		return flops
	}
	tA, tB := blas.NoTrans, blas.NoTrans
	if ta {
		tA = blas.Trans
	}
	if tb {
		tB = blas.Trans
	}
	if !GemmParallel(c.Rows, c.Cols) || alpha == 0 {
		// (With alpha = 0 the blocks below would each take Dgemm's quick
		// return after the first, where its parallel path adds 0·dot per
		// k-block: let Dgemm do it; nothing here multiplies by 0.)
		gemmSerial(tA, tB, alpha, a, b, beta, c)
		return flops
	}
	// Dgemm scales all of C by beta before adding products; scaling each
	// block of C on its first product does the same to every element.
	rb, cb := gemmBlocks(c.Rows), gemmBlocks(c.Cols)
	block := func(q int) {
		i, j := (q/cb)*gemmBlock, (q%cb)*gemmBlock
		mi, nj := min(gemmBlock, c.Rows-i), min(gemmBlock, c.Cols-j)
		cs := sub(c, i, j, mi, nj)
		bt := beta
		for l := 0; l < k; l += gemmBlock {
			kl := min(gemmBlock, k-l)
			var as, bs blas64.General
			if ta {
				as = sub(a, l, i, kl, mi)
			} else {
				as = sub(a, i, l, mi, kl)
			}
			if tb {
				bs = sub(b, j, l, nj, kl)
			} else {
				bs = sub(b, l, j, kl, nj)
			}
			gemmSerial(tA, tB, alpha, as, bs, bt, cs)
			bt = 1
		}
	}
	// The blocks are shared among GOMAXPROCS workers (one goroutine each,
	// where Dgemm starts one per block): each block is computed wholly by
	// one worker, so the split cannot change a bit. Below
	// minParallelGemmFlops the blocks run on the calling goroutine.
	n := rb * cb
	w := min(runtime.GOMAXPROCS(0), maxWorkers, n)
	if flops < minParallelGemmFlops {
		w = 1
	}
	if w <= 1 {
		for q := 0; q < n; q++ {
			block(q)
		}
		return flops
	}
	var wg conc.WaitGroup
	for p := range w {
		wg.Go(func() {
			for q := p * n / w; q < (p+1)*n/w; q++ {
				block(q)
			}
		})
	}
	wg.Wait()
	return flops
}

// gemmSerial is blas64.Gemm of a product that gonum's Dgemm computes
// serially (fewer than gemmMinPar blocks of C, as gemm ensures), with
// the same bits. Dgemm's serial kernels for op(B) = B (C += A·B and
// C += Aᵀ·B) add, for each term l of the inner dimension in turn, the
// row l of B times alpha·a_il (when that is not 0) to row i of C through
// one AxpyUnitary call per (i, l). On this package's products, rows of 16
// to 128 values, the calls and the loads and stores of C around each cost
// more than the arithmetic: here 16 columns of a row of C at a time stay
// in registers while the terms are added (axpyRows16; over the whole
// inner dimension for C += A·B, over chunks of gemmKChunk terms for
// C += Aᵀ·B, whose inner dimension is long), and any last columns are
// added by gonum's AxpyUnitary as Dgemm adds them. Every element of C
// receives the same terms in the same order, each product and sum
// rounded alone, so the bits are Dgemm's (TestGemmSerialBits compares
// them on random shapes and strides with zeros, −0, NaN and ±Inf).
// Likewise C += A·Bᵀ, which Dgemm computes as one DotUnitary call per
// element, runs a row of C per call (dotRows) with DotUnitary's partial
// sums. Products with both operands transposed, alpha = 0, fewer than 16
// columns for op(B) = B, malformed shapes or no assembly kernels go to
// gonum.
//
// Where the machine has AVX-512F, four rows of C at a time share B's
// loads (axpyRows16x4, the zero test a mask on the addition) and
// C += A·Bᵀ takes four rows of B at a time (dotRows4z): about 2.9× and
// 1.9× the SSE2 kernels' speed on BenchmarkGemmSerial, the same bits.
// (Two rows of C at a time in 256-bit AVX2 registers, with a blend
// instead of the zero test's branch, measured slower than axpyRows16 on
// this machine: 126–133 against 83–89 µs of CPU for dMs += dYᵀ·H of
// BenchmarkGemmSerial, and were dropped. One row in four 256-bit
// registers, the branch kept, ran at half axpyRows16's speed: 7.0
// against 14.4 GFLOP/s on its NotNot product.)
func gemmSerial(tA, tB blas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	ta := tA != blas.NoTrans
	m, n := c.Rows, c.Cols
	k, am := a.Cols, a.Rows
	if ta {
		k, am = a.Rows, a.Cols
	}
	tb := tB != blas.NoTrans
	bk, bn := b.Rows, b.Cols
	if tb {
		bk, bn = b.Cols, b.Rows
	}
	if !haveKernels || (ta && tb) || (!tb && n < 16) || alpha == 0 || k == 0 ||
		am != m || bk != k || bn != n ||
		a.Stride < max(1, a.Cols) || b.Stride < max(1, b.Cols) || c.Stride < max(1, n) ||
		len(a.Data) < (a.Rows-1)*a.Stride+a.Cols || len(b.Data) < (b.Rows-1)*b.Stride+b.Cols || len(c.Data) < (m-1)*c.Stride+n {
		blas64.Gemm(tA, tB, alpha, a, b, beta, c)
		return
	}
	if tb {
		scaleC(beta, c, m, n)
		// C += A·Bᵀ: c_ij += alpha·DotUnitary(row i of A, row j of B).
		// Four rows of B at a time where the machine has AVX-512F and
		// the dot products no last terms (k a multiple of 4).
		n4 := 0
		if haveAVX512 && k%4 == 0 {
			n4 = n &^ 3
		}
		for i := 0; i < m; i++ {
			if n4 > 0 {
				dotRows4z(&c.Data[i*c.Stride], &a.Data[i*a.Stride], &b.Data[0], b.Stride, n4, k, alpha)
			}
			if n4 < n {
				dotRows(&c.Data[i*c.Stride+n4], &a.Data[i*a.Stride], &b.Data[n4*b.Stride], b.Stride, n-n4, k, alpha)
			}
		}
		return
	}
	n16 := n - n%16 // columns the kernels add; the others after them
	// For beta = 0, the kernels' first pass over a block of C starts
	// its sums at +0 instead of reading the zeros Dgemm would have
	// written there (the same sums, so the same bits): only the last
	// columns are zeroed first. In forward passes, whose products
	// mostly have beta = 0, zeroing C was a pass through memory of its
	// own (5 % of a DAS training).
	zero := beta == 0
	if zero {
		scaleC(0, sub(c, 0, n16, m, n-n16), m, n-n16)
	} else {
		scaleC(beta, c, m, n)
	}
	if ta {
		// C += Aᵀ·B: the inner dimension (a graph's nodes, often)
		// is long, so it runs in chunks of gemmKChunk terms whose
		// rows of A and B stay in L1 while every row of C takes
		// them; each element still receives its terms in order.
		for l0 := 0; l0 < k; l0 += gemmKChunk {
			kl := min(gemmKChunk, k-l0)
			axpyRows(c.Data, c.Stride, a.Data[l0*a.Stride:], a.Stride, 1, b.Data[l0*b.Stride:], b.Stride, m, n16, kl, alpha, zero && l0 == 0)
		}
	} else {
		axpyRows(c.Data, c.Stride, a.Data, 1, a.Stride, b.Data, b.Stride, m, n16, k, alpha, zero)
	}
	if n16 == n {
		return
	}
	for i := 0; i < m; i++ {
		ci := c.Data[i*c.Stride+n16 : i*c.Stride+n]
		for l := 0; l < k; l++ {
			var v float64
			if ta {
				v = a.Data[l*a.Stride+i] // Aᵀ[i, l]
			} else {
				v = a.Data[i*a.Stride+l] // A[i, l]
			}
			if tmp := alpha * v; tmp != 0 {
				// gonum's own AxpyUnitary, as Dgemm calls it.
				floats.AddScaled(ci, tmp, b.Data[l*b.Stride+n16:l*b.Stride+n])
			}
		}
	}
}

// axpyRows adds, to the first n16 columns (a multiple of 16) of the m
// rows of C (c, row stride ldc), alpha·a_il times row l of B for l =
// 0..k−1 in turn, where a_il is a[i·rowa + l·inca]: the kernels'
// products, four rows of C at a time where the machine has
// axpyRows16x4, one row at a time otherwise and for the last rows. Each
// element gets the same terms in the same order either way. The caller
// checks the bounds.
func axpyRows(c []float64, ldc int, a []float64, inca, rowa int, b []float64, ldb, m, n16, k int, alpha float64, zero bool) {
	i := 0
	if haveAVX512 {
		for ; i+4 <= m; i += 4 {
			for j := 0; j < n16; j += 16 {
				axpyRows16x4(&c[i*ldc+j], ldc, &a[i*rowa], inca, rowa, &b[j], ldb, k, alpha, zero)
			}
		}
	}
	for ; i < m; i++ {
		for j := 0; j < n16; j += 16 {
			axpyRows16(&c[i*ldc+j], &a[i*rowa], inca, &b[j], ldb, k, alpha, zero)
		}
	}
}

// gemmKChunk is how many terms of the inner dimension gemmSerial adds
// to every row of C before the next ones, for C += Aᵀ·B: 64 rows of A
// and B fit L1 together on the ECC layers' products (64 and 16 values
// wide, 40 KiB). Chunking took dMs += dYᵀ·H of BenchmarkGemmSerial from
// 146–159 to 74–136 µs of CPU (loaded machine; gonum's Dgemm 267–276).
const gemmKChunk = 64

// sub is the r×c sub-matrix of m at (i, j).
func sub(m blas64.General, i, j, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: m.Stride, Data: m.Data[i*m.Stride+j : (i+r-1)*m.Stride+j+c]}
}

// gemmThin computes the products with one output column (C = A·b or
// Aᵀ·b) or one inner dimension (C += a·bᵀ, an outer product) and reports
// whether it did; the output layers of the MARL scorers and critic are
// such products. gonum's kernels spend a call into assembly per
// multiply-add on them (an AxpyUnitary or DotUnitary of length 1); these
// loops add the same terms to each element in the same order, rounded the
// same way, so the bits are Dgemm's.
func gemmThin(ta, tb bool, alpha float64, a, b blas64.General, beta float64, c blas64.General, k int) bool {
	m, n := c.Rows, c.Cols
	switch {
	case !tb && n == 1, !ta && tb && k == 1:
	default:
		return false
	}
	if alpha == 0 && beta == 1 {
		return true // Dgemm's quick return
	}
	scaleC(beta, c, m, n)
	switch {
	case !ta && !tb: // dgemmSerialNotNot: per row, AxpyUnitary(alpha·a_il, b_l, c_i) for l in order
		for i := 0; i < m; i++ {
			ci := c.Data[i*c.Stride]
			for l, v := range a.Data[i*a.Stride : i*a.Stride+k] {
				if tmp := alpha * v; tmp != 0 {
					ci += float64(tmp * b.Data[l*b.Stride])
				}
			}
			c.Data[i*c.Stride] = ci
		}
	case ta && !tb: // dgemmSerialTransNot: for l in order, every row i
		for l := 0; l < k; l++ {
			bl := b.Data[l*b.Stride]
			for i, v := range a.Data[l*a.Stride : l*a.Stride+m] {
				if tmp := alpha * v; tmp != 0 {
					c.Data[i*c.Stride] += float64(tmp * bl)
				}
			}
		}
	default: // dgemmSerialNotTrans with k = 1: c_ij += alpha·DotUnitary(a_i, b_j)
		for i := 0; i < m; i++ {
			ai := a.Data[i*a.Stride]
			row := c.Data[i*c.Stride : i*c.Stride+n]
			for j := range row {
				row[j] += float64(alpha * dot1(ai, b.Data[j*b.Stride]))
			}
		}
	}
	return true
}

// dot1 is gonum's amd64 DotUnitary of one-element vectors, step by step:
// the product goes into the first of four partial sums that start at +0,
// which are then added pairwise (so a −0 product comes out +0).
func dot1(x, y float64) float64 {
	var s0, s1, s2, s3 float64
	s0 += float64(x * y)
	lo, hi := s0+s2, s1+s3
	return hi + lo
}

// scaleC scales the m×n block of c by beta as Dgemm does before it adds
// the product: zeroing it for beta = 0 (so NaNs there do not survive),
// leaving it alone for beta = 1.
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
