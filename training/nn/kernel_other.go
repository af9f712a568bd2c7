//go:build !amd64 || noasm || gccgo || safe

package nn

// haveKernels: no assembly kernels in this build; gemm runs its pure Go
// path and the messages their Go loops (math.FMA: the same bits).
const haveKernels = false

var haveFMA, haveAVX512 = false, false

func fmaRows4(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, n8, k int, zero bool) {
	panic("nn: fmaRows4 without assembly kernels")
}

func fmaRow32(c *float64, a *float64, inca int, b *float64, ldb, n32, k int, zero bool) {
	panic("nn: fmaRow32 without assembly kernels")
}

func fmaRow16(c *float64, a *float64, inca int, b *float64, ldb, n16, k int, zero bool) {
	panic("nn: fmaRow16 without assembly kernels")
}

func addMessage4y(o, c, y *float64, d int) {
	panic("nn: addMessage4y without assembly kernels")
}

func spreadMessage4y(dy, c, gr *float64, d int) {
	panic("nn: spreadMessage4y without assembly kernels")
}

func aggregate4y(o *float64, d int, coef, y *float64, yw int, edges, src *int, n int) {
	panic("nn: aggregate4y without assembly kernels")
}

func spread4y(dy *float64, d int, coef, gr *float64, edges, dst *int, n int) {
	panic("nn: spread4y without assembly kernels")
}

func spread4z(dy *float64, d int, coef, gr *float64, edges, dst *int, n int) {
	panic("nn: spread4z without assembly kernels")
}

func fmaRows4x16(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, n16, k int, zero bool) {
	panic("nn: fmaRows4x16 without assembly kernels")
}

func reluSum4y(a, s, c, cb *float64, n int) {
	panic("nn: reluSum4y without assembly kernels")
}

func reluGrad4y(dst, a, w *float64, gi float64, n int) {
	panic("nn: reluGrad4y without assembly kernels")
}

func transpose4y(at *float64, ldt int, a *float64, h int) {
	panic("nn: transpose4y without assembly kernels")
}

func aggregate4x16z(o *[4]*float64, coef, y *float64, yw int, edges *[4]*int, src *int, n int) {
	panic("nn: aggregate4x16z without assembly kernels")
}

func aggregate2x32z(o *[2]*float64, coef, y *float64, yw int, edges *[2]*int, src *int, n int) {
	panic("nn: aggregate2x32z without assembly kernels")
}

func reluGrad3y(d1, d2, d3, a, w *float64, gi float64, n int) {
	panic("nn: reluGrad3y without assembly kernels")
}

func fmaRow64z(c *float64, a *float64, inca int, b *float64, ldb, n64, k int, zero bool) {
	panic("nn: fmaRow64z without assembly kernels")
}
