//go:build !amd64 || noasm || gccgo || safe

package nn

// haveKernels: no assembly kernels in this build; gemmSerial leaves every
// product to gonum (whose own kernels, pure Go here, may round otherwise
// than the amd64 assembly: on arm64 the compiler fuses multiply-adds).
const haveKernels = false

func axpyRows16(c, a *float64, inca int, b *float64, ldb, k int, alpha float64, zero bool) {
	panic("nn: axpyRows16 without assembly kernels")
}

var haveAVX512 = false

func axpyRows16x4(c *float64, ldc int, a *float64, inca, rowa int, b *float64, ldb, k int, alpha float64, zero bool) {
	panic("nn: axpyRows16x4 without assembly kernels")
}

func dotRows(c, a, b *float64, ldb, n, k int, alpha float64) {
	panic("nn: dotRows without assembly kernels")
}

func addMessage4(o, c, y *float64, d int) {
	panic("nn: addMessage4 without assembly kernels")
}

func spreadMessage4(dy, c, gr *float64, d int) {
	panic("nn: spreadMessage4 without assembly kernels")
}

func addMessage4z(o, c, y *float64, d int) {
	panic("nn: addMessage4z without assembly kernels")
}

func spreadMessage4z(dy, c, gr *float64, d int) {
	panic("nn: spreadMessage4z without assembly kernels")
}

func dotRows4z(c, a, b *float64, ldb, n, k int, alpha float64) {
	panic("nn: dotRows4z without assembly kernels")
}
