package nn

import (
	"fmt"
	"math"
	"sort"
)

// attentionRowsOp is attentionOp computed only at the query rows a loss
// reads. A caller whose loss depends on a few rows of the attention's
// output (the DAS placement agent reads the rows of the jobs a decision
// placed, about one in a hundred; the ordering agent leaves the padded
// rows out of its loss) pays for every query row with SelfAttention; here
// a row that is not needed costs nothing, and trailing absent keys are
// left out of the scores.
//
// The needed rows' outputs and every gradient are SelfAttention's bit for
// bit when the loss does not depend on the other rows: each product below
// is the same gonum kernel on the same operands per output element (an
// element of Q·Kᵀ is a sum over d, of P·V a sum over keys in order, and
// the two transposed products, dV = Pᵀ·dO and dK = dSᵀ·Q, add the query
// rows' terms in row order), and what a query row that is not needed
// would add there is its zero gradient times something finite: a ±0,
// which changes no sum that started from +0 (such a sum is never −0, and
// x + ±0 = x for every other x). Absent keys get
// probability exactly 0 in SelfAttention, so their products were never
// taken (gonum skips a zero multiplier) and a softmax over the keys up to
// the last present one is the same softmax.
type attentionRowsOp struct{}

// SelfAttentionRows is SelfAttention whose output is computed only at
// the rows in rows (ascending, distinct, in [0, qkv.Rows)); every other
// row of the result is 0 and its gradient is ignored. Use it when the
// loss reads only those rows: then the result's needed rows and all
// gradients are SelfAttention's, bit for bit. The tape keeps keyMask and
// rows (not copies) until the next Reset.
func (t *Tape) SelfAttentionRows(qkv *Node, setSize, heads int, keyMask []bool, rows []int) *Node {
	if qkv.Cols%3 != 0 || heads <= 0 || (qkv.Cols/3)%heads != 0 {
		panic(fmt.Sprintf("nn: SelfAttentionRows of width %d with %d heads: want 3·e columns with e divisible by heads", qkv.Cols, heads))
	}
	if setSize <= 0 || qkv.Rows%setSize != 0 {
		panic(fmt.Sprintf("nn: SelfAttentionRows of %d rows in sets of %d", qkv.Rows, setSize))
	}
	if keyMask != nil && len(keyMask) != qkv.Rows {
		panic(fmt.Sprintf("nn: SelfAttentionRows key mask of %d for %d rows", len(keyMask), qkv.Rows))
	}
	for i, r := range rows {
		if r < 0 || r >= qkv.Rows || (i > 0 && r <= rows[i-1]) {
			panic(fmt.Sprintf("nn: SelfAttentionRows: rows must be ascending, distinct and below %d; row %d is %d", qkv.Rows, i, r))
		}
	}
	e := qkv.Cols / 3
	n := t.node(attentionRowsOp{}, qkv.Rows, e, qkv)
	clear(n.Data)
	n.iarg = [2]int{setSize, heads}
	n.mask = keyMask
	n.ints = rows
	N, d := setSize, e/heads
	sets := qkv.Rows / N
	// aux holds, per head, the probability row of every needed query:
	// head h, needed row g at (h·len(rows) + g)·N.
	n.aux = resize(n.aux, heads*len(rows)*N)
	work := 4 * int64(heads*len(rows)*N*d)
	nw := workers(sets, work)
	scratch := attnRowsScratch(N, d)
	n.aux2 = resize(n.aux2, nw*scratch)
	t.flops += splitWork(sets, work, func(w, lo, hi int) int64 {
		return attendRowsForward(n, qkv, lo, hi, n.aux2[w*scratch:(w+1)*scratch])
	})
	return n
}

// attnRowsScratch is the scratch one worker needs: a transposed key or
// value block (d·N), the needed rows' queries and output gradients or
// outputs (2·N·d), their query gradients (N·d) and their dP (N·N).
func attnRowsScratch(N, d int) int { return 4*N*d + N*N }

// setRows is the part of the ascending rows in set b (rows b·N..b·N+N−1)
// and its offset in rows.
func setRows(rows []int, b, N int) (part []int, off int) {
	lo := sort.SearchInts(rows, b*N)
	hi := sort.SearchInts(rows, (b+1)*N)
	return rows[lo:hi], lo
}

// gatherRows copies columns c0..c0+cols−1 of the rows of x named by rows
// into dst (len(rows)×cols, row-major) and returns it as a matrix.
func gatherRows(dst, x []float64, stride int, rows []int, c0, cols int) blasGeneral {
	for i, r := range rows {
		copy(dst[i*cols:(i+1)*cols], x[r*stride+c0:r*stride+c0+cols])
	}
	return general(len(rows), cols, cols, dst)
}

// attendRowsForward computes sets [lo, hi) of the attention recorded in
// n and returns its flops.
func attendRowsForward(n, qkv *Node, lo, hi int, scratch []float64) int64 {
	N, heads, e, d := attnDims(n)
	S := len(n.ints)
	kt, qs, os := scratch[:d*N], scratch[d*N:2*d*N], scratch[2*d*N:3*d*N]
	scale := 1 / math.Sqrt(float64(d))
	var flops int64
	for b := lo; b < hi; b++ {
		part, off := setRows(n.ints, b, N)
		if len(part) == 0 {
			continue
		}
		r0 := b * N
		var present []bool
		nk := N
		if n.mask != nil {
			present = n.mask[r0 : r0+N]
			for nk > 0 && !present[nk-1] {
				nk--
			}
			present = present[:nk]
		}
		for h := 0; h < heads; h++ {
			p := n.aux[(h*S+off)*N : (h*S+off+len(part))*N]
			if nk == 0 {
				// No present key: probabilities and output 0, as
				// SelfAttention's.
				clear(p)
				continue
			}
			q := gatherRows(qs, qkv.Data, qkv.Cols, part, h*d, d)
			k, v := attnView(qkv, r0, nk, e+h*d, d), attnView(qkv, r0, nk, 2*e+h*d, d)
			transposeInto(kt, k)
			pv := general(len(part), nk, N, p)
			flops += gemm(false, false, scale, q, general(d, nk, nk, kt), 0, pv)
			for i := range part {
				row := p[i*N : (i+1)*N]
				MaskedSoftmaxRow(row[:nk], present)
				clear(row[nk:])
			}
			out := general(len(part), d, d, os)
			flops += gemm(false, false, 1, pv, v, 0, out)
			for i, r := range part {
				copy(n.Data[r*e+h*d:r*e+h*d+d], os[i*d:(i+1)*d])
			}
		}
	}
	return flops
}

func (attentionRowsOp) backward(t *Tape, n *Node) {
	N, heads := n.iarg[0], n.iarg[1]
	sets, d := n.Rows/N, n.Cols/heads
	work := 8 * int64(heads*len(n.ints)*N*d)
	nw := workers(sets, work)
	scratch := attnRowsScratch(N, d)
	n.aux2 = resize(n.aux2, nw*scratch)
	// Each set writes only its own rows of the operand's gradient.
	t.flops += splitWork(sets, work, func(w, lo, hi int) int64 {
		return attendRowsBackward(n, n.in[0], lo, hi, n.aux2[w*scratch:(w+1)*scratch])
	})
}

// attendRowsBackward back-propagates sets [lo, hi) of the attention
// recorded in n into qkv's gradient and returns its flops. It takes
// SelfAttention's steps on the needed rows only (their dP over all N
// keys, as there, so that the softmax's row sums are the same sums).
func attendRowsBackward(n, qkv *Node, lo, hi int, scratch []float64) int64 {
	N, heads, e, d := attnDims(n)
	S := len(n.ints)
	scale := 1 / math.Sqrt(float64(d))
	vt, qs, dos := scratch[:d*N], scratch[d*N:2*d*N], scratch[2*d*N:3*d*N]
	dqs, dp := scratch[3*d*N:4*d*N], scratch[4*d*N:]
	var flops int64
	for b := lo; b < hi; b++ {
		part, off := setRows(n.ints, b, N)
		if len(part) == 0 {
			continue
		}
		r0 := b * N
		m := len(part)
		for h := 0; h < heads; h++ {
			p := n.aux[(h*S+off)*N : (h*S+off+m)*N]
			pg := general(m, N, N, p)
			do := gatherRows(dos, n.Grad, e, part, h*d, d)
			q := gatherRows(qs, qkv.Data, qkv.Cols, part, h*d, d)
			k, v := attnView(qkv, r0, N, e+h*d, d), attnView(qkv, r0, N, 2*e+h*d, d)
			dk, dv := gradView(qkv, r0, N, e+h*d, d), gradView(qkv, r0, N, 2*e+h*d, d)
			flops += gemm(true, false, 1, pg, do, 1, dv)
			transposeInto(vt, v)
			flops += gemm(false, false, 1, do, general(d, N, N, vt), 0, general(m, N, N, dp))
			softmaxGrads(p, dp, m, N)
			ds := general(m, N, N, dp)
			// dQ += dS·K/√d on the needed rows: gathered, added to with
			// SelfAttention's β = 1 product, put back.
			dq := gatherRows(dqs, qkv.Grad, qkv.Cols, part, h*d, d)
			flops += gemm(false, false, scale, ds, k, 1, dq)
			for i, r := range part {
				copy(qkv.Grad[r*qkv.Cols+h*d:r*qkv.Cols+h*d+d], dqs[i*d:(i+1)*d])
			}
			flops += gemm(true, false, scale, ds, q, 1, dk)
		}
	}
	return flops
}
