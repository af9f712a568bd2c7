package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// edgeConvRowsOp is EdgeConv's aggregation at a few destination rows,
// the messages summed before the filter's product rather than after:
//
//	A_u = [Σ_e s·E_e0 h_w | … | Σ_e s·E_e,f−1 h_w | Σ_e s h_w]  ((f+1)·d values),
//	h_N(u) = A_u·Mc,
//
// over the edges e = (w→u) in edge order, s = 1/deg(u), with Mc the
// (f+1)d×d stack of the filter's blocks transposed (Mc[k·d+j][i] =
// M_k[i][j]). EdgeConv computes Y = H·Msᵀ at every source and combines
// rows of Y per edge: (f+1)d² per source. Here the product is
// (f+1)d² per destination row, so a layer read at r ≪ n rows (the MARL
// inter-scheduler stack's last layer, read at the schedulers' rows) costs
// r products instead of n. The same value as EdgeConv's rows up to
// rounding, not the same bits: the sums run in another order.
//
// Backward: dA_u = g_u·Mcᵀ, dh_w += Σ_k s·E_ek dA_u,k per edge (in the
// rows' order, then edge order), dE_ek = s⟨dA_u,k, h_w⟩ and dM_k = Σ_u
// g_uᵀ A_u,k. aux holds A (r × (f+1)d); aux2 Mc, dA and dMs.
type edgeConvRowsOp struct{}

// EdgeConvRows records rows (destination nodes of g, in that order) of
// EdgeConv(h, ef, w, c, g), aggregating before the product (see
// edgeConvRowsOp): len(rows) × d. The tape keeps rows and g until the
// next Reset.
func (t *Tape) EdgeConvRows(h, ef, w, c *Node, g *Graph, rows []int) *Node {
	d, f := h.Cols, ef.Cols
	checkEdgeConv(h, ef, w, c, g)
	n := t.node(edgeConvRowsOp{}, len(rows), d, h, ef, w, c)
	n.graph, n.ints = g, rows
	yw := (f + 1) * d
	// aux: A, then every edge's message coefficients (those into rows
	// set), which the backward pass reads.
	na := len(rows) * yw
	n.aux = resize(n.aux, na+g.Edges()*(f+1))
	n.coef = n.aux[na:]
	mc, _, _ := edgeConvRowsScratch(n, len(rows), d, f)
	filterStack(mc, w.Data, c.Data, d, f)
	for _, u := range rows {
		if u < 0 || u >= g.Nodes {
			panic(fmt.Sprintf("nn: EdgeConvRows row %d of %d nodes", u, g.Nodes))
		}
		for _, e := range g.inEdges(u) {
			messageCoefs(n.coef[e*(f+1):(e+1)*(f+1)], g.invDeg[u], ef.Data, e, f)
		}
	}
	edgeConvRows(n.Data, n.aux[:na], mc, h.Data, n.coef, g, rows, d, f)
	return n
}

// edgeConvRowsFrom records EdgeConvRows(h, ef, w, c, g, rows) whose
// aggregations A and result, computed elsewhere by edgeConvRows
// (ECCStack), are a and out, with mc the filter's stack filterStack
// made of w and c's values and coef every edge's message coefficients:
// coef is read, not copied, by the backward pass.
func (t *Tape) edgeConvRowsFrom(h, ef, w, c *Node, g *Graph, rows []int, a, out, mc, coef []float64) *Node {
	d, f := h.Cols, ef.Cols
	checkEdgeConv(h, ef, w, c, g)
	if len(a) != len(rows)*(f+1)*d || len(out) != len(rows)*d || len(mc) != (f+1)*d*d || len(coef) < g.Edges()*(f+1) {
		panic(fmt.Sprintf("nn: EdgeConvRows at %d rows given %d sums, %d values, a stack of %d and %d coefficients", len(rows), len(a), len(out), len(mc), len(coef)))
	}
	n := t.node(edgeConvRowsOp{}, len(rows), d, h, ef, w, c)
	n.graph, n.ints, n.coef = g, rows, coef
	n.aux = resize(n.aux, len(a))
	copy(n.aux, a)
	nmc, _, _ := edgeConvRowsScratch(n, len(rows), d, f)
	copy(nmc, mc)
	copy(n.Data, out)
	return n
}

func checkEdgeConv(h, ef, w, c *Node, g *Graph) {
	d, f := h.Cols, ef.Cols
	if h.Rows != g.Nodes || ef.Rows != g.Edges() || w.Rows != f || w.Cols != d*d || c.Rows != 1 || c.Cols != d*d {
		panic(fmt.Sprintf("nn: EdgeConv of states %dx%d, edge features %dx%d, weights %dx%d, bias %dx%d over %d nodes and %d edges",
			h.Rows, h.Cols, ef.Rows, ef.Cols, w.Rows, w.Cols, c.Rows, c.Cols, g.Nodes, g.Edges()))
	}
}

// edgeConvRowsScratch sizes n.aux2 and splits it into Mc ((f+1)d×d), dA
// (rows×(f+1)d) and dMs ((f+1)d×d, Ms's layout).
func edgeConvRowsScratch(n *Node, rows, d, f int) (mc, da, dms []float64) {
	m := (f + 1) * d * d
	n.aux2 = resize(n.aux2, 2*m+rows*(f+1)*d)
	s := n.aux2
	return s[:m], s[m : len(s)-m], s[len(s)-m:]
}

// filterStack writes Mc: Mc[(k·d+j)·d+i] = M_k[i][j], M_k row k of w
// (k < f) or c (k = f) viewed as d×d.
func filterStack(mc, w, c []float64, d, f int) {
	for k := 0; k <= f; k++ {
		mk := c
		if k < f {
			mk = w[k*d*d : (k+1)*d*d]
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				mc[(k*d+j)*d+i] = mk[i*d+j]
			}
		}
	}
}

// edgeConvRows sets, for each row u of rows (row i of a and out), a's
// row to A_u, its messages summed in edge order (one chain of fused
// multiply-adds per element), and out's to A_u·Mc (gemm).
func edgeConvRows(out, a, mc, h, coef []float64, g *Graph, rows []int, d, f int) {
	yw := (f + 1) * d
	for i, u := range rows {
		ai := a[i*yw : (i+1)*yw]
		clear(ai)
		gatherMessages(ai, coef, h, d, g.inEdges(u), g, f)
	}
	gemm(false, false, 1, general(len(rows), yw, yw, a), general(yw, d, d, mc), 0, general(len(rows), d, d, out))
}

// gatherMessages adds into a (one destination's (f+1)·d sums) the
// coefficients of edges of g in turn times their sources' rows of h
// (width d): a[k·d+j] = fma(coef[e·(f+1)+k], h[src·d+j], a[k·d+j]),
// which is spread's chain with the edge's source in place of its
// destination (the same kernel).
func gatherMessages(a, coef, h []float64, d int, edges []int, g *Graph, f int) {
	if n := len(edges); n > 0 && f == 3 && haveFMA && (d == 16 || d == 32) {
		if len(coef) < 4*g.Edges() || len(h) < g.Nodes*d {
			panic(fmt.Sprintf("nn: gatherMessages over %d edges and %d nodes with %d coefficients and %d states", g.Edges(), g.Nodes, len(coef), len(h)))
		}
		spread4(&a[0], d, &coef[0], &h[0], &edges[0], &g.Src[0], n)
		return
	}
	for _, e := range edges {
		s := g.Src[e]
		hs := h[s*d : (s+1)*d]
		for k, ck := range coef[e*(f+1) : (e+1)*(f+1)] {
			ak := a[k*d : (k+1)*d : (k+1)*d]
			for j, v := range hs {
				ak[j] = math.FMA(ck, v, ak[j])
			}
		}
	}
}

func (edgeConvRowsOp) backward(t *Tape, n *Node) {
	h, ef, w, c := n.in[0], n.in[1], n.in[2], n.in[3]
	g, rows := n.graph, n.ints
	d, f, r := n.Cols, ef.Cols, n.Rows
	yw := (f + 1) * d
	a := n.aux
	mc, da, dms := edgeConvRowsScratch(n, r, d, f)
	gn := general(r, d, d, n.Grad)
	if h.needGrad || ef.needGrad {
		t.gemm(false, true, 1, gn, general(yw, d, d, mc), 0, general(r, yw, yw, da))
		for i, u := range rows {
			dai := da[i*yw : (i+1)*yw]
			if allZero(dai) {
				continue
			}
			for _, e := range g.inEdges(u) {
				src := g.Src[e]
				if h.needGrad {
					addMessage(h.Grad[src*d:(src+1)*d], n.coef[e*(f+1):(e+1)*(f+1)], dai)
				}
				if ef.needGrad {
					hs := h.Data[src*d : (src+1)*d]
					for k := 0; k < f; k++ {
						ef.Grad[e*f+k] += g.invDeg[u] * floats.Dot(dai[k*d:(k+1)*d], hs)
					}
				}
			}
		}
	}
	if !w.needGrad && !c.needGrad {
		return
	}
	// dM_k = Gᵀ·A_k, block by block into Ms's layout (w's values, then
	// c's), as EdgeConv's gradient lies.
	dst, beta := dms, 0.0
	if t.defer_ {
		dst, beta = t.stage(n.tapeIdx, yw*d, [2]*Node{w, c}), 1
	}
	for k := 0; k <= f; k++ {
		t.gemm(true, false, 1, gn, general(r, d, yw, a[k*d:]), beta, general(d, d, d, dst[k*d*d:(k+1)*d*d]))
	}
	if t.defer_ {
		return
	}
	if w.needGrad {
		floats.Add(w.Grad, dms[:f*d*d])
	}
	if c.needGrad {
		floats.Add(c.Grad, dms[f*d*d:])
	}
}
