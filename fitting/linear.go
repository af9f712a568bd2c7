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
	Ratio  float64 // |R_jj| / ‖A e_j‖: how independent the column is (0: not at all)
}

func (e *SingularError) Error() string {
	return fmt.Sprintf("fitting: singular design: column %d is dependent on the others (|R_jj|/‖A_j‖ = %.3g)", e.Column, e.Ratio)
}

func (e *SingularError) Unwrap() error { return ErrSingular }

// LinearLeastSquares solves min ‖A x − b‖₂ by Householder QR (the
// tall-skinny fold used by Minimize; one pass over A). A column whose
// scaled pivot |R_jj|/‖A e_j‖ falls below 1e-10 (or that is all zero) is
// dependent on the others and makes it fail with a *SingularError; the
// test is on scaled pivots so that it does not depend on units. dst
// receives x and is allocated when nil.
func LinearLeastSquares(dst []float64, a mat.Matrix, b []float64) ([]float64, error) {
	x, _, err := linearLeastSquares(dst, a, b)
	return x, err
}

// linearLeastSquares also returns R (n×n, row-major upper triangle).
func linearLeastSquares(dst []float64, a mat.Matrix, b []float64) ([]float64, []float64, error) {
	m, n := a.Dims()
	if len(b) != m {
		panic("fitting: LinearLeastSquares: len(b) != rows")
	}
	if m < n {
		return nil, nil, fmt.Errorf("%w: %d rows for %d unknowns", ErrTooFewResiduals, m, n)
	}
	var data []float64
	if d, ok := a.(*mat.Dense); ok && d.RawMatrix().Stride == n {
		data = d.RawMatrix().Data[:m*n]
	} else {
		data = mat.DenseCopyOf(a).RawMatrix().Data
	}
	if !allFinite(data) || !allFinite(b) {
		return nil, nil, fmt.Errorf("fitting: LinearLeastSquares: non-finite input")
	}
	r, qtb := make([]float64, n*n), make([]float64, n)
	foldQR(r, qtb, data, b, m, n, foldBuffer(n))
	x, err := backSolve(dst, r, qtb, n)
	if err != nil {
		return nil, nil, err
	}
	return x, r, nil
}

// backSolve solves R x = qtb for the n×n upper-triangular R of a fold,
// after the scaled-pivot rank test of LinearLeastSquares. dst receives x
// and is allocated when nil.
func backSolve(dst, r, qtb []float64, n int) ([]float64, error) {
	for j := 0; j < n; j++ {
		cn := 0.0
		for k := 0; k <= j; k++ {
			cn += r[k*n+j] * r[k*n+j]
		}
		if cn == 0 {
			return nil, &SingularError{Column: j}
		}
		if ratio := math.Abs(r[j*n+j]) / math.Sqrt(cn); ratio < 1e-10 {
			return nil, &SingularError{Column: j, Ratio: ratio}
		}
	}
	if dst == nil {
		dst = make([]float64, n)
	}
	for i := n - 1; i >= 0; i-- {
		s := qtb[i]
		for j := i + 1; j < n; j++ {
			s -= r[i*n+j] * dst[j]
		}
		dst[i] = s / r[i*n+i]
	}
	return dst, nil
}
