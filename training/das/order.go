package das

import (
	"math"

	"github.com/schedlab/schedlab/training/nn"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// orderer runs the ordering agent's forward pass for evaluation without
// a tape, and only as far as the decoder can use it. On a busy cluster
// the window holds up to N = 128 pending jobs of which a handful can fit
// (roomFor); the others are never placed whatever their priority, so
// only the fitting rows need a query, attention, output projection,
// layer norm and priority. Keys and values still need every row: they
// are what those queries attend to.
//
// It evaluates the recorded operators' expressions (trunkRows, then
// priority's mean) in their order, with the same calls for every
// product (nn.Gemm) and reduction, so each row it computes is
// bit-identical to the tape's (TestOrdererMatchesTape): a product's row
// depends only on its operands' rows, and nn sums every entry over k in
// the same order whichever rows or columns are asked for. An orderer reuses its
// buffers; it is not safe for concurrent use.
type orderer struct {
	sj, sc, msg, gin, st []float64 // n×e, M×e, e, n×2e, n×e
	qkv, kt              []float64 // n×3e ([Q | K | V], Q unused), d×n
	z, q, p, att, res    []float64 // the rows': F×e, F×e, F×n, F×e, F×e
	mus, shat, mu        []float64 // F, n×e, n
}

// order returns Ŝ (n×e; only the rows in rows are computed, the others
// are zero), S^c (M×e) and μ^j (n; −Inf outside rows) for the first n
// job rows of o (trunkRows' n). The slices are the orderer's buffers,
// valid until its next use.
func (w *orderer) order(m *Model, o *Obs, n int, rows []int) (shat, sc, mu []float64) {
	e, M, F := m.cfg.Hidden, o.M, len(rows)
	w.sj = linear(w.sj, o.Jobs[:n*JobFeatures], n, m.jobFF)
	relu(w.sj)
	w.sc = linear(w.sc, o.Machines, M, m.clusterFF)
	relu(w.sc)
	z := w.sj // S̃ = S^j without the gate; Z = S̃ + PE in place
	if m.gate != nil {
		// s̃ = SegmentMeans(S^c, M), δ = σ([S^j | s̃] W3 + b3),
		// S̃ = S^j + δ ⊙ (s̃ − S^j), δ's buffer becoming S̃'s.
		w.msg = resize(w.msg, e)
		clear(w.msg)
		for k := 0; k < M; k++ {
			floats.Add(w.msg, w.sc[k*e:(k+1)*e])
		}
		floats.Scale(1/float64(M), w.msg)
		w.gin = resize(w.gin, n*2*e)
		for i := 0; i < n; i++ {
			copy(w.gin[i*2*e:], w.sj[i*e:(i+1)*e])
			copy(w.gin[i*2*e+e:], w.msg)
		}
		w.st = linear(w.st, w.gin, n, m.gate)
		for i := 0; i < n; i++ {
			st, sj := w.st[i*e:(i+1)*e], w.sj[i*e:(i+1)*e]
			for j, x := range st {
				// The product is rounded on its own, as nn's Mul
				// stores it: no fused multiply-add.
				st[j] = sj[j] + float64(sigmoid(x)*(w.msg[j]-sj[j]))
			}
		}
		z = w.st
	}
	for i := 0; i < n; i++ {
		zr, pe := z[i*e:(i+1)*e], m.pe[i*e:(i+1)*e]
		for j := range zr {
			zr[j] += pe[j]
		}
	}
	w.mu = resize(w.mu, n)
	for i := range w.mu {
		w.mu[i] = math.Inf(-1)
	}
	w.shat = resize(w.shat, n*e)
	clear(w.shat)
	if F == 0 {
		return w.shat, w.sc, w.mu
	}

	// [Q | K | V] = Z Wqkv + b: K and V for every row, Q for rows.
	qkv := m.attn.QKV
	w.qkv = resize(w.qkv, n*3*e)
	gemm(1, view(n, e, e, z), view(e, 2*e, 3*e, qkv.W.Data[e:]), view(n, 2*e, 3*e, w.qkv[e:]))
	for i := 0; i < n; i++ {
		addTo(w.qkv[i*3*e+e:(i+1)*3*e], qkv.B.Data[e:])
	}
	w.z = resize(w.z, F*e)
	for j, r := range rows {
		copy(w.z[j*e:(j+1)*e], z[r*e:(r+1)*e])
	}
	w.q = resize(w.q, F*e)
	gemm(1, view(F, e, e, w.z), view(e, e, 3*e, qkv.W.Data), view(F, e, e, w.q))
	for j := 0; j < F; j++ {
		addTo(w.q[j*e:(j+1)*e], qkv.B.Data[:e])
	}

	// nn's attendForward for the rows' queries.
	heads := m.attn.Heads
	d := e / heads
	scale := 1 / math.Sqrt(float64(d))
	w.kt, w.p, w.att = resize(w.kt, d*n), resize(w.p, F*n), resize(w.att, F*e)
	present := o.Mask[:n]
	for h := 0; h < heads; h++ {
		k := w.qkv[e+h*d:]
		for i := 0; i < n; i++ {
			for c, v := range k[i*3*e : i*3*e+d] {
				w.kt[c*n+i] = v
			}
		}
		gemm(scale, view(F, d, e, w.q[h*d:]), view(d, n, n, w.kt), view(F, n, n, w.p))
		for j := 0; j < F; j++ {
			nn.MaskedSoftmaxRow(w.p[j*n:(j+1)*n], present)
		}
		gemm(1, view(F, n, n, w.p), view(n, d, 3*e, w.qkv[2*e+h*d:]), view(F, d, e, w.att[h*d:]))
	}

	// Ŝ = LayerNorm(Z + MHA(Z)), μ^j = tanh(Ŝ W4 + b4) on the rows.
	w.res = linear(w.res, w.att, F, m.attn.Out)
	for j := 0; j < F; j++ {
		r := w.res[j*e : (j+1)*e]
		for c, v := range w.z[j*e : (j+1)*e] {
			r[c] = v + r[c]
		}
		layerNorm(r, m.norm)
	}
	w.mus = linear(w.mus, w.res, F, m.muHead)
	for j, r := range rows {
		w.mu[r] = math.Tanh(w.mus[j])
		copy(w.shat[r*e:(r+1)*e], w.res[j*e:(j+1)*e])
	}
	return w.shat, w.sc, w.mu
}

// linear is nn.Linear.Forward on the rows×in matrix x, into dst.
func linear(dst, x []float64, rows int, l *nn.Linear) []float64 {
	in, out := l.W.Rows, l.W.Cols
	dst = resize(dst, rows*out)
	gemm(1, view(rows, in, in, x), view(in, out, out, l.W.Data), view(rows, out, out, dst))
	for i := 0; i < rows; i++ {
		addTo(dst[i*out:(i+1)*out], l.B.Data)
	}
	return dst
}

// addTo is nn's Add of a row b: dst + b, in place.
func addTo(dst, b []float64) {
	for j, v := range b {
		dst[j] += v
	}
}

func relu(x []float64) {
	for i, v := range x {
		x[i] = max(v, 0)
	}
}

// sigmoid is nn's: the branch whose exponential cannot overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// layerNorm is nn's LayerNorm of one row, in place.
func layerNorm(x []float64, ln *nn.LayerNorm) {
	c := len(x)
	mean := floats.Sum(x) / float64(c)
	var v float64
	for _, a := range x {
		v += (a - mean) * (a - mean)
	}
	inv := 1 / math.Sqrt(v/float64(c)+ln.Eps)
	for j, a := range x {
		xh := (a - mean) * inv
		x[j] = xh*ln.Gain.Data[j] + ln.Bias.Data[j]
	}
}

func view(rows, cols, stride int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: stride, Data: data}
}

// gemm is c = alpha·a·b as nn's MatMul computes it (nn.Gemm).
func gemm(alpha float64, a, b, c blas64.General) {
	nn.Gemm(false, false, alpha, a, b, 0, c)
}

// resize returns s with length n, reusing its storage when it can.
func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}
