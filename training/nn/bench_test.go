package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Benchmarks report GFLOP/s counting only matrix products, 2·m·n·k each
// (forward and backward, as Tape.Flops counts them), so the network
// figures compare directly with the raw BLAS rate of BenchmarkMatMul.
// Element-wise work (exp in softmax, activations, Adam) is time spent
// outside that count. All run in well under a second with -benchtime 1x.

func reportGFLOPS(b *testing.B, flops int64) {
	b.ReportMetric(float64(flops)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkMatMul is gonum's raw square matrix product, the ceiling for
// the networks below.
func BenchmarkMatMul(b *testing.B) {
	for _, n := range []int{64, 256} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			mk := func() blas64.General {
				g := general(n, n, n, make([]float64, n*n))
				for i := range g.Data {
					g.Data[i] = rng.Float64()
				}
				return g
			}
			x, y, z := mk(), mk(), mk()
			b.ReportAllocs()
			for b.Loop() {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, x, y, 0, z)
			}
			reportGFLOPS(b, int64(b.N)*2*int64(n)*int64(n)*int64(n))
		})
	}
}

// BenchmarkOrderingNetwork is one training step (forward, backward, Adam)
// of the DAS ordering network at the paper's size: e = 64, h = 4 heads,
// N = 32 jobs per set, a batch of 64 independent sets (2048 job rows; one
// decision's job set is one row block of 32), a quarter of each set
// padded and masked.
func BenchmarkOrderingNetwork(b *testing.B) {
	const sets, jobs, features = 64, 32, 5
	rng := rand.New(rand.NewPCG(1, 0))
	ps := NewParams()
	net := newOrderingNet(ps, features, 64, 4, jobs, rng)
	opt := NewAdam(ps, AdamConfig{MaxGradNorm: 1})
	batch := newOrderingBatch(sets, jobs, features, rng)
	var tp Tape
	net.step(&tp, opt, batch, features) // warm-up: the tape's buffers are allocated here
	var flops int64
	b.ReportAllocs()
	for b.Loop() {
		net.step(&tp, opt, batch, features)
		flops += tp.Flops()
	}
	reportGFLOPS(b, flops)
}

// BenchmarkECC is forward and backward of one edge-conditioned convolution
// layer (d = 32 in and out, 4 edge features) on a 400-node, 1600-edge
// random graph.
func BenchmarkECC(b *testing.B) {
	const nodes, edges, d, f = 400, 1600, 32, 4
	rng := rand.New(rand.NewPCG(2, 0))
	src, dst := make([]int, edges), make([]int, edges)
	for i := range src {
		src[i], dst[i] = rng.IntN(nodes), rng.IntN(nodes)
	}
	g, err := NewGraph(nodes, src, dst)
	if err != nil {
		b.Fatal(err)
	}
	ps := NewParams()
	layer := NewECC(ps, "ecc", d, f, d, rng)
	h := make([]float64, nodes*d)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	ef := make([]float64, edges*f)
	for i := range ef {
		ef[i] = rng.Float64()
	}
	var tp Tape
	step := func() {
		tp.Reset()
		out := layer.Forward(&tp, tp.Const(nodes, d, h), tp.Const(edges, f, ef), g)
		tp.Backward(tp.Mean(out))
		ps.ZeroGrad()
	}
	step() // warm-up: the tape's buffers are allocated here
	var flops int64
	b.ReportAllocs()
	for b.Loop() {
		step()
		flops += tp.Flops()
	}
	reportGFLOPS(b, flops)
}

// BenchmarkGemmSerial compares gemm with gonum's Dgemm
// on the products of an ECC layer's backward pass over the MARL
// single-agent graph of fat-tree k = 8 (592 nodes, width 16, (f+1)d = 64):
// dH += dY·Ms (NotNot), dMs += dYᵀ·H (TransNot) and dA += dZ·Wᵀ
// (NotTrans). "gonum" is blas64.Gemm, "kernels" the package's gemm (the
// FMA kernels where the machine has them).
func BenchmarkGemmSerial(b *testing.B) {
	const nodes, d, yw = 592, 16, 64
	rng := rand.New(rand.NewPCG(9, 9))
	mk := func(r, c int) blas64.General { return general(r, c, c, randSparse(r*c, rng)) }
	cases := []struct {
		name   string
		ta, tb bool
		a, b   blas64.General
		m, n   int
	}{
		{"NotNot", false, false, mk(nodes, yw), mk(yw, d), nodes, d},
		{"TransNot", true, false, mk(nodes, yw), mk(nodes, d), yw, d},
		{"NotTrans", false, true, mk(nodes, d), mk(2*d, d), nodes, 2 * d},
		// The MARL forward scorer's candidate half: 20 schedulers'
		// 96-wide states by its 96×128 weights.
		{"Scorer", false, false, mk(20, 96), mk(96, 128), 20, 128},
		// The acting scheduler's state row by the same weights.
		{"Row", false, false, mk(1, 96), mk(96, 128), 1, 128},
	}
	for _, cs := range cases {
		c := mk(cs.m, cs.n)
		k := cs.a.Cols
		if cs.ta {
			k = cs.a.Rows
		}
		tA, tB := blas.NoTrans, blas.NoTrans
		if cs.ta {
			tA = blas.Trans
		}
		if cs.tb {
			tB = blas.Trans
		}
		flops := int64(2 * cs.m * cs.n * k)
		b.Run(cs.name+"/gonum", func(b *testing.B) {
			for b.Loop() {
				blas64.Gemm(tA, tB, 1, cs.a, cs.b, 1, c)
			}
			reportGFLOPS(b, int64(b.N)*flops)
		})
		b.Run(cs.name+"/kernels", func(b *testing.B) {
			for b.Loop() {
				gemm(cs.ta, cs.tb, 1, cs.a, cs.b, 1, c)
			}
			reportGFLOPS(b, int64(b.N)*flops)
		})
		if haveAVX512 {
			b.Run(cs.name+"/kernels-avx2", func(b *testing.B) {
				haveAVX512 = false
				defer func() { haveAVX512 = true }()
				for b.Loop() {
					gemm(cs.ta, cs.tb, 1, cs.a, cs.b, 1, c)
				}
				reportGFLOPS(b, int64(b.N)*flops)
			})
		}
	}
}

// BenchmarkECCSegment is the backward work of 32 steps through a stack
// of four ECC layers of width 16 over a 411-node random graph (the size
// of a MARL pod's inner graph at k = 20), each step changing one to
// three node rows of the last: "per-step" an incremental pass recorded
// on a tape (ECCStack.Record) and a backward pass per step, as the MARL
// learner ran them before ECCSegment;
// "segment" one ECCSegment of the 32 steps. ns/step is per step.
func BenchmarkECCSegment(b *testing.B) {
	const nodes, f, steps = 411, 3, 32
	rng := rand.New(rand.NewPCG(5, 0))
	var src, dst []int
	for u := 1; u < nodes; u++ { // a tree, as sparse as a pod's
		w := rng.IntN(u)
		src, dst = append(src, w, u), append(dst, u, w)
	}
	g, err := NewGraph(nodes, src, dst)
	if err != nil {
		b.Fatal(err)
	}
	ps := NewParams()
	dims := []int{13, 16, 16, 16, 16}
	var layers []*ECC
	for i := 0; i+1 < len(dims); i++ {
		layers = append(layers, NewECC(ps, fmt.Sprintf("l%d", i), dims[i], f, dims[i+1], rng))
	}
	x := make([]float64, nodes*dims[0])
	for i := range x {
		x[i] = rng.Float64()
	}
	ef := make([]float64, g.Edges()*f)
	for i := range ef {
		ef[i] = rng.Float64()
	}
	xs := make([][]float64, steps)
	for st := range xs {
		for k := 0; k < 1+rng.IntN(3); k++ {
			x[rng.IntN(nodes)*dims[0]] = rng.Float64()
		}
		xs[st] = append([]float64(nil), x...)
	}
	up := make([]float64, nodes*dims[len(dims)-1])
	for i := range up {
		up[i] = rng.NormFloat64()
	}
	var tp Tape
	loss := func(h *Node) *Node { return tp.Sum(tp.Mul(h, tp.View(h.Rows, h.Cols, up))) }
	b.Run("per-step", func(b *testing.B) {
		c := NewECCStack(layers, g)
		for b.Loop() {
			c.Invalidate() // the parameters moved since the last segment
			for st := range xs {
				tp.Reset()
				h := c.Record(&tp, tp.View(nodes, dims[0], xs[st]), tp.View(g.Edges(), f, ef))
				tp.Backward(loss(h))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
	})
	b.Run("segment", func(b *testing.B) {
		s := NewECCSegment(layers, g)
		for b.Loop() {
			for st := range xs {
				s.Add(xs[st], ef)
			}
			s.Forward()
			for st := range xs {
				tp.Reset()
				tp.Backward(loss(s.Output(st)))
				s.Accumulate()
			}
			s.Backward()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*steps), "ns/step")
	})
}

// BenchmarkMessages is the message kernels at the MARL stacks' shapes
// (f+1 = 4; d = 16, the inner stack, and 32, the inter-scheduler one):
// "spread" a source row's transposed messages over 100 edges (a core
// switch's degree in the inter graph at k = 20), "aggregate" a
// destination row's messages over as many, each on the AVX2 kernel and,
// where the machine has AVX-512F, on the wider one.
func BenchmarkMessages(b *testing.B) {
	if !haveFMA {
		b.Skip("no AVX2 and FMA here")
	}
	const nodes, edges, f = 200, 100, 3
	rng := rand.New(rand.NewPCG(6, 0))
	src, dst := make([]int, edges), make([]int, edges)
	list := make([]int, edges)
	for e := range src {
		src[e], dst[e], list[e] = rng.IntN(nodes), rng.IntN(nodes), e
	}
	g, err := NewGraph(nodes, src, dst)
	if err != nil {
		b.Fatal(err)
	}
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	coef := vec(edges * (f + 1))
	defer func(v bool) { haveAVX512 = v }(haveAVX512)
	avx512 := haveAVX512
	for _, d := range []int{16, 32} {
		gr, y, dy, o := vec(nodes*d), vec(nodes*(f+1)*d), vec((f+1)*d), vec(d)
		for _, wide := range []bool{false, true} {
			if wide && !avx512 {
				continue
			}
			name := map[bool]string{false: "avx2", true: "avx512"}[wide]
			b.Run(fmt.Sprintf("spread/d=%d/%s", d, name), func(b *testing.B) {
				haveAVX512 = wide
				for b.Loop() {
					spread(dy, coef, gr, d, list, g, f)
				}
			})
			b.Run(fmt.Sprintf("aggregate/d=%d/%s", d, name), func(b *testing.B) {
				haveAVX512 = wide
				for b.Loop() {
					aggregate(o, coef, y, (f+1)*d, list, g, f)
				}
			})
		}
	}
}

// BenchmarkDeferredProducts back-propagates 256 items one at a time with
// DeferGrad, each item a MARL learner step's products with few rows (a
// lone state row through a 96 → 128 → 1 MLP, 20 candidate rows through
// a 96 → 128 → 1 scorer), its parameter gradients per pass (per-pass)
// or deferred (deferred: deferRows and the parameters' transposes).
func BenchmarkDeferredProducts(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	ps := NewParams()
	s0, s1 := NewLinear(ps, "s0", 96, 128, He, rng), NewLinear(ps, "s1", 128, 1, Glorot, rng)
	c0, c1 := NewLinear(ps, "c0", 96, 128, He, rng), NewLinear(ps, "c1", 128, 1, Glorot, rng)
	const items, cands = 256, 20
	x := make([]float64, items*(1+cands)*96)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for _, on := range []bool{false, true} {
		name := map[bool]string{false: "per-pass", true: "deferred"}[on]
		b.Run(name, func(b *testing.B) {
			defer func(v bool) { deferProducts = v }(deferProducts)
			deferProducts = on
			var tp Tape
			tp.DeferGrad(true)
			for range b.N {
				for it := 0; it < items; it++ {
					xi := x[it*(1+cands)*96:]
					tp.Reset()
					s := s1.Forward(&tp, tp.ReLU(s0.Forward(&tp, tp.Const(1, 96, xi[:96]))))
					c := c1.Forward(&tp, tp.ReLU(c0.Forward(&tp, tp.Const(cands, 96, xi[96:(1+cands)*96]))))
					tp.Backward(tp.Add(tp.Sum(s), tp.Sum(c)))
				}
				tp.FlushGrad()
			}
		})
	}
}

// BenchmarkEdgeConvRows is the MARL inter-scheduler stack's restricted
// last layer at k = 20 on a tape, forward and backward: 20 scheduler
// rows, each with an edge from every one of 100 switches and back, d =
// 32, three edge features; the states need a gradient, the edge
// features none.
func BenchmarkEdgeConvRows(b *testing.B) {
	const parts, switches, d, f = 20, 100, 32, 3
	nodes := parts + switches
	var src, dst []int
	for u := 0; u < parts; u++ {
		for s := parts; s < nodes; s++ {
			src, dst = append(src, s, u), append(dst, u, s)
		}
	}
	g, err := NewGraph(nodes, src, dst)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	ps := NewParams()
	h := ps.New("h", nodes, d)
	w, c := ps.New("w", f, d*d), ps.New("c", 1, d*d)
	for _, p := range []*Node{h, w, c} {
		for i := range p.Data {
			p.Data[i] = rng.NormFloat64()
		}
	}
	ef := randSparse(g.Edges()*f, rng)
	rows := make([]int, parts)
	for i := range rows {
		rows[i] = i
	}
	var tp Tape
	for b.Loop() {
		tp.Reset()
		y := tp.EdgeConvRows(h, tp.Const(g.Edges(), f, ef), w, c, g, rows)
		tp.Backward(tp.Sum(y))
	}
}
