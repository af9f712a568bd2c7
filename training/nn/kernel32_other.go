//go:build !amd64 || noasm || gccgo || safe

package nn

func fmaRows4f(c *float32, ldc int, a *float32, lda int, b *float32, ldb, n16, k int, zero bool) {
	panic("nn: fmaRows4f without assembly kernels")
}

func fmaRowf(c *float32, a *float32, b *float32, ldb, n, k int, zero bool) {
	panic("nn: fmaRowf without assembly kernels")
}

func fmaRows4x32f(c *float32, ldc int, a *float32, lda int, b *float32, ldb, n32, k int, zero bool) {
	panic("nn: fmaRows4x32f without assembly kernels")
}

func aggregate4f(o *float32, d int, coef, y *float32, yw int, edges, src *int, n int) {
	panic("nn: aggregate4f without assembly kernels")
}

func addMessage4f(o, c, y *float32, d int) {
	panic("nn: addMessage4f without assembly kernels")
}

func spread4f(dy *float32, d int, coef, gr *float32, edges, dst *int, n int) {
	panic("nn: spread4f without assembly kernels")
}
