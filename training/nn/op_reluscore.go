package nn

import "fmt"

// reluScoreOp scores candidates with one hidden ReLU layer whose input
// is split into a state half shared by many candidates and a candidate
// half (the MARL actor's scorers):
//
//	A = max(S[rep] + (C + c), 0),  y = A·w + b,
//
// with S (p×h) the state half's pre-activations, rep (m) the state of
// each candidate, C (m×h) the candidate half's before its bias c (1×h;
// none: 0), w (h×1), b (1×1); y is m×1. It is
// ReLU(Add(GatherRows(S, rep), Add(C, c))) followed by
// Add(MatMul(·, w), b), fused, to the bit: the same sums in the same
// order (the product by gemm, the bias added after it, the gradients of
// S's rows and of c in candidate order), without the four m×h
// intermediate nodes and their gradients, which cost more than the
// product (h = 128, m in the hundreds: a decision's candidates).
// Backward:
//
//	dA = dy·wᵀ masked by A > 0,  dC += dA,  dc += Σ_i dA_i,
//	dS[rep_i] += dA_i,  dw += Aᵀ·dy,  db += Σ_i dy_i.
//
// aux holds A, aux2 Aᵀ.
type reluScoreOp struct{}

// ReLUScore records max(s[rep] + (c + cb), 0)·w + b (see reluScoreOp):
// s is p×h, c is m×h with rep[i] < p the row of s for c's row i, cb is
// 1×h or nil (no bias), w is h×1 and b 1×1. The tape keeps rep until the
// next Reset.
func (t *Tape) ReLUScore(s *Node, rep []int, c, cb, w, b *Node) *Node {
	return t.ReLUScoreRows(s, rep, c, nil, nil, cb, w, b)
}

// ReLUScoreRows is ReLUScore with candidate i's row of C at row crows[i]
// of c (nil: row i), for candidates whose rows sit among others
// (ECCSegment.HeadVersions): their gradient goes to those rows. With
// live (nil: all), only the candidates live[i] are scored: the others'
// scores are 0 and take no gradient, for a caller that reads them
// nowhere (a masked softmax's actions left out). The live scores and
// every gradient have the bits of scoring them all, as long as A's
// values are finite (the products leave out terms that are 0 times a
// value of A). The tape keeps crows and live until the next Reset.
func (t *Tape) ReLUScoreRows(s *Node, rep []int, c *Node, crows []int, live []bool, cb, w, b *Node) *Node {
	h := s.Cols
	m := len(rep)
	if crows == nil && c.Rows != m || crows != nil && len(crows) != m || live != nil && len(live) != m {
		panic(fmt.Sprintf("nn: ReLUScore of %d indices and %d candidate rows (%d given, %d live flags)", m, c.Rows, len(crows), len(live)))
	}
	for _, r := range crows {
		if r < 0 || r >= c.Rows {
			panic(fmt.Sprintf("nn: ReLUScore candidate row %d of %d", r, c.Rows))
		}
	}
	if c.Cols != h || w.Rows != h || w.Cols != 1 || b.Rows != 1 || b.Cols != 1 || cb != nil && (cb.Rows != 1 || cb.Cols != h) {
		cbShape := "none"
		if cb != nil {
			cbShape = fmt.Sprintf("%dx%d", cb.Rows, cb.Cols)
		}
		panic(fmt.Sprintf("nn: ReLUScore of states %dx%d, %d indices, candidates %dx%d (bias %s), weights %dx%d and bias %dx%d",
			s.Rows, s.Cols, len(rep), c.Rows, c.Cols, cbShape, w.Rows, w.Cols, b.Rows, b.Cols))
	}
	var n *Node
	var cbias []float64
	if cb != nil {
		n = t.node(reluScoreOp{}, m, 1, s, c, w, b, cb)
		cbias = cb.Data[:h]
	} else {
		n = t.node(reluScoreOp{}, m, 1, s, c, w, b)
	}
	n.ints, n.ints2, n.mask = rep, crows, live
	// The scored candidates, in order: A and Aᵀ hold their rows only.
	n.iaux = n.iaux[:0]
	for i := range m {
		if live == nil || live[i] {
			n.iaux = append(n.iaux, i)
		}
	}
	idx := n.iaux
	ml := len(idx)
	n.aux = resize(n.aux, ml*h)
	n.aux2 = resize(n.aux2, ml*h)
	a, at := n.aux, n.aux2
	// y as the row wᵀ·Aᵀ rather than the column A·w: the same chain for
	// each y_i (its FMAs over A's row i in order), but chains side by
	// side in the vector kernel's lanes instead of one column's scalar
	// chains (fmaGo), which are bound by the FMA's latency. Aᵀ is
	// written a block of eight candidates at a time, while their rows
	// of A are in cache: a cache line of Aᵀ at once, where a row at a
	// time wrote each line eight times, mostly from L2 (4×4 tiles through
	// registers where the kernels run).
	const block = 8
	vec := haveFMA && h%4 == 0 && h > 0 // the kernel's rows: the same bits
	for q0 := 0; q0 < ml; q0 += block {
		q1 := min(q0+block, ml)
		for q := q0; q < q1; q++ {
			i := idx[q]
			r := rep[i]
			if r < 0 || r >= s.Rows {
				panic(fmt.Sprintf("nn: ReLUScore index %d of %d rows", r, s.Rows))
			}
			ci := i
			if crows != nil {
				ci = crows[i]
			}
			sr, cr, ar := s.Data[r*h:(r+1)*h], c.Data[ci*h:(ci+1)*h], a[q*h:(q+1)*h]
			cr, ar = cr[:len(sr)], ar[:len(sr)]
			if vec {
				var cbp *float64
				if cbias != nil {
					cbp = &cbias[0]
				}
				reluSum4y(&ar[0], &sr[0], &cr[0], cbp, h)
				continue
			}
			if cbias != nil {
				cbias := cbias[:len(sr)]
				for j, v := range sr {
					ar[j] = max(v+(cr[j]+cbias[j]), 0)
				}
				continue
			}
			for j, v := range sr {
				ar[j] = max(v+cr[j], 0)
			}
		}
		if q1-q0 == block && vec {
			_ = at[(h-1)*ml+q1-1] // the kernel's last write
			transpose4y(&at[q0], ml, &a[q0*h], h)
			transpose4y(&at[q0+4], ml, &a[(q0+4)*h], h)
			continue
		}
		if q1-q0 == block {
			rows := a[q0*h : q1*h]
			for j := 0; j < h; j++ {
				col := at[j*ml+q0 : j*ml+q0+block : j*ml+q0+block]
				col[0], col[1], col[2], col[3] = rows[j], rows[h+j], rows[2*h+j], rows[3*h+j]
				col[4], col[5], col[6], col[7] = rows[4*h+j], rows[5*h+j], rows[6*h+j], rows[7*h+j]
			}
			continue
		}
		for q := q0; q < q1; q++ {
			for j, v := range a[q*h : (q+1)*h] {
				at[j*ml+q] = v
			}
		}
	}
	bias := b.Data[0]
	if ml == m {
		t.gemm(false, false, 1, general(1, h, h, w.Data), general(h, m, m, at), 0, general(1, m, m, n.Data))
		for i, v := range n.Data {
			n.Data[i] = v + bias
		}
		return n
	}
	t.scores = resize(t.scores, ml)
	ys := t.scores
	t.gemm(false, false, 1, general(1, h, h, w.Data), general(h, ml, ml, at), 0, general(1, ml, ml, ys))
	clear(n.Data)
	for q, i := range idx {
		n.Data[i] = ys[q] + bias
	}
	return n
}

func (reluScoreOp) backward(t *Tape, n *Node) {
	s, c, w, b := n.in[0], n.in[1], n.in[2], n.in[3]
	m, h := n.Rows, s.Cols
	idx := n.iaux
	ml := len(idx)
	a, g := n.aux[:ml*h], n.Grad[:m]
	if b.needGrad {
		for _, v := range g {
			b.Grad[0] += v
		}
	}
	if w.needGrad {
		// dwᵀ += dyᵀ·A (a row, as in the forward pass): each dw_j's
		// chain over the candidates in order, as Aᵀ·dy's (the
		// candidates not scored have a gradient of 0).
		gl := g
		if ml < m {
			t.scores = resize(t.scores, ml)
			gl = t.scores
			for q, i := range idx {
				gl[q] = g[i]
			}
		}
		t.gemm(false, false, 1, general(1, ml, ml, gl), general(ml, h, h, a), 1, general(1, h, h, w.Grad))
	}
	var cb *Node
	if len(n.in) > 4 && n.in[4].needGrad {
		cb = n.in[4]
	}
	if !s.needGrad && !c.needGrad && cb == nil {
		return
	}
	wd := w.Data[:h]
	vec := haveFMA && h%4 == 0 && h > 0 // the kernel's sums: the same bits
	for q, i := range idx {
		r := n.ints[i]
		gi, ar := g[i], a[q*h:(q+1)*h]
		if gi == 0 {
			continue // every dA_ij is 0 (adding +0 changes no gradient)
		}
		var sg, cg, bg []float64
		if s.needGrad {
			sg = s.Grad[r*h : (r+1)*h]
		}
		if c.needGrad {
			ci := i
			if n.ints2 != nil {
				ci = n.ints2[i]
			}
			cg = c.Grad[ci*h : (ci+1)*h]
		}
		if cb != nil {
			bg = cb.Grad[:h]
		}
		if vec && sg != nil && cg != nil && bg != nil {
			reluGrad3y(&sg[0], &cg[0], &bg[0], &ar[0], &wd[0], gi, h)
			continue
		}
		if vec {
			for _, dst := range [][]float64{sg, cg, bg} {
				if dst != nil {
					reluGrad4y(&dst[0], &ar[0], &wd[0], gi, h)
				}
			}
			continue
		}
		for j, av := range ar {
			if av > 0 { // A > 0 exactly where S[rep] + C + c > 0
				d := gi * wd[j]
				if sg != nil {
					sg[j] += d
				}
				if cg != nil {
					cg[j] += d
				}
				if bg != nil {
					bg[j] += d
				}
			}
		}
	}
}
