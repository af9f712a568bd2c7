package nn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gonum's Dgemm splits C into blocks of gemmBlock×gemmBlock and, when
// there are at least gemmMinPar of them, computes each block on a
// goroutine of its own, summing the inner dimension in blocks of
// gemmBlock (its blockSize and minParBlock).
const gemmBlock, gemmMinPar = 64, 4

func gemmBlocks(n int) int { return (n + gemmBlock - 1) / gemmBlock }

// gemmParallel reports whether gonum's Dgemm would run a product with an
// m×n result in parallel.
func gemmParallel(m, n int) bool { return gemmBlocks(m)*gemmBlocks(n) >= gemmMinPar }

// gemm computes c = alpha·op(a)·op(b) + beta·c, m×k times k×n, and returns
// its flop count 2·m·n·k; empty products only scale c.
//
// The bits are those of blas64.Gemm (gonum's Dgemm), but it never starts
// goroutines. Dgemm's parallel path costs more than it saves on the small
// products of this package: at k = 20 the MARL inner graph's 411×64×16
// product ran 4.5× slower through it than serially on a loaded 2-core
// machine (a goroutine, a channel operation and an allocation per block).
// A product Dgemm would run in parallel is computed here block by block
// in the order one of its workers computes a block: the same kernels on
// the same sub-matrices, so the same rounding (which matters for
// C += A·Bᵀ, whose kernel adds one dot product per k-block to C).
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
	tA, tB := blas.NoTrans, blas.NoTrans
	if ta {
		tA = blas.Trans
	}
	if tb {
		tB = blas.Trans
	}
	if !gemmParallel(c.Rows, c.Cols) {
		blas64.Gemm(tA, tB, alpha, a, b, beta, c)
		return flops
	}
	// Dgemm scales all of C by beta before adding products; scaling each
	// block of C on its first product does the same to every element.
	for i := 0; i < c.Rows; i += gemmBlock {
		mi := min(gemmBlock, c.Rows-i)
		for j := 0; j < c.Cols; j += gemmBlock {
			nj := min(gemmBlock, c.Cols-j)
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
				blas64.Gemm(tA, tB, alpha, as, bs, bt, cs)
				bt = 1
			}
		}
	}
	return flops
}

// sub is the r×c sub-matrix of m at (i, j).
func sub(m blas64.General, i, j, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: m.Stride, Data: m.Data[i*m.Stride+j : (i+r-1)*m.Stride+j+c]}
}
