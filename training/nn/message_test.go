package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// messageCase is one random trial of the message kernels' tests: f edge
// features, width d, a graph of up to 30 nodes and 60 edges, their
// coefficients, and a list of 0 to 40 of its edges in any order (with
// repeats); vec draws values, with ±0, NaN and ±Inf on odd trials.
type messageCase struct {
	f, d  int
	g     *Graph
	coef  []float64
	edges []int
	vec   func(n int) []float64
}

func newMessageCase(t *testing.T, rng *rand.Rand, trial int) messageCase {
	t.Helper()
	c := messageCase{f: []int{3, 3, 3, 1, 5}[trial%5], d: []int{16, 32, 16, 32, 8, 12, 20}[trial%7]}
	c.vec = func(n int) []float64 {
		v := randSparse(n, rng)
		if trial%2 == 1 {
			v = withSpecials(v, 30, rng)
		}
		return v
	}
	nodes, edges := 1+rng.IntN(30), rng.IntN(60)
	src, dst := make([]int, edges), make([]int, edges)
	for e := range src {
		src[e], dst[e] = rng.IntN(nodes), rng.IntN(nodes)
	}
	var err error
	if c.g, err = NewGraph(nodes, src, dst); err != nil {
		t.Fatal(err)
	}
	c.coef = c.vec(max(edges, 1) * (c.f + 1))
	for range rng.IntN(41) {
		if edges > 0 {
			c.edges = append(c.edges, rng.IntN(edges))
		}
	}
	return c
}

// check fails t unless got holds want's bits.
// coefOf returns edge e's f+1 coefficients.
func (c messageCase) coefOf(e int) []float64 { return c.coef[e*(c.f+1) : (e+1)*(c.f+1)] }

// yw is the width of a node's row of messages, (f+1)·d.
func (c messageCase) yw() int { return (c.f + 1) * c.d }

// edgeKernel is one of the message kernels' bit tests: all adds the
// terms of a case's edges into a row in one call, and must give, bit for
// bit, what edge gives applied edge by edge (ref names it). sizes gives
// the lengths of the rows the terms are read from and of the row they
// are added into.
type edgeKernel struct {
	seed  uint64
	ref   string
	sizes func(c messageCase) (src, out int)
	edge  func(c messageCase, want, src []float64, e int)
	all   func(c messageCase, got, src []float64)
}

// test runs the kernel on 200 random cases from its seed.
func (k edgeKernel) test(t *testing.T) {
	rng := rand.New(rand.NewPCG(k.seed, k.seed+1))
	for trial := range 200 {
		c := newMessageCase(t, rng, trial)
		ns, no := k.sizes(c)
		src, o := c.vec(ns), c.vec(no)
		want, got := append([]float64(nil), o...), append([]float64(nil), o...)
		for _, e := range c.edges {
			k.edge(c, want, src, e)
		}
		k.all(c, got, src)
		c.check(t, trial, k.ref, got, want)
	}
}

func (c messageCase) check(t *testing.T, trial int, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
			t.Fatalf("trial %d (f=%d d=%d, %d edges): element %d is %#x, %s gives %#x", trial, c.f, c.d, len(c.edges), i, math.Float64bits(got[i]), what, math.Float64bits(want[i]))
		}
	}
}

// TestAggregateBits compares aggregate, a node's messages summed in one
// call (the kernel keeps the row in registers), with addMessage edge by
// edge, bit for bit: at the widths the kernel takes (16 and 32) and
// others, with f+1 = 4 and other counts, for edge lists of 0 to 40
// edges in any order with repeated sources, and with ±0, NaN and ±Inf
// among the values, on both the assembly and the Go paths.
func TestAggregateBits(t *testing.T) { fmaPaths(t, testAggregateBits) }

func testAggregateBits(t *testing.T) {
	edgeKernel{seed: 21, ref: "addMessage",
		sizes: func(c messageCase) (int, int) { return c.g.Nodes * c.yw(), c.d },
		edge: func(c messageCase, want, y []float64, e int) {
			s := c.g.Src[e]
			addMessage(want, c.coefOf(e), y[s*c.yw():(s+1)*c.yw()])
		},
		all: func(c messageCase, got, y []float64) { aggregate(got, c.coef, y, c.yw(), c.edges, c.g, c.f) },
	}.test(t)
}

// TestSpreadBits compares spread, a source's transposed messages added
// in one call (the kernel keeps a quarter of the row in registers), with
// spreadMessage edge by edge, bit for bit, as TestAggregateBits does for
// aggregate.
func TestSpreadBits(t *testing.T) { fmaPaths(t, testSpreadBits) }

func testSpreadBits(t *testing.T) {
	edgeKernel{seed: 23, ref: "spreadMessage",
		sizes: func(c messageCase) (int, int) { return c.g.Nodes * c.d, (c.f + 1) * c.d },
		edge: func(c messageCase, want, gr []float64, e int) {
			u := c.g.Dst[e]
			spreadMessage(want, c.coefOf(e), gr[u*c.d:(u+1)*c.d])
		},
		all: func(c messageCase, got, gr []float64) { spread(got, c.coef, gr, c.d, c.edges, c.g, c.f) },
	}.test(t)
}

// TestGatherMessagesBits compares gatherMessages, a restricted row's
// sums of its incoming edges' coefficient-weighted source rows in one
// call (the kernel keeps the row in registers), with spreadMessage edge
// by edge from each edge's source, bit for bit, as TestSpreadBits does
// for spread.
func TestGatherMessagesBits(t *testing.T) { fmaPaths(t, testGatherMessagesBits) }

func testGatherMessagesBits(t *testing.T) {
	edgeKernel{seed: 25, ref: "spreadMessage",
		sizes: func(c messageCase) (int, int) { return c.g.Nodes * c.d, (c.f + 1) * c.d },
		edge: func(c messageCase, want, h []float64, e int) {
			s := c.g.Src[e]
			spreadMessage(want, c.coefOf(e), h[s*c.d:(s+1)*c.d])
		},
		all: func(c messageCase, got, h []float64) { gatherMessages(got, c.coef, h, c.d, c.edges, c.g, c.f) },
	}.test(t)
}

// TestAggregateRowsBits compares aggregateRows, which runs rows of like
// degree side by side in one kernel, with addMessage edge by edge for
// each row, bit for bit: random graphs whose nodes have 0 to 12
// incoming edges, any subset of rows in any order, widths 16 and 32
// (the grouped kernels') and others, on every kernel path.
func TestAggregateRowsBits(t *testing.T) { fmaPaths(t, testAggregateRowsBits) }

func testAggregateRowsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	var scratch []int
	for trial := range 200 {
		c := newMessageCase(t, rng, trial)
		f, d, yw := c.f, c.d, c.yw()
		nodes := c.g.Nodes
		var src, dst []int
		in := make([][]int, nodes)
		for u := range nodes {
			for range rng.IntN(13) {
				in[u] = append(in[u], len(src))
				src, dst = append(src, rng.IntN(nodes)), append(dst, u)
			}
		}
		g, err := NewGraph(nodes, src, dst)
		if err != nil {
			t.Fatal(err)
		}
		coef, y := c.vec(max(len(src), 1)*(f+1)), c.vec(nodes*yw)
		var rows []int
		for _, u := range rng.Perm(nodes) {
			if rng.IntN(3) > 0 {
				rows = append(rows, u)
			}
		}
		want, got := c.vec(nodes*d), make([]float64, nodes*d)
		copy(got, want)
		for _, u := range rows {
			o := want[u*d : (u+1)*d]
			clear(o)
			for _, e := range in[u] {
				s := g.Src[e]
				addMessage(o, coef[e*(f+1):(e+1)*(f+1)], y[s*yw:(s+1)*yw])
			}
		}
		scratch = aggregateRows(got, d, coef, y, yw, rows, in, g, f, scratch)
		c.check(t, trial, "addMessage", got, want)
	}
}

// TestAggregateFromBits compares aggregateFrom, messages from given
// source rows with given coefficients in one call, with addMessage
// message by message, bit for bit, as TestAggregateBits does for
// aggregate.
func TestAggregateFromBits(t *testing.T) { fmaPaths(t, testAggregateFromBits) }

func testAggregateFromBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	var seq []int
	for trial := range 200 {
		c := newMessageCase(t, rng, trial)
		f, yw := c.f, c.yw()
		y, o := c.vec(c.g.Nodes*yw), c.vec(c.d)
		srcs := make([]int, rng.IntN(41))
		for i := range srcs {
			srcs[i] = rng.IntN(c.g.Nodes)
		}
		coef := c.vec(max(len(srcs), 1) * (f + 1))
		want, got := append([]float64(nil), o...), append([]float64(nil), o...)
		for i, s := range srcs {
			addMessage(want, coef[i*(f+1):(i+1)*(f+1)], y[s*yw:(s+1)*yw])
		}
		seq = aggregateFrom(got, coef, y, yw, srcs, f, seq)
		c.check(t, trial, "addMessage", got, want)
	}
}
