package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// softmaxOp is the softmax of each row, computed after subtracting the
// row maximum so that no exponential overflows. Backward, with P the
// output: dA_i = P_i ⊙ (dP_i − ⟨dP_i, P_i⟩), which is 0 wherever P is, so
// masked entries need no special case.
type softmaxOp struct{}

// Softmax records the softmax of each row of a.
func (t *Tape) Softmax(a *Node) *Node { return t.MaskedSoftmax(a, nil) }

// MaskedSoftmax records the softmax of each row of a over the entries
// mask allows (m·n long, row-major, true = allowed; nil allows all).
// Masked entries get probability exactly 0, and so no gradient; a row with
// nothing allowed is all 0. The tape keeps mask until the next Reset.
func (t *Tape) MaskedSoftmax(a *Node, mask []bool) *Node {
	if mask != nil && len(mask) != len(a.Data) {
		panic(fmt.Sprintf("nn: MaskedSoftmax mask of %d for %dx%d", len(mask), a.Rows, a.Cols))
	}
	n := t.node(softmaxOp{}, a.Rows, a.Cols, a)
	n.mask = mask
	copy(n.Data, a.Data)
	c := a.Cols
	for i := 0; i < a.Rows; i++ {
		var allowed []bool
		if mask != nil {
			allowed = mask[i*c : (i+1)*c]
		}
		MaskedSoftmaxRow(n.Data[i*c:(i+1)*c], allowed)
	}
	return n
}

func (softmaxOp) backward(_ *Tape, n *Node) {
	a := n.in[0]
	if !a.needGrad {
		return
	}
	c := n.Cols
	for i := 0; i < n.Rows; i++ {
		p, g, ag := n.Data[i*c:(i+1)*c], n.Grad[i*c:(i+1)*c], a.Grad[i*c:(i+1)*c]
		d := floats.Dot(g, p)
		for j, pj := range p {
			ag[j] += pj * (g[j] - d)
		}
	}
}

// maskedMax returns the largest of s's entries that present marks (all
// when present is nil), −Inf when it marks none.
func maskedMax(s []float64, present []bool) float64 {
	m := math.Inf(-1)
	for j, v := range s {
		if (present == nil || present[j]) && v > m {
			m = v
		}
	}
	return m
}

// MaskedSoftmaxRow replaces s by its softmax over the entries present
// marks (all when present is nil), in place; the others become 0, and a
// row with none present becomes all 0. It is exported for code that
// computes attention outside a tape on its own buffers (DAS's order
// agent), so that both compute the same numbers.
func MaskedSoftmaxRow(s []float64, present []bool) {
	m := maskedMax(s, present)
	if math.IsInf(m, -1) {
		clear(s)
		return
	}
	// Shift by the maximum (absent entries to 0, whose exponential is
	// cleared again below), exponentiate, and sum in order: an absent
	// entry adds +0, which changes no sum, so the sum is that of the
	// present entries alone.
	inRange := true
	if present == nil {
		for j, v := range s {
			x := v - m
			s[j] = x
			inRange = inRange && x >= expLo
		}
	} else {
		present = present[:len(s)]
		for j, v := range s {
			x := 0.0
			if present[j] {
				x = v - m
			}
			s[j] = x
			inRange = inRange && x >= expLo
		}
	}
	expInPlace(s, inRange)
	if present != nil {
		for j, ok := range present {
			if !ok {
				s[j] = 0
			}
		}
	}
	var sum float64
	for _, v := range s {
		sum += v
	}
	floats.Scale(1/sum, s)
}

// expLo is the least argument of exp4y: above it math.Exp's amd64 code
// takes no special case and no denormal scaling.
const expLo = -708

// expInPlace sets x[j] = math.Exp(x[j]), bit for bit, four at a time
// where the machine allows and inRange reports that every x[j] is in
// [expLo, 0] (a softmax's shifted scores; NaN is not).
func expInPlace(x []float64, inRange bool) {
	if !haveFMA || !inRange {
		for j, v := range x {
			x[j] = math.Exp(v)
		}
		return
	}
	n4 := len(x) &^ 3
	if n4 > 0 {
		exp4y(&x[0], n4)
	}
	if n4 < len(x) {
		// The last one to three in a block of four, padded with zeros.
		var tail [4]float64
		copy(tail[:], x[n4:])
		exp4y(&tail[0], 4)
		copy(x[n4:], tail[:])
	}
}
