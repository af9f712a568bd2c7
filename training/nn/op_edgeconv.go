package nn

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// edgeConvOp is the neighbourhood aggregation of an edge-conditioned
// convolution (Simonovsky & Komodakis; DESIGN.md §5 MARL):
//
//	Θ_e = reshape_{d×d}(E_e W + c),  h_N(u) = mean over edges e = (w→u) of Θ_e h_w,
//
// with node states H (n×d), edge features E (m×f), W (f×d²) and c (1×d²).
// Nodes without incoming edges get 0.
//
// Building every Θ_e would cost m·d²·f and m·d² memory. Instead, writing
// M_k for row k of W viewed as a d×d matrix (and M_f for c),
// Θ_e h_w = Σ_k E_ek M_k h_w + M_f h_w, so the op computes the f+1
// products Y_k = H M_kᵀ once per node and then combines rows of Y per
// edge. Backward runs the same in reverse:
//
//	dY_k[w] += E_ek·g_e,  dE_ek = ⟨g_e, Y_k[w]⟩,  g_e = dh_N(u)/deg(u),
//	dH += Σ_k dY_k M_k,  dM_k += dY_kᵀ H.
//
// With Ms = [M_0; …; M_f] stacked ((f+1)d×d) and Y = [Y_0 | … | Y_f], those
// are three products, Y = H Msᵀ, dH += dY Ms and dMs = dYᵀ H, in place of
// 3(f+1) small ones; the first two are large enough for gonum to run on
// several cores. aux holds Y; aux2 holds Ms, Msᵀ, dY and dMs.
type edgeConvOp struct{}

// EdgeConv records the edge-conditioned aggregation h_N of node states h
// (n×d) over g, with edge features ef (m×f, one row per edge), the filter
// network's weights w (f×d²) and bias c (1×d²). The result is n×d; add the
// layer's bias and apply the update W[h, h_N] with ordinary ops (the ECC
// module does). The tape keeps g until the next Reset.
func (t *Tape) EdgeConv(h, ef, w, c *Node, g *Graph) *Node {
	d, f := h.Cols, ef.Cols
	if h.Rows != g.Nodes || ef.Rows != g.Edges() || w.Rows != f || w.Cols != d*d || c.Rows != 1 || c.Cols != d*d {
		panic(fmt.Sprintf("nn: EdgeConv of states %dx%d, edge features %dx%d, weights %dx%d, bias %dx%d over %d nodes and %d edges",
			h.Rows, h.Cols, ef.Rows, ef.Cols, w.Rows, w.Cols, c.Rows, c.Cols, g.Nodes, g.Edges()))
	}
	n := t.node(edgeConvOp{}, h.Rows, d, h, ef, w, c)
	n.graph = g
	nodes, yw := h.Rows, (f+1)*d
	n.aux = resize(n.aux, nodes*yw)
	y := n.aux
	ms, mt, _, _ := edgeConvScratch(n, nodes, d, f)
	copy(ms, w.Data)
	copy(ms[f*d*d:], c.Data)
	transposeInto(mt, general(yw, d, d, ms))
	t.gemm(false, false, 1, general(nodes, d, d, h.Data), general(d, yw, yw, mt), 0, general(nodes, yw, yw, y))
	clear(n.Data)
	var cb [8]float64
	coef := cb[:0]
	for e, src := range g.Src {
		u := g.Dst[e]
		coef = messageCoefs(coef, g.invDeg[u], ef.Data, e, f)
		addMessage(n.Data[u*d:(u+1)*d], coef, y[src*yw:(src+1)*yw])
	}
	return n
}

// edgeConvFrom records EdgeConv(h, ef, w, c, g) whose products Y =
// H·Msᵀ, result and messages' coefficients (f+1 per edge, as
// messageCoefs gives them), computed elsewhere with the same kernels
// (ECCStack), are y, agg and coef; it fills the scratch the backward pass
// reads. coef is read, not copied, by the backward pass: it must hold
// until then.
func (t *Tape) edgeConvFrom(h, ef, w, c *Node, g *Graph, y, agg, coef []float64) *Node {
	d, f := h.Cols, ef.Cols
	if h.Rows != g.Nodes || ef.Rows != g.Edges() || w.Rows != f || w.Cols != d*d || c.Rows != 1 || c.Cols != d*d || len(y) != h.Rows*(f+1)*d || len(agg) != h.Rows*d {
		panic(fmt.Sprintf("nn: EdgeConv of states %dx%d, edge features %dx%d, weights %dx%d, bias %dx%d over %d nodes and %d edges, given %d products and %d values",
			h.Rows, h.Cols, ef.Rows, ef.Cols, w.Rows, w.Cols, c.Rows, c.Cols, g.Nodes, g.Edges(), len(y), len(agg)))
	}
	n := t.node(edgeConvOp{}, h.Rows, d, h, ef, w, c)
	n.graph = g
	if ef.needGrad { // else the backward pass does not read Y
		n.aux = resize(n.aux, len(y))
		copy(n.aux, y)
	}
	ms, _, _, _ := edgeConvScratch(n, h.Rows, d, f)
	copy(ms, w.Data)
	copy(ms[f*d*d:], c.Data)
	copy(n.Data, agg)
	n.coef = coef
	return n
}

// edgeConvScratch sizes n.aux2 and splits it into Ms ((f+1)d×d), its
// transpose, dY (nodes×(f+1)d) and dMs ((f+1)d×d).
func edgeConvScratch(n *Node, nodes, d, f int) (ms, mt, dy, dms []float64) {
	m := (f + 1) * d * d
	n.aux2 = resize(n.aux2, 3*m+nodes*(f+1)*d)
	s := n.aux2
	return s[:m], s[m : 2*m], s[2*m : len(s)-m], s[len(s)-m:]
}

func (edgeConvOp) backward(t *Tape, n *Node) {
	h, ef, w, c := n.in[0], n.in[1], n.in[2], n.in[3]
	g := n.graph
	d, f, nodes := n.Cols, ef.Cols, n.Rows
	yw := (f + 1) * d
	y := n.aux
	ms, _, dy, dms := edgeConvScratch(n, nodes, d, f)
	needY := h.needGrad || w.needGrad || c.needGrad
	// Edges into a node whose gradient is 0 add nothing (+0s): skip
	// them. A stack's last layer read at a few rows (the MARL
	// inter-scheduler stack's scheduler rows) has most of those.
	t.live = slices.Grow(t.live[:0], nodes)[:nodes]
	for u := range t.live {
		t.live[u] = !allZero(n.Grad[u*d : (u+1)*d])
	}
	if ef.needGrad {
		for e, src := range g.Src {
			u := g.Dst[e]
			if !t.live[u] {
				continue
			}
			s, gu, yr := g.invDeg[u], n.Grad[u*d:(u+1)*d], y[src*yw:(src+1)*yw]
			for k := 0; k < f; k++ {
				ef.Grad[e*f+k] += s * floats.Dot(gu, yr[k*d:(k+1)*d])
			}
		}
	}
	lo, hi := 0, 0 // the rows of dH that are read
	if h.needGrad {
		lo, hi = gradRows(h)
	}
	if needY {
		coefs := n.coef
		if coefs == nil {
			t.coefs = slices.Grow(t.coefs[:0], g.Edges()*(f+1))[:g.Edges()*(f+1)]
			for e := range g.Src {
				if u := g.Dst[e]; t.live[u] {
					messageCoefs(t.coefs[e*(f+1):(e+1)*(f+1)], g.invDeg[u], ef.Data, e, f)
				}
			}
			coefs = t.coefs
		}
		// dY source by source, each row's terms in edge order: the
		// chains of a pass over the edges (spread). Only the rows that
		// are read: dH's rows of gradRows and, for dMs, the rows whose
		// state is not all zero (dMs skips the others, below). The
		// MARL inter-scheduler stack's first layer reads its acting
		// scheduler's row and the schedulers' rows, not the switches'.
		// The other rows of dy are neither written nor read.
		for src := 0; src < nodes; src++ {
			if (src < lo || src >= hi) && (!(w.needGrad || c.needGrad) || allZero(h.Data[src*d:(src+1)*d])) {
				continue
			}
			clear(dy[src*yw : (src+1)*yw])
			t.elist = t.elist[:0]
			for _, e := range g.out[g.outStart[src]:g.outStart[src+1]] {
				if t.live[g.Dst[e]] {
					t.elist = append(t.elist, e)
				}
			}
			spread(dy[src*yw:(src+1)*yw], coefs, n.Grad, d, t.elist, g, f)
		}
	}
	if !needY {
		return
	}
	dyg := general(nodes, yw, yw, dy)
	if h.needGrad {
		// Only the rows of dH whose gradient is read (gradRows): every
		// element is a chain of its own (gemm), so fewer rows change none.
		t.gemm(false, false, 1, general(hi-lo, yw, yw, dy[lo*yw:]), general(yw, d, d, ms), 1, general(hi-lo, d, d, h.Grad[lo*d:]))
	}
	if w.needGrad || c.needGrad {
		// dMs = dYᵀH: a row of dY or of H that is all zero adds +0
		// terms only (every chain starts at +0 and never holds −0), so
		// the product runs over the other rows, gathered. The MARL
		// inter-scheduler stack's first layer has zero states at its
		// switches, most of its rows.
		t.keep = t.keep[:0]
		for u := 0; u < nodes; u++ {
			if !allZero(h.Data[u*d:(u+1)*d]) && !allZero(dy[u*yw:(u+1)*yw]) {
				t.keep = append(t.keep, u)
			}
		}
		hg := general(nodes, d, d, h.Data)
		if r := len(t.keep); r < nodes {
			t.dyk, t.hk = resize(t.dyk, r*yw), resize(t.hk, r*d)
			for i, u := range t.keep {
				copy(t.dyk[i*yw:(i+1)*yw], dy[u*yw:(u+1)*yw])
				copy(t.hk[i*d:(i+1)*d], h.Data[u*d:(u+1)*d])
			}
			dyg, hg = general(r, yw, yw, t.dyk), general(r, d, d, t.hk)
		}
		if t.defer_ {
			// Summed over this pass's rows after those of the earlier
			// passes since the last FlushGrad: one batched pass's order.
			t.gemm(true, false, 1, dyg, hg, 1, general(yw, d, d, t.stage(n.tapeIdx, yw*d, [2]*Node{w, c})))
			return
		}
		t.gemm(true, false, 1, dyg, hg, 0, general(yw, d, d, dms))
		if w.needGrad {
			floats.Add(w.Grad, dms[:f*d*d])
		}
		if c.needGrad {
			floats.Add(c.Grad, dms[f*d*d:])
		}
	}
}
