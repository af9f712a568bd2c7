package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestModuleGradients checks each module's parameter gradients, with the
// same finite differences as the operator table.
func TestModuleGradients(t *testing.T) {
	graph, err := NewGraph(4, []int{0, 1, 2, 3, 3}, []int{1, 2, 3, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	mask := []bool{true, true, false, true, true, false}
	cases := []struct {
		name  string
		build func(ps *Params, rng *rand.Rand) func(tp *Tape, x *Node) *Node
		rows  int
		cols  int
	}{
		{"MLP/relu", func(ps *Params, rng *rand.Rand) func(*Tape, *Node) *Node {
			m := NewMLP(ps, "mlp", []int{3, 5, 2}, ReLU, rng)
			return m.Forward
		}, 4, 3},
		{"MLP/tanh", func(ps *Params, rng *rand.Rand) func(*Tape, *Node) *Node {
			m := NewMLP(ps, "mlp", []int{3, 4, 4, 2}, Tanh, rng)
			return m.Forward
		}, 4, 3},
		{"LayerNorm", func(ps *Params, rng *rand.Rand) func(*Tape, *Node) *Node {
			ln := NewLayerNorm(ps, "ln", 5)
			for i := range ln.Bias.Data {
				ln.Gain.Data[i] = 0.5 + rng.Float64()
				ln.Bias.Data[i] = rng.Float64()
			}
			return ln.Forward
		}, 3, 5},
		{"MultiHeadAttention", func(ps *Params, rng *rand.Rand) func(*Tape, *Node) *Node {
			a := NewMultiHeadAttention(ps, "mha", 4, 2, rng)
			return func(tp *Tape, x *Node) *Node { return a.Forward(tp, x, 3, mask) }
		}, 6, 4},
		{"ECC", func(ps *Params, rng *rand.Rand) func(*Tape, *Node) *Node {
			c := NewECC(ps, "ecc", 3, 2, 4, rng)
			for i := range c.B.Data {
				c.B.Data[i] = 0.3 * (2*rng.Float64() - 1)
			}
			ef := make([]float64, graph.Edges()*2)
			for i := range ef {
				ef[i] = rng.Float64()
			}
			return func(tp *Tape, h *Node) *Node {
				return c.Forward(tp, h, tp.Const(graph.Edges(), 2, ef), graph)
			}
		}, 4, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			ps := NewParams()
			fwd := c.build(ps, rng)
			x := ps.New("input", c.rows, c.cols)
			for i := range x.Data {
				x.Data[i] = 2*rng.Float64() - 1
			}
			checkParamGrads(t, ps, rng, func(tp *Tape, x *Node) *Node { return fwd(tp, x) }, x)
		})
	}
}

func TestInitIsSeeded(t *testing.T) {
	build := func(seed uint64) *Params {
		ps := NewParams()
		NewMLP(ps, "m", []int{4, 8, 2}, ReLU, rand.New(rand.NewPCG(seed, 0)))
		return ps
	}
	a, b, c := build(7), build(7), build(8)
	for i, p := range a.List() {
		for j, v := range p.Data {
			if math.Float64bits(v) != math.Float64bits(b.List()[i].Data[j]) {
				t.Fatalf("%s[%d] differs between two builds from seed 7", p.Name, j)
			}
		}
	}
	if a.List()[0].Data[0] == c.List()[0].Data[0] {
		t.Error("seeds 7 and 8 gave the same first weight")
	}
}

// TestInitScale checks the spread of each scheme against its formula on a
// large layer (the sample variance of 64k draws is within ~1% of the true
// one; 5% leaves room).
func TestInitScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		name    string
		init    Init
		in, out int
		want    float64 // variance
	}{
		{"Glorot", Glorot, 256, 256, 2.0 / 512},
		{"He", He, 256, 256, 2.0 / 256},
	} {
		n := &Node{Rows: c.in, Cols: c.out, Data: make([]float64, c.in*c.out)}
		c.init.Fill(n, c.in, c.out, rng)
		var s float64
		for _, v := range n.Data {
			s += v * v
		}
		if got := s / float64(len(n.Data)); math.Abs(got/c.want-1) > 0.05 {
			t.Errorf("%s: variance %g, want %g", c.name, got, c.want)
		}
	}
}
