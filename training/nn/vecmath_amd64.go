//go:build !noasm && !gccgo && !safe

package nn

// exp4y sets x[j] = math.Exp(x[j]) for j < n, a multiple of 4, bit for
// bit (vecmath_amd64.s, AVX2 and FMA: the caller checks haveFMA, and that
// every x[j] is in [expLo, 0]).
//
//go:noescape
func exp4y(x *float64, n int)

// adam4y runs Adam.Step's update over p, grad, m and v (n long, a multiple
// of 4), bit for bit, and clears grad (vecmath_amd64.s, AVX2: the caller
// checks haveFMA and the bounds).
//
//go:noescape
func adam4y(p, grad, m, v *float64, n int, c *adamCoefs)
