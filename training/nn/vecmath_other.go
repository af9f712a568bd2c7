//go:build !amd64 || noasm || gccgo || safe

package nn

func exp4y(x *float64, n int) {
	panic("nn: exp4y without assembly kernels")
}

func adam4y(p, grad, m, v *float64, n int, c *adamCoefs) {
	panic("nn: adam4y without assembly kernels")
}
