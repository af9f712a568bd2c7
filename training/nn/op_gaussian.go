package nn

import "math"

// halfLog2Pi is ½·ln 2π.
var halfLog2Pi = 0.5 * math.Log(2*math.Pi)

// gaussianLogProbOp is the element-wise log density of X under N(μ, σ²):
//
//	ℓ = −(x−μ)²/(2σ²) − ln σ − ½ ln 2π,
//	∂ℓ/∂μ = (x−μ)/σ²,  ∂ℓ/∂σ = (x−μ)²/σ³ − 1/σ,  ∂ℓ/∂x = −(x−μ)/σ².
type gaussianLogProbOp struct{}

// GaussianLogProb records log N(x; mean, std²) element-wise; the three
// operands have one shape and std must be positive. Sum the result over an
// action's dimensions for a joint log-probability.
func (t *Tape) GaussianLogProb(x, mean, std *Node) *Node {
	sameShape("GaussianLogProb", x, mean)
	sameShape("GaussianLogProb", x, std)
	n := t.node(gaussianLogProbOp{}, x.Rows, x.Cols, x, mean, std)
	for i, v := range x.Data {
		z := (v - mean.Data[i]) / std.Data[i]
		n.Data[i] = -0.5*z*z - math.Log(std.Data[i]) - halfLog2Pi
	}
	return n
}

func (gaussianLogProbOp) backward(_ *Tape, n *Node) {
	x, mean, std := n.in[0], n.in[1], n.in[2]
	for i, g := range n.Grad {
		s := std.Data[i]
		r := (x.Data[i] - mean.Data[i]) / (s * s)
		if x.needGrad {
			x.Grad[i] -= g * r
		}
		if mean.needGrad {
			mean.Grad[i] += g * r
		}
		if std.needGrad {
			diff := x.Data[i] - mean.Data[i]
			std.Grad[i] += g * (diff*r/s - 1/s)
		}
	}
}

// gaussianEntropyOp is the element-wise entropy of N(μ, σ²),
// ½ ln(2πeσ²) = ln σ + ½(1 + ln 2π), which depends on σ only: ∂/∂σ = 1/σ.
var gaussianEntropyOp = &elementwiseOp{
	f:    func(s float64) float64 { return math.Log(s) + 0.5 + halfLog2Pi },
	grad: func(g, s, _ float64) float64 { return g / s },
}

// GaussianEntropy records the entropy of a normal distribution with
// standard deviation std, element-wise.
func (t *Tape) GaussianEntropy(std *Node) *Node { return t.elementwise(gaussianEntropyOp, std) }
