//go:build !noasm && !gccgo && !safe

package nn

import "golang.org/x/sys/cpu"

// haveKernels: this build has the assembly kernels of kernel_amd64.s.
const haveKernels = true

// haveAVX512: the machine has AVX-512F (and the operating system saves
// its registers, which cpu checks), so gemmSerial adds four rows of C at
// a time with axpyRows16x4 and the edge messages take eight elements per
// instruction (addMessage4z, spreadMessage4z). A variable so that tests
// can take both paths; the bits are the same either way.
var haveAVX512 = cpu.X86.HasAVX512F

// axpyRows16 adds, for l = 0..k−1 with tmp = alpha·a[l·inca] ≠ 0,
// tmp·b[l·ldb : l·ldb+16] to c[0:16], each element rounded as gonum's
// AxpyUnitary rounds it (kernel_amd64.s); with zero set, to +0 instead
// of c's values, which it does not read. The caller checks the bounds.
//
//go:noescape
func axpyRows16(c, a *float64, inca int, b *float64, ldb, k int, alpha float64, zero bool)

// axpyRows16x4 is axpyRows16 on four rows of C, row r's 16 values at
// c[r·ldc] and its terms at a[r·rowa + l·inca], each element rounded as
// axpyRows16 rounds it (kernel_amd64.s, AVX-512F: the caller checks
// haveAVX512 and the bounds).
//
//go:noescape
func axpyRows16x4(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, k int, alpha float64, zero bool)

// dotRows adds alpha·dot(a[0:k], b[j·ldb : j·ldb+k]) to c[j] for j =
// 0..n−1, summed and rounded as gonum's dgemmSerialNotTrans does with
// DotUnitary (kernel_amd64.s). The caller checks the bounds.
//
//go:noescape
func dotRows(c, a, b *float64, ldb, n, k int, alpha float64)

// addMessage4 adds c[k]·y[k·d : (k+1)·d] to o[0:d] for k = 0..3 in turn,
// each element rounded as addMessage rounds it (kernel_amd64.s); d is
// even. The caller checks the bounds.
//
//go:noescape
func addMessage4(o, c, y *float64, d int)

// spreadMessage4 adds c[k]·gr[0:d] to dy[k·d : (k+1)·d] for k = 0..3,
// each element rounded as spreadMessage rounds it (kernel_amd64.s); d is
// even. The caller checks the bounds.
//
//go:noescape
func spreadMessage4(dy, c, gr *float64, d int)

// addMessage4z is addMessage4 with d a multiple of 8, eight elements per
// instruction (kernel_amd64.s, AVX-512F: the caller checks haveAVX512
// and the bounds).
//
//go:noescape
func addMessage4z(o, c, y *float64, d int)

// spreadMessage4z is spreadMessage4 with d a multiple of 8, eight
// elements per instruction (kernel_amd64.s, AVX-512F: the caller checks
// haveAVX512 and the bounds).
//
//go:noescape
func spreadMessage4z(dy, c, gr *float64, d int)

// dotRows4z is dotRows with n and k multiples of 4, four rows of B at a
// time (kernel_amd64.s, AVX-512F: the caller checks haveAVX512 and the
// bounds).
//
//go:noescape
func dotRows4z(c, a, b *float64, ldb, n, k int, alpha float64)
