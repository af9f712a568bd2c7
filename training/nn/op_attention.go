package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// attentionOp is fused multi-head scaled dot-product self-attention over
// independent sets of rows. The input packs queries, keys and values side
// by side, [Q | K | V], each e wide, one row per item; rows come in sets of
// N items that attend only within their set. For set b and head h (columns
// h·d..(h+1)·d, d = e/heads):
//
//	S = Q_bh K_bhᵀ / √d,  P = softmax_rows(S) over present keys,  O_bh = P V_bh.
//
// Absent (masked) keys get probability exactly 0; a query whose set has no
// present key gets output 0 rather than NaN. aux keeps every P for the
// backward pass, which is
//
//	dV = Pᵀ dO,  dP = dO Vᵀ,  dS = P ⊙ (dP − rowsum(dP ⊙ P)),
//	dQ = dS K / √d,  dK = dSᵀ Q / √d.
//
// Fusing keeps Q, K, V and O as strided views of one buffer, so the only
// copies are the N×N probability blocks and a d×N transpose per block, and
// every product goes through BLAS.
type attentionOp struct{}

// SelfAttention records multi-head self-attention. qkv is (B·setSize)×3e
// holding [Q | K | V]; the result is (B·setSize)×e, the heads' outputs side
// by side (apply the output projection with MatMul). keyMask, if not nil,
// has one entry per row: false marks a padded item that no query may
// attend to. Padded rows still get outputs (as queries); leave them out of
// the loss. The tape keeps keyMask until the next Reset.
func (t *Tape) SelfAttention(qkv *Node, setSize, heads int, keyMask []bool) *Node {
	if qkv.Cols%3 != 0 || heads <= 0 || (qkv.Cols/3)%heads != 0 {
		panic(fmt.Sprintf("nn: SelfAttention of width %d with %d heads: want 3·e columns with e divisible by heads", qkv.Cols, heads))
	}
	if setSize <= 0 || qkv.Rows%setSize != 0 {
		panic(fmt.Sprintf("nn: SelfAttention of %d rows in sets of %d", qkv.Rows, setSize))
	}
	if keyMask != nil && len(keyMask) != qkv.Rows {
		panic(fmt.Sprintf("nn: SelfAttention key mask of %d for %d rows", len(keyMask), qkv.Rows))
	}
	e := qkv.Cols / 3
	n := t.node(attentionOp{}, qkv.Rows, e, qkv)
	n.iarg = [2]int{setSize, heads}
	n.mask = keyMask
	N, d := setSize, e/heads
	sets := qkv.Rows / N
	n.aux = resize(n.aux, sets*heads*N*N)
	work := 4 * int64(sets*heads*N*N*d)
	scratch := N*N + d*N
	nw := workers(sets, work)
	n.aux2 = resize(n.aux2, nw*scratch)
	if nw == 1 {
		// Called directly so that small graphs allocate no closure.
		t.flops += attendForward(n, qkv, 0, sets, n.aux2)
		return n
	}
	// Sets are independent: each writes only its own rows of the output
	// and its own probability blocks, so they can run on several
	// goroutines without changing any result.
	t.flops += splitWork(sets, work, func(w, lo, hi int) int64 {
		return attendForward(n, qkv, lo, hi, n.aux2[w*scratch:(w+1)*scratch])
	})
	return n
}

// softmaxGrads turns the first rows rows of dP (N wide) into the
// gradient of the softmax logits that gave probabilities P:
// dS_ij = P_ij·(dP_ij − Σ_k P_ik·dP_ik).
func softmaxGrads(p, dp []float64, rows, N int) {
	for i := 0; i < rows; i++ {
		pr, dr := p[i*N:(i+1)*N], dp[i*N:(i+1)*N]
		s := floats.Dot(pr, dr)
		for j, pj := range pr {
			dr[j] = pj * (dr[j] - s)
		}
	}
}

// attnDims returns the attention recorded in n's set size N, heads, and
// widths e (all heads) and d (one head).
func attnDims(n *Node) (N, heads, e, d int) {
	N, heads, e = n.iarg[0], n.iarg[1], n.Cols
	return N, heads, e, e / heads
}

// attendForward computes sets [lo, hi) of the attention recorded in n, with
// scratch of N·N + d·N values, and returns its flops.
func attendForward(n, qkv *Node, lo, hi int, scratch []float64) int64 {
	N, heads, e, d := attnDims(n)
	kt := scratch[N*N:]
	scale := 1 / math.Sqrt(float64(d))
	var flops int64
	for b := lo; b < hi; b++ {
		r0 := b * N
		var present []bool
		if n.mask != nil {
			present = n.mask[r0 : r0+N]
		}
		for h := 0; h < heads; h++ {
			q, k, v := attnView(qkv, r0, N, h*d, d), attnView(qkv, r0, N, e+h*d, d), attnView(qkv, r0, N, 2*e+h*d, d)
			p := n.aux[(b*heads+h)*N*N : (b*heads+h+1)*N*N]
			// gonum's A·Bᵀ kernel is a dot product per entry, slow at
			// d = 16; transposing K (N·d copies) lets the axpy-based A·B
			// kernel run at about twice the rate.
			transposeInto(kt, k)
			flops += gemm(false, false, scale, q, general(d, N, N, kt), 0, general(N, N, N, p))
			for i := 0; i < N; i++ {
				MaskedSoftmaxRow(p[i*N:(i+1)*N], present)
			}
			flops += gemm(false, false, 1, general(N, N, N, p), v, 0, attnView(n, r0, N, h*d, d))
		}
	}
	return flops
}

// attnView is the N×d block of x starting at row r0, column c0.
func attnView(x *Node, r0, rows, c0, cols int) blasGeneral {
	return general(rows, cols, x.Cols, x.Data[r0*x.Cols+c0:])
}

// transposeInto writes the transpose of m into dst, row-major with stride
// m.Rows.
func transposeInto(dst []float64, m blasGeneral) {
	for i := 0; i < m.Rows; i++ {
		row := m.Data[i*m.Stride : i*m.Stride+m.Cols]
		for j, v := range row {
			dst[j*m.Rows+i] = v
		}
	}
}

func (attentionOp) backward(t *Tape, n *Node) {
	N, heads := n.iarg[0], n.iarg[1]
	sets, d := n.Rows/N, n.Cols/heads
	work := 8 * int64(sets*heads*N*N*d)
	scratch := N*N + d*N
	nw := workers(sets, work)
	n.aux2 = resize(n.aux2, nw*scratch)
	if nw == 1 {
		t.flops += attendBackward(n, n.in[0], 0, sets, n.aux2)
		return
	}
	// As in the forward pass, each set writes only its own rows of the
	// operand's gradient.
	t.flops += splitWork(sets, work, func(w, lo, hi int) int64 {
		return attendBackward(n, n.in[0], lo, hi, n.aux2[w*scratch:(w+1)*scratch])
	})
}

// attendBackward back-propagates sets [lo, hi) of the attention recorded
// in n into qkv's gradient and returns its flops.
func attendBackward(n, qkv *Node, lo, hi int, scratch []float64) int64 {
	N, heads, e, d := attnDims(n)
	scale := 1 / math.Sqrt(float64(d))
	dp, vt := scratch[:N*N], scratch[N*N:]
	var flops int64
	for b := lo; b < hi; b++ {
		r0 := b * N
		for h := 0; h < heads; h++ {
			p := n.aux[(b*heads+h)*N*N : (b*heads+h+1)*N*N]
			pg := general(N, N, N, p)
			do := gradView(n, r0, N, h*d, d)
			q, k, v := attnView(qkv, r0, N, h*d, d), attnView(qkv, r0, N, e+h*d, d), attnView(qkv, r0, N, 2*e+h*d, d)
			dq, dk, dv := gradView(qkv, r0, N, h*d, d), gradView(qkv, r0, N, e+h*d, d), gradView(qkv, r0, N, 2*e+h*d, d)
			flops += gemm(true, false, 1, pg, do, 1, dv)
			transposeInto(vt, v)
			flops += gemm(false, false, 1, do, general(d, N, N, vt), 0, general(N, N, N, dp))
			softmaxGrads(p, dp, N, N)
			ds := general(N, N, N, dp)
			flops += gemm(false, false, scale, ds, k, 1, dq)
			flops += gemm(true, false, scale, ds, q, 1, dk)
		}
	}
	return flops
}

// gradView is attnView over x's gradient.
func gradView(x *Node, r0, rows, c0, cols int) blasGeneral {
	return general(rows, cols, x.Cols, x.Grad[r0*x.Cols+c0:])
}
