//go:build !noasm && !gccgo && !safe

package nn

// haveKernels: this build has the assembly kernels of kernel_amd64.s.
const haveKernels = true

// axpyRows16 adds, for l = 0..k−1 with tmp = alpha·a[l·inca] ≠ 0,
// tmp·b[l·ldb : l·ldb+16] to c[0:16], each element rounded as gonum's
// AxpyUnitary rounds it (kernel_amd64.s); with zero set, to +0 instead
// of c's values, which it does not read. The caller checks the bounds.
//
//go:noescape
func axpyRows16(c, a *float64, inca int, b *float64, ldb, k int, alpha float64, zero bool)

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
