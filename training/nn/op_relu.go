package nn

// reluOp is max(A, 0); the derivative at exactly 0 is taken as 0. Adding
// a +0 where the derivative is 0 leaves the gradient as it was: gradients
// start from +0 (clear), so none is ever −0.
var reluOp = &elementwiseOp{
	f: func(x float64) float64 { return max(x, 0) },
	grad: func(g, x, _ float64) float64 {
		if x > 0 {
			return g
		}
		return 0
	},
}

// ReLU records max(a, 0), element-wise.
func (t *Tape) ReLU(a *Node) *Node { return t.elementwise(reluOp, a) }
