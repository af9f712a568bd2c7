package fitting

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrSingular reports a design matrix whose columns are linearly dependent
// to working precision (for example a feature that is constant in every
// sample, or two features that always move together).
var ErrSingular = errors.New("fitting: singular design")

// SingularError carries the column that made a design singular.
type SingularError struct {
	Column int     // index of the offending column
	Ratio  float64 // |R_jj| / max|R_ii| after column scaling
}

func (e *SingularError) Error() string {
	return fmt.Sprintf("fitting: singular design: column %d is dependent on the others (|R_jj|/max = %.3g)", e.Column, e.Ratio)
}

func (e *SingularError) Unwrap() error { return ErrSingular }

// LinearLeastSquares solves min ‖A x − b‖₂ by Householder QR (gonum
// mat.QR) after scaling every column to unit norm, so that the rank test
// does not depend on units. A column whose scaled |R_jj| falls below
// 1e-10·max|R_ii| (or that is all zero) makes it fail with a
// *SingularError. dst receives x and is allocated when nil.
func LinearLeastSquares(dst []float64, a mat.Matrix, b []float64) ([]float64, error) {
	m, n := a.Dims()
	if len(b) != m {
		panic("fitting: LinearLeastSquares: len(b) != rows")
	}
	if m < n {
		return nil, fmt.Errorf("%w: %d rows for %d unknowns", ErrTooFewResiduals, m, n)
	}
	scaled := mat.DenseCopyOf(a)
	scale := make([]float64, n)
	for j := 0; j < n; j++ {
		s := mat.Norm(scaled.ColView(j), 2)
		if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, &SingularError{Column: j}
		}
		scale[j] = s
		for i := 0; i < m; i++ {
			scaled.Set(i, j, scaled.At(i, j)/s)
		}
	}
	var qr mat.QR
	qr.Factorize(scaled)
	var r mat.Dense
	qr.RTo(&r)
	maxR := 0.0
	for j := 0; j < n; j++ {
		maxR = math.Max(maxR, math.Abs(r.At(j, j)))
	}
	for j := 0; j < n; j++ {
		if ratio := math.Abs(r.At(j, j)) / maxR; ratio < 1e-10 {
			return nil, &SingularError{Column: j, Ratio: ratio}
		}
	}
	var x mat.VecDense
	if err := qr.SolveVecTo(&x, false, mat.NewVecDense(m, append([]float64(nil), b...))); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSingular, err)
	}
	if dst == nil {
		dst = make([]float64, n)
	}
	for j := range dst {
		dst[j] = x.AtVec(j) / scale[j]
	}
	return dst, nil
}
