package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Param is a named, trainable matrix. Its Node is a leaf that any Tape can
// use as an operand; Backward accumulates into its Grad.
type Param struct {
	Name string
	*Node
}

// Params is an ordered set of named parameters: everything an optimiser
// updates and a checkpoint stores. Order is creation order, so a model
// built by the same code always lists its parameters the same way.
type Params struct {
	list   []*Param
	byName map[string]*Param
}

// NewParams returns an empty parameter set.
func NewParams() *Params { return &Params{byName: map[string]*Param{}} }

// New adds a rows×cols parameter, zero-initialised, and returns its node.
// Names must be unique within the set; modules prefix theirs
// ("actor.l0.W").
func (ps *Params) New(name string, rows, cols int) *Node {
	if _, dup := ps.byName[name]; dup {
		panic(fmt.Sprintf("nn: parameter %q defined twice", name))
	}
	if rows <= 0 || cols <= 0 {
		panic(fmt.Sprintf("nn: parameter %q of shape %dx%d", name, rows, cols))
	}
	p := &Param{Name: name, Node: &Node{
		Rows: rows, Cols: cols,
		Data:     make([]float64, rows*cols),
		Grad:     make([]float64, rows*cols),
		needGrad: true,
		param:    true,
	}}
	ps.list = append(ps.list, p)
	ps.byName[name] = p
	return p.Node
}

// List returns the parameters in creation order. The slice is the set's
// own: do not modify it.
func (ps *Params) List() []*Param { return ps.list }

// Get returns the parameter called name, or nil.
func (ps *Params) Get(name string) *Param { return ps.byName[name] }

// Size returns the number of scalars over all parameters.
func (ps *Params) Size() int {
	var n int
	for _, p := range ps.list {
		n += len(p.Data)
	}
	return n
}

// Perturb adds scale·N(0, 1) from rng to every parameter value, in List
// order: tests use it to move a model off its initialisation (a zero
// output head, for one) so that every path carries signal.
func (ps *Params) Perturb(scale float64, rng *rand.Rand) {
	for _, p := range ps.list {
		for i := range p.Data {
			p.Data[i] += scale * rng.NormFloat64()
		}
	}
}

// ZeroGrad clears every parameter's gradient.
func (ps *Params) ZeroGrad() {
	for _, p := range ps.list {
		clear(p.Grad)
	}
}

// CopyFrom overwrites the values of ps with those of src (a target network
// following its online network). The two sets must have the same names and
// shapes in the same order.
func (ps *Params) CopyFrom(src *Params) {
	if err := sameArch(ps, src); err != nil {
		panic("nn: CopyFrom: " + err.Error())
	}
	for i, p := range ps.list {
		copy(p.Data, src.list[i].Data)
	}
}

// sameArch reports the first difference between the names and shapes of
// two sets.
func sameArch(a, b *Params) error {
	for i := range min(len(a.list), len(b.list)) {
		p, q := a.list[i], b.list[i]
		if p.Name != q.Name || p.Rows != q.Rows || p.Cols != q.Cols {
			return fmt.Errorf("parameter %d is %q %dx%d in one and %q %dx%d in the other", i, p.Name, p.Rows, p.Cols, q.Name, q.Rows, q.Cols)
		}
	}
	if len(a.list) != len(b.list) {
		return fmt.Errorf("%d parameters against %d", len(a.list), len(b.list))
	}
	return nil
}

// Init names a weight initialisation scheme.
type Init int

const (
	// Glorot draws U(−a, a) with a = √(6/(fan_in+fan_out)), keeping the
	// variance of activations and gradients level through tanh, sigmoid and
	// linear layers (Glorot & Bengio 2010).
	Glorot Init = iota
	// He draws N(0, 2/fan_in), the variance ReLU layers need because they
	// zero half their inputs (He et al. 2015).
	He
)

// Fill initialises n as a fanIn×fanOut weight with scheme init, drawing
// from rng in row-major order (so a seed fixes the values).
func (init Init) Fill(n *Node, fanIn, fanOut int, rng *rand.Rand) {
	switch init {
	case Glorot:
		a := math.Sqrt(6 / float64(fanIn+fanOut))
		for i := range n.Data {
			n.Data[i] = a * (2*rng.Float64() - 1)
		}
	case He:
		sd := math.Sqrt(2 / float64(fanIn))
		for i := range n.Data {
			n.Data[i] = sd * rng.NormFloat64()
		}
	default:
		panic(fmt.Sprintf("nn: unknown Init %d", int(init)))
	}
}
