//go:build !noasm && !gccgo && !safe

package nn

import "golang.org/x/sys/cpu"

// haveKernels: this build has the assembly kernels of kernel_amd64.s.
const haveKernels = true

// haveFMA: the machine has AVX2 and FMA, so gemm's products run in the
// fused multiply-add kernels (fmaRows4, fmaRow16). A variable so that
// tests can take both paths; the bits are the same either way (the pure
// Go path fuses with math.FMA).
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// haveAVX512: the machine has AVX-512F as well, so gemm's four-row
// blocks run sixteen columns at a time (fmaRows4x16); the bits are the
// same (each element's chain is unchanged). A variable so that tests can
// take both paths.
var haveAVX512 = haveFMA && cpu.X86.HasAVX512F

// fmaRows4 sets, for four rows r of C and j < n8 (a multiple of 8),
// c[r·ldc + j] = fma(a[r·rowa + l·inca], b[l·ldb + j], c[r·ldc + j]) for
// l = 0..k−1 in turn (k ≥ 1), starting from +0 instead of C's values
// with zero set (kernel_amd64.s, AVX2 and FMA: the caller checks haveFMA
// and the bounds).
//
//go:noescape
func fmaRows4(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, n8, k int, zero bool)

// fmaRow32 is fmaRow16 for n (a multiple of 32) columns, thirty-two
// at a time: eight chains in flight, the same chains (kernel_amd64.s,
// AVX2 and FMA: the caller checks haveFMA and the bounds).
//
//go:noescape
func fmaRow32(c *float64, a *float64, inca int, b *float64, ldb, n, k int, zero bool)

// fmaRow16 is fmaRows4 for one row of C and n (a multiple of 16)
// columns (kernel_amd64.s, AVX2 and FMA: the caller checks haveFMA and
// the bounds).
//
//go:noescape
func fmaRow16(c *float64, a *float64, inca int, b *float64, ldb, n, k int, zero bool)

// fmaRow64z is fmaRow16 with AVX-512F registers, sixty-four columns at a
// time for n columns (a multiple of 64): the same chains, eight in
// flight (kernel_amd64.s: the caller checks haveAVX512 and the bounds).
//
//go:noescape
func fmaRow64z(c *float64, a *float64, inca int, b *float64, ldb, n, k int, zero bool)

// addMessage4y sets o[j] = fma(c[k], y[k·d+j], o[j]) for k = 0..3 in
// turn and j < d, a multiple of 4 (kernel_amd64.s, AVX2 and FMA: the
// caller checks haveFMA and the bounds).
//
//go:noescape
func addMessage4y(o, c, y *float64, d int)

// spreadMessage4y sets dy[k·d+j] = fma(c[k], gr[j], dy[k·d+j]) for k =
// 0..3 and j < d, a multiple of 4 (kernel_amd64.s, AVX2 and FMA: the
// caller checks haveFMA and the bounds).
//
//go:noescape
func spreadMessage4y(dy, c, gr *float64, d int)

// aggregate4y runs addMessage4y for edges[0..n−1] in turn into one row o
// of d = 16 or 32 values, held in registers between the edges: edge e's
// coefficients are coef[4e..4e+3] and its source row y[src[e]·yw:]
// (kernel_amd64.s, AVX2 and FMA: the caller checks haveFMA, d and the
// bounds).
//
//go:noescape
func aggregate4y(o *float64, d int, coef, y *float64, yw int, edges, src *int, n int)

// aggregate4x16z and aggregate2x32z run aggregate4y for four rows of
// d = 16 and two of d = 32 at once, in lock step over the first n edges
// of each (edges[r] is row r's list, o[r] its output row), each row's
// edges in its own order: the same chains, the same bits, with the
// rows' chains side by side (kernel_amd64.s, AVX-512F: the caller
// checks haveAVX512 and the bounds).
//
//go:noescape
func aggregate4x16z(o *[4]*float64, coef, y *float64, yw int, edges *[4]*int, src *int, n int)

//go:noescape
func aggregate2x32z(o *[2]*float64, coef, y *float64, yw int, edges *[2]*int, src *int, n int)

// spread4y runs spreadMessage4y for edges[0..n−1] in turn into one
// source's row dy of 4·d values (d = 16 or 32), a quarter of it held in
// registers across the edges: edge e's coefficients are coef[4e..4e+3]
// and its gradient row gr[dst[e]·d:] (kernel_amd64.s, AVX2 and FMA: the
// caller checks haveFMA, d and the bounds).
//
//go:noescape
func spread4y(dy *float64, d int, coef, gr *float64, edges, dst *int, n int)

// spread4z is spread4y with AVX-512F registers: the whole row dy in
// registers, one pass over the edges instead of four (kernel_amd64.s:
// the caller checks haveAVX512, d and the bounds). The same chains, the
// same bits.
//
//go:noescape
func spread4z(dy *float64, d int, coef, gr *float64, edges, dst *int, n int)

// fmaRows4x16 is fmaRows4 for n16 (a multiple of 16) columns, sixteen at
// a time in AVX-512 registers (kernel_amd64.s: the caller checks
// haveAVX512 and the bounds).
//
//go:noescape
func fmaRows4x16(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, n16, k int, zero bool)

// reluSum4y sets a[j] = max(s[j] + (c[j] + cb[j]), 0) for j < n, a
// multiple of 4 (cb nil: max(s[j] + c[j], 0)), with Go's max: NaN stays
// NaN (its sign and payload aside), −0 becomes +0 (kernel_amd64.s, AVX2:
// the caller checks haveFMA and the bounds).
//
//go:noescape
func reluSum4y(a, s, c, cb *float64, n int)

// reluGrad4y adds gi·w[j] (rounded, then added) to dst[j] where a[j] > 0,
// for j < n, a multiple of 4 (kernel_amd64.s, AVX2: the caller checks
// haveFMA and the bounds).
//
//go:noescape
func reluGrad4y(dst, a, w *float64, gi float64, n int)

// reluGrad3y is reluGrad4y into three rows d1, d2, d3 at once (the
// product formed once): three calls' bits (kernel_amd64.s, AVX2: the
// caller checks haveFMA and the bounds; no row may overlap another).
//
//go:noescape
func reluGrad3y(d1, d2, d3, a, w *float64, gi float64, n int)

// transpose4y sets at[j·ldt + r] = a[r·h + j] for r < 4 and j < h, a
// multiple of 4 (kernel_amd64.s, AVX2: the caller checks haveFMA and the
// bounds).
//
//go:noescape
func transpose4y(at *float64, ldt int, a *float64, h int)
