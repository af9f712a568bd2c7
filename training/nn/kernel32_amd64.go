//go:build !noasm && !gccgo && !safe

package nn

// fmaRows4f sets, for four rows r of C and j < n16 (a multiple of 16),
// c[r·ldc + j] = fma32(a[r·lda + l], b[l·ldb + j], c[r·ldc + j]) for l =
// 0..k−1 in turn (k ≥ 1), starting from +0 instead of C's values with
// zero set: Gemm32's chains (kernel32_amd64.s, AVX2 and FMA: the caller
// checks haveFMA and the bounds).
//
//go:noescape
func fmaRows4f(c *float32, ldc int, a *float32, lda int, b *float32, ldb, n16, k int, zero bool)

// fmaRowf is fmaRows4f for one row of C and any n ≥ 0 columns (k ≥ 1):
// thirty-two, then eight, then one at a time (kernel32_amd64.s, AVX2 and
// FMA: the caller checks haveFMA and the bounds).
//
//go:noescape
func fmaRowf(c *float32, a *float32, b *float32, ldb, n, k int, zero bool)

// fmaRows4x32f is fmaRows4f for n32 (a multiple of 32) columns, thirty-two
// at a time in AVX-512 registers (kernel32_amd64.s: the caller checks
// haveAVX512 and the bounds).
//
//go:noescape
func fmaRows4x32f(c *float32, ldc int, a *float32, lda int, b *float32, ldb, n32, k int, zero bool)

// aggregate4f is aggregate4y in single precision: for each of edges[0..n−1]
// in turn, o[j] = fma32(coef[4e+k], y[src[e]·yw + k·d + j], o[j]) for k =
// 0..3 and j < d = 16 or 32, o held in registers between the edges
// (kernel32_amd64.s, AVX2 and FMA: the caller checks haveFMA, d and the
// bounds).
//
//go:noescape
func aggregate4f(o *float32, d int, coef, y *float32, yw int, edges, src *int, n int)

// addMessage4f sets o[j] = fma32(c[k], y[k·d+j], o[j]) for k = 0..3 in
// turn and j < d, any d ≥ 0 (kernel32_amd64.s, AVX2 and FMA: the caller
// checks haveFMA and the bounds).
//
//go:noescape
func addMessage4f(o, c, y *float32, d int)

// spread4f is spread4y in single precision: for each of edges[0..n−1] in
// turn, dy[k·d+j] = fma32(coef[4e+k], gr[dst[e]·d+j], dy[k·d+j]) for k =
// 0..3 and j < d = 16 or 32, a quarter of dy held in registers across the
// edges (kernel32_amd64.s, AVX2 and FMA: the caller checks haveFMA, d and
// the bounds).
//
//go:noescape
func spread4f(dy *float32, d int, coef, gr *float32, edges, dst *int, n int)
