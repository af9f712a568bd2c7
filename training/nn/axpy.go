package nn

import "gonum.org/v1/gonum/floats"

// The element-wise updates of the tape (gradients accumulated, biases
// added) are gonum's floats.Add, AddScaled and AddScaledTo on rows of
// 16 to 64 values. Each is one call of AxpyUnitaryTo, dst = s·alpha + y
// element by element; where the machine has AVX-512F, axpyTo does the
// same eight elements per instruction, with the same rounding (the
// product, then the sum, never fused; the same first operands), so the
// bits are gonum's.

// addScaledTo sets dst = y + alpha·s, as floats.AddScaledTo does.
func addScaledTo(dst, y []float64, alpha float64, s []float64) {
	if !haveAVX512 || len(s) == 0 {
		floats.AddScaledTo(dst, y, alpha, s)
		return
	}
	if len(dst) != len(s) || len(y) != len(s) {
		panic("nn: slice lengths do not match")
	}
	axpyTo(&dst[0], &s[0], &y[0], len(s), alpha)
}

// addTo adds s to dst, as floats.Add does.
func addTo(dst, s []float64) { addScaledTo(dst, dst, 1, s) }

// addScaled adds alpha·s to dst, as floats.AddScaled does.
func addScaled(dst []float64, alpha float64, s []float64) { addScaledTo(dst, dst, alpha, s) }
