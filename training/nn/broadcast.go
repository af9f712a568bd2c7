package nn

import "fmt"

// broadcast says how the second operand b of an element-wise binary
// operator lines up with the first, a (m×n): b may be m×n, a 1×n row (a bias
// added to every row), an m×1 column (a per-row weight) or 1×1.
type broadcast int

const (
	bcSame broadcast = iota
	bcRow
	bcCol
	bcScalar
)

func broadcastOf(op string, a, b *Node) broadcast {
	switch {
	case b.Rows == a.Rows && b.Cols == a.Cols:
		return bcSame
	case b.Rows == 1 && b.Cols == a.Cols:
		return bcRow
	case b.Cols == 1 && b.Rows == a.Rows:
		return bcCol
	case b.Rows == 1 && b.Cols == 1:
		return bcScalar
	}
	panic(fmt.Sprintf("nn: %s of %dx%d and %dx%d: second operand must match, be a row, a column or a scalar", op, a.Rows, a.Cols, b.Rows, b.Cols))
}

// row returns b's values for row i of a (cols wide): either a slice of cols
// values (same shape or row broadcast) or, when vec is nil, one value s that
// applies to the whole row (column or scalar broadcast).
func (bc broadcast) row(b *Node, i, cols int) (vec []float64, s float64) {
	switch bc {
	case bcSame:
		return b.Data[i*cols : (i+1)*cols], 0
	case bcRow:
		return b.Data[:cols], 0
	case bcCol:
		return nil, b.Data[i]
	}
	return nil, b.Data[0]
}

// gradRow returns where row i of b's gradient goes: a slice of cols values,
// or nil with the index of the single entry that collects the row's sum.
func (bc broadcast) gradRow(b *Node, i, cols int) (vec []float64, k int) {
	switch bc {
	case bcSame:
		return b.Grad[i*cols : (i+1)*cols], 0
	case bcRow:
		return b.Grad[:cols], 0
	case bcCol:
		return nil, i
	}
	return nil, 0
}
