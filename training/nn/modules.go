package nn

import (
	"fmt"
	"math/rand/v2"
)

// Modules bundle parameters with the forward computation that uses them.
// Each registers its parameters in a Params under a name prefix at
// construction and records its computation on the Tape passed to Forward.
// Forward only reads parameters, so one module may run forward passes on
// several tapes (one per goroutine) at once; Backward adds into the
// parameters' Grad and optimisers write their values, so those must not
// overlap with anything else using the same Params.

// Linear is the affine map x·W + b, W in×out, b a 1×out row.
type Linear struct {
	W, B *Node
}

// NewLinear registers prefix.W (initialised by init) and prefix.b (zeros).
func NewLinear(ps *Params, prefix string, in, out int, init Init, rng *rand.Rand) *Linear {
	l := &Linear{W: ps.New(prefix+".W", in, out), B: ps.New(prefix+".b", 1, out)}
	init.Fill(l.W, in, out, rng)
	return l
}

// Forward records x·W + b for x with one row per item.
func (l *Linear) Forward(t *Tape, x *Node) *Node {
	return t.Add(t.MatMul(x, l.W), l.B)
}

// Activation names the non-linearity between an MLP's layers.
type Activation int

const (
	ReLU Activation = iota
	Tanh
)

func (a Activation) apply(t *Tape, x *Node) *Node {
	switch a {
	case ReLU:
		return t.ReLU(x)
	case Tanh:
		return t.Tanh(x)
	}
	panic(fmt.Sprintf("nn: unknown Activation %d", int(a)))
}

// MLP is a stack of Linear layers with an activation after every layer but
// the last, whose output is left linear for the caller's head (softmax,
// tanh, a value).
type MLP struct {
	Layers []*Linear
	Act    Activation
}

// NewMLP registers layers prefix.l0, prefix.l1, ... mapping sizes[0] to
// sizes[len-1]. Hidden layers are initialised for their activation (He for
// ReLU, Glorot for tanh); the output layer with Glorot.
func NewMLP(ps *Params, prefix string, sizes []int, act Activation, rng *rand.Rand) *MLP {
	if len(sizes) < 2 {
		panic(fmt.Sprintf("nn: MLP needs at least input and output sizes, got %v", sizes))
	}
	m := &MLP{Act: act}
	for i := 0; i+1 < len(sizes); i++ {
		init := Glorot
		if act == ReLU && i+2 < len(sizes) {
			init = He
		}
		m.Layers = append(m.Layers, NewLinear(ps, fmt.Sprintf("%s.l%d", prefix, i), sizes[i], sizes[i+1], init, rng))
	}
	return m
}

// Forward records the network on x.
func (m *MLP) Forward(t *Tape, x *Node) *Node {
	for i, l := range m.Layers {
		x = l.Forward(t, x)
		if i+1 < len(m.Layers) {
			x = m.Act.apply(t, x)
		}
	}
	return x
}

// LayerNorm normalises each row and applies a learned gain (ones) and bias
// (zeros).
type LayerNorm struct {
	Gain, Bias *Node
	Eps        float64
}

// NewLayerNorm registers prefix.gain and prefix.bias for rows of width
// dim, with variance floor 1e-5.
func NewLayerNorm(ps *Params, prefix string, dim int) *LayerNorm {
	ln := &LayerNorm{Gain: ps.New(prefix+".gain", 1, dim), Bias: ps.New(prefix+".bias", 1, dim), Eps: 1e-5}
	for i := range ln.Gain.Data {
		ln.Gain.Data[i] = 1
	}
	return ln
}

// Forward records the normalisation of x.
func (ln *LayerNorm) Forward(t *Tape, x *Node) *Node {
	return t.LayerNorm(x, ln.Gain, ln.Bias, ln.Eps)
}

// MultiHeadAttention is the self-attention block of the DAS ordering
// agent (Vaswani et al. 2017): one projection to [Q | K | V], the fused
// per-set attention of Tape.SelfAttention, and an output projection.
type MultiHeadAttention struct {
	QKV, Out *Linear
	Heads    int
}

// NewMultiHeadAttention registers prefix.qkv (dim×3·dim) and prefix.out
// (dim×dim), Glorot-initialised. dim must be divisible by heads.
func NewMultiHeadAttention(ps *Params, prefix string, dim, heads int, rng *rand.Rand) *MultiHeadAttention {
	if heads <= 0 || dim%heads != 0 {
		panic(fmt.Sprintf("nn: MultiHeadAttention of width %d with %d heads", dim, heads))
	}
	return &MultiHeadAttention{
		QKV:   NewLinear(ps, prefix+".qkv", dim, 3*dim, Glorot, rng),
		Out:   NewLinear(ps, prefix+".out", dim, dim, Glorot, rng),
		Heads: heads,
	}
}

// Forward records attention over x, whose rows come in independent sets
// of setSize items (B sets stacked: (B·setSize)×dim). keyMask, if not nil,
// marks with false the padded rows that must receive no attention.
func (a *MultiHeadAttention) Forward(t *Tape, x *Node, setSize int, keyMask []bool) *Node {
	return a.Out.Forward(t, t.SelfAttention(a.QKV.Forward(t, x), setSize, a.Heads, keyMask))
}

// ECC is one edge-conditioned convolution layer of the MARL scheduler
// (DESIGN.md §5): Θ_uw = F(E(u,w)) with F a linear layer from the f edge
// features to a d×d matrix, h_N(u) = mean_w Θ_uw h_w + b, and
// h_u' = relu([h_u, h_N(u)]·W).
type ECC struct {
	FilterW, FilterB *Node // F: f×d² and 1×d²
	B                *Node // 1×d
	W                *Node // 2d×out
}

// NewECC registers prefix.F.W, prefix.F.b, prefix.b and prefix.W for node
// states of width dim, edge features of width edgeDim and outputs of
// width out. F's weights are scaled so that Θ h_w starts with the variance
// of a Glorot layer from dim to dim.
func NewECC(ps *Params, prefix string, dim, edgeDim, out int, rng *rand.Rand) *ECC {
	c := &ECC{
		FilterW: ps.New(prefix+".F.W", edgeDim, dim*dim),
		FilterB: ps.New(prefix+".F.b", 1, dim*dim),
		B:       ps.New(prefix+".b", 1, dim),
		W:       ps.New(prefix+".W", 2*dim, out),
	}
	// An entry of Θ sums edgeDim+1 filter terms (unit-size edge features
	// assumed). Drawing each with variance 1/(dim·(edgeDim+1)) gives Θ
	// entries of variance 1/dim, so Θ h_w starts at the scale of h_w, as
	// a Glorot dim×dim layer would.
	Glorot.Fill(c.FilterW, dim*(edgeDim+1), dim*(edgeDim+1), rng)
	Glorot.Fill(c.FilterB, dim*(edgeDim+1), dim*(edgeDim+1), rng)
	He.Fill(c.W, 2*dim, out, rng)
	return c
}

// Forward records the layer for node states h (n×dim) and edge features
// ef (one row per edge of g).
func (c *ECC) Forward(t *Tape, h, ef *Node, g *Graph) *Node {
	hn := t.Add(t.EdgeConv(h, ef, c.FilterW, c.FilterB, g), c.B)
	return t.ReLU(t.MatMul(t.ConcatCols(h, hn), c.W))
}

// ForwardRows records the layer at rows of g only (the output's row i is
// node rows[i]'s), its aggregation summed before the filter's product
// (Tape.EdgeConvRows): for a layer read at a few rows. The values are
// Forward's rows up to rounding, and ECCStack's on a stack restricted to
// those rows (ECCStack.Only) to the bit.
func (c *ECC) ForwardRows(t *Tape, h, ef *Node, g *Graph, rows []int) *Node {
	hn := t.Add(t.EdgeConvRows(h, ef, c.FilterW, c.FilterB, g, rows), c.B)
	return t.ReLU(t.MatMul(t.ConcatCols(t.GatherRows(h, rows), hn), c.W))
}
