package das

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/training/nn"
)

// walkFeatures records the explicit feature map of the random-walk graph
// kernel for one graph with weighted adjacency P (M×M, here a Matérn
// kernel matrix between a job's machines):
//
//	φ_ℓ(P) = √(β^ℓ/ℓ!) · s_ℓ(P),  s_ℓ(P) = 1ᵀ(P/M)^ℓ 1 / M,  ℓ = 0..L,
//
// a 1×(L+1) row. Because 1ᵀ(A⊗B)^ℓ1 = (1ᵀA^ℓ1)(1ᵀB^ℓ1), the exponential
// random-walk kernel on the product graph (DAS Proposition 2),
//
//	k_RW(G1, G2) = 1ᵀ exp(β · P1/M ⊗ P2/M) 1 / M² = Σ_ℓ β^ℓ/ℓ! s_ℓ(P1) s_ℓ(P2),
//
// is the inner product φ(P1)·φ(P2), truncated at L: positive
// semi-definite by construction, O(L·M²) per graph through mat-vecs, and
// no M²×M² matrix is ever formed. logBeta is the 1×1 parameter log β.
func walkFeatures(t *nn.Tape, p, logBeta *nn.Node, L int) *nn.Node {
	return t.Mul(walkSums(t, p, L), walkCoefs(t, logBeta, L))
}

// walkSums records the row [s_0(P), …, s_L(P)].
func walkSums(t *nn.Tape, p *nn.Node, L int) *nn.Node {
	m := p.Rows
	pm := t.Scale(p, 1/float64(m))
	ones := make([]float64, m)
	for i := range ones {
		ones[i] = 1
	}
	v := t.Const(m, 1, ones)
	walks := make([]*nn.Node, 0, L+1)
	walks = append(walks, v)
	for l := 1; l <= L; l++ {
		v = t.MatMul(pm, v)
		walks = append(walks, v)
	}
	// Column ℓ of the M×(L+1) block is (P/M)^ℓ 1; its mean is s_ℓ.
	return t.ColMeans(t.ConcatCols(walks...))
}

// walkCoefs records the row [√(β^ℓ/ℓ!)]_{ℓ=0..L}, the same for every
// graph. β is held in (0, maxBeta]: beyond it the truncation at L
// would drop terms that matter, and the kernel's scale (up to e^β) would
// swamp the GP's noise floor and break the Cholesky factorisation.
func walkCoefs(t *nn.Tape, logBeta *nn.Node, L int) *nn.Node {
	logBeta = t.Clamp(logBeta, math.Inf(-1), math.Log(maxBeta))
	half := make([]float64, L+1)
	negHalfLogFact := make([]float64, L+1)
	logFact := 0.0
	for l := 1; l <= L; l++ {
		logFact += math.Log(float64(l))
		half[l] = 0.5 * float64(l)
		negHalfLogFact[l] = -0.5 * logFact
	}
	// ℓ/2 · log β − ½ log ℓ!
	return t.Exp(t.Add(t.Mul(t.Const(1, L+1, half), logBeta), t.Const(1, L+1, negHalfLogFact)))
}

// maxBeta bounds β: at β = 2 and L = 8 the first dropped term is
// 2⁹/9! < 1.5e-3 of s_9².
const maxBeta = 2.0

// walker computes walkFeatures without a tape, for acting: the placement
// agent builds one job-aware machine graph per job it tries to place, and
// recording its M×M Matérn matrix and L mat-vecs on a tape, for a
// gradient that acting never takes, made this the hot path of inference.
// It evaluates the expressions of the recorded operators (nn's Matern52,
// Scale, MatMul, ColMeans, Mul) in their order, so the two agree to
// rounding (TestWalkerMatchesTape). A walker reuses its buffers; it is not
// safe for concurrent use.
type walker struct {
	rho   float64   // Matérn length-scale
	coefs []float64 // walkCoefs' value, [√(β^ℓ/ℓ!)]_{ℓ=0..L}
	pm    []float64 // P/M, M×M
	v, w  []float64 // (P/M)^ℓ 1 and the next power
}

// newWalker returns a walker for graphs of m machines; coefs is copied.
func newWalker(m int, rho float64, coefs []float64) *walker {
	return &walker{rho: rho, coefs: slices.Clone(coefs), pm: make([]float64, m*m), v: make([]float64, m), w: make([]float64, m)}
}

// features returns φ(P) (L+1 values, a fresh slice) for the Matérn-5/2
// graph of the rows of x (M×e, row-major).
func (wk *walker) features(x []float64, e int) []float64 {
	m := len(wk.v)
	if len(x) != m*e {
		panic(fmt.Sprintf("das: walker for %d machines given %d values of width %d", m, len(x), e))
	}
	pm, inv := wk.pm, 1/float64(m)
	// P is symmetric with unit diagonal: half the distances and
	// exponentials give all of it, and ‖x_i − x_j‖ rounds the same both
	// ways round.
	for i := 0; i < m; i++ {
		pm[i*m+i] = inv
		xi := x[i*e : (i+1)*e]
		for j := i + 1; j < m; j++ {
			var d2 float64
			for k, v := range x[j*e : (j+1)*e] {
				d := xi[k] - v
				d2 += d * d
			}
			s := sqrt5 * math.Sqrt(d2) / wk.rho
			p := (1 + s + s*s/3) * math.Exp(-s) * inv
			pm[i*m+j], pm[j*m+i] = p, p
		}
	}
	phi := make([]float64, len(wk.coefs))
	v, w := wk.v, wk.w
	for i := range v {
		v[i] = 1
	}
	for l := range phi {
		if l > 0 {
			for i := range w {
				var s float64
				for k, p := range pm[i*m : (i+1)*m] {
					s += p * v[k]
				}
				w[i] = s
			}
			v, w = w, v
		}
		var s float64
		for _, x := range v {
			s += x
		}
		phi[l] = s * inv * wk.coefs[l]
	}
	return phi
}

var sqrt5 = math.Sqrt(5)
