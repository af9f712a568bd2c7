package nn

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// The edge-conditioned convolution spends most of its element-wise time
// on rows of d = 16 values: per edge, f+1 updates o += c_k·y_k of one
// destination row. These loops do all f+1 updates in one pass over the
// row, each a fused multiply-add (math.FMA, or the AVX2 kernels for four
// coefficients and d a multiple of 4: the same bits).

// addMessage sets o[j] = fma(c[k], y[k·d+j], o[j]) for k = 0, 1, … in
// turn (len(c) terms; len(o) = d).
func addMessage(o, c, y []float64) {
	d := len(o)
	if len(c) == 4 && haveFMA && d%4 == 0 && d > 0 {
		_ = y[4*d-1]
		addMessage4y(&o[0], &c[0], &y[0], d)
		return
	}
	for k, ck := range c {
		yk := y[k*d : (k+1)*d : (k+1)*d]
		for j := range o {
			o[j] = math.FMA(ck, yk[j], o[j])
		}
	}
}

// aggregate adds into o (len d) the messages of edges of g in turn, as
// addMessage(o, coef[e·(f+1):(e+1)·(f+1)], y[s·yw:(s+1)·yw]) would for
// each edge e from node s = g.Src[e]: a node's aggregation. For f+1 = 4
// and d = 16 or 32 (the MARL stacks' widths) the kernel keeps o in
// registers across the edges rather than loading and storing it at every
// message, whose chains then waited on memory: the same chains, the same
// bits. edges must be edges of g (the kernel reads without bounds checks:
// coef and y must hold every edge's and every node's rows).
func aggregate(o, coef, y []float64, yw int, edges []int, g *Graph, f int) {
	d := len(o)
	if n := len(edges); n > 0 && f == 3 && haveFMA && (d == 16 || d == 32) && yw == 4*d {
		if len(coef) < 4*g.Edges() || len(y) < g.Nodes*yw {
			panic(fmt.Sprintf("nn: aggregate over %d edges and %d nodes with %d coefficients and %d products", g.Edges(), g.Nodes, len(coef), len(y)))
		}
		aggregate4y(&o[0], d, &coef[0], &y[0], yw, &edges[0], &g.Src[0], n)
		return
	}
	for _, e := range edges {
		s := g.Src[e]
		addMessage(o, coef[e*(f+1):(e+1)*(f+1)], y[s*yw:(s+1)*yw])
	}
}

// aggregateFrom adds into o (len d) the messages of coefficients
// coef[i·(f+1):(i+1)·(f+1)] from source rows srcs[i] of y (rows of yw
// values) for i = 0, 1, … in turn, as addMessage would one after the
// other: a node's aggregation whose sources and coefficients are given
// rather than read from a graph (ECCSegment's row versions). seq is
// scratch, reused when large enough, and returned.
func aggregateFrom(o, coef, y []float64, yw int, srcs []int, f int, seq []int) []int {
	d, n := len(o), len(srcs)
	if n > 0 && f == 3 && haveFMA && (d == 16 || d == 32) && yw == 4*d && len(coef) >= 4*n {
		rows := len(y) / yw
		for _, s := range srcs {
			if s < 0 || s >= rows {
				panic(fmt.Sprintf("nn: aggregateFrom: source row %d of %d", s, rows))
			}
		}
		for len(seq) < n {
			seq = append(seq, len(seq))
		}
		aggregate4y(&o[0], d, &coef[0], &y[0], yw, &seq[0], &srcs[0], n)
		return seq
	}
	for i, s := range srcs {
		addMessage(o, coef[i*(f+1):(i+1)*(f+1)], y[s*yw:(s+1)*yw])
	}
	return seq
}

// aggregateRows sets row u of agg (rows of d values) to node u's
// aggregation, as clearing it and calling aggregate(row, coef, y, yw,
// in[u], g, f) would, for each u of rows. Where the machine has
// AVX-512F it runs the rows four (d = 16) or two (d = 32) at a time in
// lock step over the edges they all have, then each row's remaining
// edges alone: every row's messages are added in its own edge order, so
// the bits are aggregate's. scratch holds the rows by degree (reused
// when large enough) and is returned.
func aggregateRows(agg []float64, d int, coef, y []float64, yw int, rows []int, in [][]int, g *Graph, f int, scratch []int) []int {
	group := 0 // rows a call: none without the kernels
	if haveAVX512 && f == 3 && yw == 4*d && len(coef) >= 4*g.Edges() && len(y) >= g.Nodes*yw {
		switch d {
		case 16:
			group = 4
		case 32:
			group = 2
		}
	}
	if group == 0 || len(rows) < group {
		for _, u := range rows {
			o := agg[u*d : (u+1)*d]
			clear(o)
			aggregate(o, coef, y, yw, in[u], g, f)
		}
		return scratch
	}
	// Rows of equal degree go together: the lock step covers all their
	// edges. Which rows share a call changes no row's bits.
	scratch = append(scratch[:0], rows...)
	slices.SortStableFunc(scratch, func(a, b int) int { return cmp.Compare(len(in[a]), len(in[b])) })
	var os [4]*float64
	var es [4]*int
	i := 0
	for ; i+group <= len(scratch); i += group {
		us := scratch[i : i+group]
		n := len(in[us[0]]) // the least: ascending degrees
		for r, u := range us {
			o := agg[u*d : (u+1)*d]
			clear(o)
			os[r] = &o[0]
			if n > 0 {
				es[r] = &in[u][0]
			}
		}
		if n > 0 {
			if group == 4 {
				aggregate4x16z(&os, &coef[0], &y[0], yw, &es, &g.Src[0], n)
			} else {
				aggregate2x32z((*[2]*float64)(os[:2]), &coef[0], &y[0], yw, (*[2]*int)(es[:2]), &g.Src[0], n)
			}
		}
		for _, u := range us {
			if rest := in[u][n:]; len(rest) > 0 {
				aggregate(agg[u*d:(u+1)*d], coef, y, yw, rest, g, f)
			}
		}
	}
	for _, u := range scratch[i:] {
		o := agg[u*d : (u+1)*d]
		clear(o)
		aggregate(o, coef, y, yw, in[u], g, f)
	}
	return scratch
}

// spread adds into dy (one source's row of (f+1)·d values) the
// transposed messages of edges of g in turn, as spreadMessage(dy,
// coef[e·(f+1):(e+1)·(f+1)], gr[u·d:(u+1)·d]) would for each edge e into
// node u = g.Dst[e]: EdgeConv's backward pass, source by source. For f+1
// = 4 and d = 16 or 32 the kernel keeps dy (a quarter of it without
// AVX-512F) in registers across the edges rather than loading and
// storing all of it at every message: the same chains, the same bits.
// edges must be edges of g (the kernel reads without bounds checks: coef
// and gr must hold every edge's and every node's rows).
func spread(dy, coef, gr []float64, d int, edges []int, g *Graph, f int) {
	if n := len(edges); n > 0 && f == 3 && haveFMA && (d == 16 || d == 32) && len(dy) == 4*d {
		if len(coef) < 4*g.Edges() || len(gr) < g.Nodes*d {
			panic(fmt.Sprintf("nn: spread over %d edges and %d nodes with %d coefficients and %d gradients", g.Edges(), g.Nodes, len(coef), len(gr)))
		}
		spread4(&dy[0], d, &coef[0], &gr[0], &edges[0], &g.Dst[0], n)
		return
	}
	for _, e := range edges {
		u := g.Dst[e]
		spreadMessage(dy, coef[e*(f+1):(e+1)*(f+1)], gr[u*d:(u+1)*d])
	}
}

// spreadMessage sets dy[k·d+j] = fma(c[k], g[j], dy[k·d+j]) for every k
// (len(g) = d): the transpose of addMessage, as EdgeConv's backward pass
// needs it.
func spreadMessage(dy, c, g []float64) {
	d := len(g)
	if len(c) == 4 && haveFMA && d%4 == 0 && d > 0 {
		_ = dy[4*d-1]
		spreadMessage4y(&dy[0], &c[0], &g[0], d)
		return
	}
	for k, ck := range c {
		dk := dy[k*d : (k+1)*d : (k+1)*d]
		for j, v := range g {
			dk[j] = math.FMA(ck, v, dk[j])
		}
	}
}

// messageCoefs fills c (len f+1) with the coefficients of edge e's
// message: s·E_ek for each edge feature k, then s for the filter's bias.
func messageCoefs(c []float64, s float64, ef []float64, e, f int) []float64 {
	if cap(c) < f+1 {
		c = make([]float64, f+1)
	}
	c = c[:f+1]
	for k := 0; k < f; k++ {
		c[k] = s * ef[e*f+k]
	}
	c[f] = s
	return c
}

// spread4 runs spread4z where the machine has AVX-512F, else spread4y:
// the same chains, so the same bits, by either.
func spread4(dy *float64, d int, coef, gr *float64, edges, idx *int, n int) {
	if haveAVX512 {
		spread4z(dy, d, coef, gr, edges, idx, n)
		return
	}
	spread4y(dy, d, coef, gr, edges, idx, n)
}
