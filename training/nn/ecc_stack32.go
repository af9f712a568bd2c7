package nn

import (
	"bytes"
	"fmt"
	"unsafe"
)

// ECCStack32 is ECCStack's incremental inference pass in single
// precision: the layers' parameters are rounded to float32 when the pass
// is (re)built, and every product and message is a chain of float32
// fused multiply-adds (Gemm32, aggregate32). Its values differ from
// ECCStack's in the last bits of a float32 (the tests hold them to a
// relative 1e-4 of the float64 pass); between its own passes it keeps
// ECCStack's guarantee: an incremental pass returns, to the bit, what a
// full pass of the same inputs returns.
//
// It is a step of the float32 path for the MARL network, which does not
// use it yet: it has no Only, Record or Retarget. Call Invalidate after
// the parameters change. Not safe for concurrent use.
type ECCStack32 struct {
	eccGraph

	valid       bool
	x, ef       []float32   // the last inputs, rounded, x with every node's row
	rx          int         // the rows of x the last Forward was given
	y, agg      [][]float32 // per layer: H·Msᵀ (nodes × (f+1)d) and the aggregation (nodes × d)
	h           [][]float32 // per layer: the output (nodes × out)
	mt, w, b    [][]float32 // per layer: Msᵀ (d × (f+1)d), W (2d × out) and b (d), rounded
	coef        []float32   // each edge's message coefficients (f+1)
	dirty, next []bool
	edgeDst     []bool
	rows        []int
	buf, out    []float32
	xr, efr     []float32 // Forward's inputs rounded
	wide        []float64 // Forward's output widened
	wideOK      bool      // wide holds the last pass's output (no Forward32 since)
	// Rows is the number of node rows recomputed over all layers since
	// the stack was made (a full pass counts nodes × layers).
	Rows int
}

// NewECCStack32 returns the single-precision cache of layers over g; its
// first Forward is a full pass.
func NewECCStack32(layers []*ECC, g *Graph) *ECCStack32 {
	s := &ECCStack32{eccGraph: eccGraph{layers: layers}}
	s.link(g)
	s.dirty, s.next, s.edgeDst = make([]bool, g.Nodes), make([]bool, g.Nodes), make([]bool, g.Nodes)
	return s
}

// Invalidate forgets the cached pass (the parameters moved).
func (s *ECCStack32) Invalidate() { s.valid = false }

// Layer returns layer i's output of the last Forward (nodes × its out
// width), owned by the stack.
func (s *ECCStack32) Layer(i int) []float32 { return s.h[i] }

// round32 returns x rounded to float32 in dst (reused when large enough).
func round32(dst []float32, x []float64) []float32 {
	dst = resize32(dst, len(x))
	for i, v := range x {
		dst[i] = float32(v)
	}
	return dst
}

// resize32 returns s with length n, reusing its storage when it can.
func resize32(s []float32, n int) []float32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float32, n)
}

// sameBits32 reports whether a and b hold the same bit patterns
// (len(b) ≥ len(a)).
func sameBits32(a, b []float32) bool {
	if len(a) == 0 {
		return true
	}
	b = b[:len(a)]
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 4*len(a)), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 4*len(b)))
}

// Forward is Forward32 with the output widened to float64 (exactly: the
// float32 values), for a float64 network that reads it: only the rows
// that changed are widened again. The result belongs to the stack and
// changes on its next Forward.
func (s *ECCStack32) Forward(x, ef []float64) []float64 {
	full := !s.valid || !s.wideOK || len(s.layers) == 0
	out := s.Forward32(x, ef)
	s.wide, s.wideOK = resize(s.wide, len(out)), true
	if full {
		for i, v := range out {
			s.wide[i] = float64(v)
		}
		return s.wide
	}
	w := len(out) / s.g.Nodes
	for u, c := range s.dirty { // the last layer's changed rows
		if c {
			for j, v := range out[u*w : (u+1)*w] {
				s.wide[u*w+j] = float64(v)
			}
		}
	}
	return s.wide
}

// Forward32 returns the last layer's output (nodes × out, row-major) for
// node states x and edge features ef (edges × f), rounded to float32
// first: ECCStack.Forward's contract otherwise (x may hold only the
// graph's first rows; the others are zero). The result belongs to the
// stack and changes on its next Forward.
func (s *ECCStack32) Forward32(x, ef []float64) []float32 {
	n, m := s.g.Nodes, s.g.Edges()
	if len(s.layers) == 0 {
		s.xr = round32(s.xr, x)
		return s.xr
	}
	f := s.layers[0].FilterW.Rows
	d0 := s.layers[0].W.Rows / 2
	if len(x) > n*d0 || len(x)%d0 != 0 || len(ef) != m*f {
		panic(fmt.Sprintf("nn: ECCStack32.Forward of %d states and %d edge features for %d nodes of width %d and %d edges of %d", len(x), len(ef), n, d0, m, f))
	}
	s.wideOK = false
	s.xr, s.efr = round32(s.xr, x), round32(s.efr, ef)
	xr, efr := s.xr, s.efr
	full := !s.valid
	if full {
		if len(s.y) != len(s.layers) {
			s.y, s.agg, s.h, s.mt, s.w, s.b = nil, nil, nil, nil, nil, nil
			for _, l := range s.layers {
				d, out := l.W.Rows/2, l.W.Cols
				yw := (f + 1) * d
				s.mt = append(s.mt, make([]float32, d*yw))
				s.w = append(s.w, make([]float32, 2*d*out))
				s.b = append(s.b, make([]float32, d))
				s.y = append(s.y, make([]float32, n*yw))
				s.agg = append(s.agg, make([]float32, n*d))
				s.h = append(s.h, make([]float32, n*out))
			}
		}
		for li, l := range s.layers {
			// Msᵀ: Ms stacks the filter's f blocks of d×d, then its
			// bias block, as yw × d; its transpose is d × yw.
			d := l.W.Rows / 2
			yw := (f + 1) * d
			for r := 0; r < yw; r++ {
				var row []float64
				if r < f*d {
					row = l.FilterW.Data[r*d : (r+1)*d]
				} else {
					row = l.FilterB.Data[(r-f*d)*d : (r-f*d+1)*d]
				}
				for c, v := range row {
					s.mt[li][c*yw+r] = float32(v)
				}
			}
			round32(s.w[li], l.W.Data)
			round32(s.b[li], l.B.Data)
		}
		s.x = resize32(s.x, n*d0)
		clear(s.x)
		s.rx = 0
		s.ef = append(s.ef[:0], efr...)
		s.coef = resize32(s.coef, m*(f+1))
	}
	rx := len(xr) / d0
	// Rows and edges go by blocks, one comparison each: most hold.
	const rowBlock, edgeBlock = 16, 64
	for u := 0; u < n; u++ {
		if lo := u; !full && lo%rowBlock == 0 && lo+rowBlock <= rx && sameBits32(s.x[lo*d0:(lo+rowBlock)*d0], xr[lo*d0:(lo+rowBlock)*d0]) {
			clear(s.dirty[lo : lo+rowBlock])
			u += rowBlock - 1
			continue
		}
		switch {
		case u < rx:
			row := xr[u*d0 : (u+1)*d0]
			s.dirty[u] = full || !sameBits32(s.x[u*d0:(u+1)*d0], row)
			if s.dirty[u] {
				copy(s.x[u*d0:], row)
			}
		case u < s.rx: // given last time, zero now
			s.dirty[u] = true
			clear(s.x[u*d0 : (u+1)*d0])
		default:
			s.dirty[u] = full
		}
	}
	s.rx = rx
	clear(s.edgeDst)
	for e := 0; e < m; e++ {
		if !full && e%edgeBlock == 0 && e+edgeBlock <= m && sameBits32(s.ef[e*f:(e+edgeBlock)*f], efr[e*f:(e+edgeBlock)*f]) {
			e += edgeBlock - 1
			continue
		}
		if !full && sameBits32(s.ef[e*f:(e+1)*f], efr[e*f:(e+1)*f]) {
			continue
		}
		u := s.g.Dst[e]
		s.edgeDst[u] = true
		// The coefficients are s·E_ek and s (messageCoefs), rounded
		// once from float64.
		inv := s.g.invDeg[u]
		c := s.coef[e*(f+1) : (e+1)*(f+1)]
		for k := 0; k < f; k++ {
			c[k] = float32(inv * float64(efr[e*f+k]))
		}
		c[f] = float32(inv)
		copy(s.ef[e*f:(e+1)*f], efr[e*f:(e+1)*f])
	}
	hin := s.x
	for li, l := range s.layers {
		d, out := l.W.Rows/2, l.W.Cols
		yw := (f + 1) * d
		y, agg, h := s.y[li], s.agg[li], s.h[li]
		// H·Msᵀ for the changed input rows.
		s.rows = s.rows[:0]
		for u, c := range s.dirty {
			if c {
				s.rows = append(s.rows, u)
			}
		}
		if r := len(s.rows); r > 0 {
			s.buf = resize32(s.buf, r*d)
			for i, u := range s.rows {
				copy(s.buf[i*d:(i+1)*d], hin[u*d:(u+1)*d])
			}
			s.out = resize32(s.out, r*yw)
			Gemm32(false, false, Matrix32{r, d, d, s.buf}, Matrix32{d, yw, yw, s.mt[li]}, 0, Matrix32{r, yw, yw, s.out})
			for i, u := range s.rows {
				copy(y[u*yw:(u+1)*yw], s.out[i*yw:(i+1)*yw])
			}
		}
		// Nodes whose aggregation changes: a changed source or edge.
		for u := range s.next {
			s.next[u] = s.dirty[u] || s.edgeDst[u]
		}
		for u, c := range s.dirty {
			if c {
				for _, v := range s.succ[u] {
					s.next[v] = true
				}
			}
		}
		s.rows = s.rows[:0]
		for u, c := range s.next {
			if c {
				s.rows = append(s.rows, u)
				o := agg[u*d : (u+1)*d]
				clear(o)
				aggregate32(o, s.coef, y, yw, s.in[u], s.g, f)
			}
		}
		// relu([h, agg + b]·W) for those nodes.
		r := len(s.rows)
		s.buf = resize32(s.buf, r*2*d)
		for i, u := range s.rows {
			cat := s.buf[i*2*d : (i+1)*2*d]
			copy(cat[:d], hin[u*d:(u+1)*d])
			for j, v := range agg[u*d : (u+1)*d] {
				cat[d+j] = v + s.b[li][j]
			}
		}
		s.out = resize32(s.out, r*out)
		if r > 0 {
			Gemm32(false, false, Matrix32{r, 2 * d, 2 * d, s.buf}, Matrix32{2 * d, out, out, s.w[li]}, 0, Matrix32{r, out, out, s.out})
		}
		s.Rows += r
		// Rows whose output did not change (to the bit) stop spreading.
		clear(s.dirty)
		for i, u := range s.rows {
			row, hr := s.out[i*out:(i+1)*out], h[u*out:(u+1)*out]
			for j, v := range row {
				row[j] = max(v, 0)
			}
			if full || !sameBits32(row, hr) {
				copy(hr, row)
				s.dirty[u] = true
			}
		}
		hin = h
	}
	s.valid = true
	return hin
}

// aggregate32 adds into o (len d) the messages of edges of g in turn:
// for each edge e from node s = g.Src[e], o[j] = fma32(coef[e(f+1)+k],
// y[s·yw + k·d + j], o[j]) for k = 0..f. For f+1 = 4 and d = 16 or 32
// the kernel keeps o in registers across the edges, for other d a
// kernel runs each message: the same chains.
func aggregate32(o, coef, y []float32, yw int, edges []int, g *Graph, f int) {
	d := len(o)
	if n := len(edges); n > 0 && f == 3 && haveFMA && (d == 16 || d == 32) && yw == 4*d {
		if len(coef) < 4*g.Edges() || len(y) < g.Nodes*yw {
			panic(fmt.Sprintf("nn: aggregate32 over %d edges and %d nodes with %d coefficients and %d products", g.Edges(), g.Nodes, len(coef), len(y)))
		}
		aggregate4f(&o[0], d, &coef[0], &y[0], yw, &edges[0], &g.Src[0], n)
		return
	}
	for _, e := range edges {
		src := g.Src[e]
		c := coef[e*(f+1) : (e+1)*(f+1)]
		if f == 3 && haveFMA && d > 0 {
			_ = y[src*yw+4*d-1]
			addMessage4f(&o[0], &c[0], &y[src*yw], d)
			continue
		}
		for k, ck := range c {
			yk := y[src*yw+k*d : src*yw+(k+1)*d]
			for j := range o {
				o[j] = fma32(ck, yk[j], o[j])
			}
		}
	}
}

// spread32 adds into dy (one source's row of (f+1)·d values) the
// transposed messages of edges of g in turn: for each edge e into node u
// = g.Dst[e], dy[k·d+j] = fma32(coef[e(f+1)+k], gr[u·d+j], dy[k·d+j]) for
// k = 0..f: spread's float32 form, for a float32 EdgeConv's backward pass
// (not used yet). For f+1 = 4 and d = 16 or 32 the kernel keeps a
// quarter of dy in registers across the edges: the same chains.
func spread32(dy, coef, gr []float32, d int, edges []int, g *Graph, f int) {
	if n := len(edges); n > 0 && f == 3 && haveFMA && (d == 16 || d == 32) && len(dy) == 4*d {
		if len(coef) < 4*g.Edges() || len(gr) < g.Nodes*d {
			panic(fmt.Sprintf("nn: spread32 over %d edges and %d nodes with %d coefficients and %d gradients", g.Edges(), g.Nodes, len(coef), len(gr)))
		}
		spread4f(&dy[0], d, &coef[0], &gr[0], &edges[0], &g.Dst[0], n)
		return
	}
	for _, e := range edges {
		u := g.Dst[e]
		for k, ck := range coef[e*(f+1) : (e+1)*(f+1)] {
			dk := dy[k*d : (k+1)*d]
			for j, v := range gr[u*d : (u+1)*d] {
				dk[j] = fma32(ck, v, dk[j])
			}
		}
	}
}
