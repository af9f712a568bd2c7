package nn

import (
	"fmt"
	"math"
)

// A categorical distribution per row of logits, restricted to the actions
// a mask allows: masked actions get probability exactly 0 (they are left
// out of the log-sum-exp, not given a large negative logit), so a row with
// one allowed action has probability 1 and entropy 0 with finite
// gradients, never NaN. aux keeps each row's log-probabilities (−Inf where
// masked, never read) for the backward passes.

// categoricalLogProbOp is ln p(a_i) per row, p = masked softmax(logits).
// Backward: d logit_j = g·(1[j = a_i] − p_j) over allowed j, 0 elsewhere.
type categoricalLogProbOp struct{}

// CategoricalLogProb records, for each row i of logits (m×k), the log of
// the probability of action actions[i] under the softmax of the row's
// allowed logits. mask, if not nil, is m·k long, row-major, true for
// allowed actions. Choosing a masked action, or a row with none allowed,
// panics: the caller sampled from something else. The result is m×1. The
// tape keeps mask and actions until the next Reset.
func (t *Tape) CategoricalLogProb(logits *Node, mask []bool, actions []int) *Node {
	if len(actions) != logits.Rows {
		panic(fmt.Sprintf("nn: CategoricalLogProb of %d rows with %d actions", logits.Rows, len(actions)))
	}
	n := t.node(categoricalLogProbOp{}, logits.Rows, 1, logits)
	n.mask, n.ints = mask, actions
	k := logits.Cols
	maskedLogSoftmax(n, logits, mask)
	for i, a := range actions {
		if a < 0 || a >= k || (mask != nil && !mask[i*k+a]) {
			panic(fmt.Sprintf("nn: CategoricalLogProb row %d: action %d is masked or outside %d", i, a, k))
		}
		n.Data[i] = n.aux[i*k+a]
	}
	return n
}

// maskedLogSoftmax fills n.aux with the row-wise log-softmax of logits over
// allowed entries (−Inf where masked).
func maskedLogSoftmax(n, logits *Node, mask []bool) {
	if mask != nil && len(mask) != len(logits.Data) {
		panic(fmt.Sprintf("nn: categorical mask of %d for %dx%d logits", len(mask), logits.Rows, logits.Cols))
	}
	k := logits.Cols
	n.aux = resize(n.aux, len(logits.Data))
	for i := 0; i < logits.Rows; i++ {
		z, lp := logits.Data[i*k:(i+1)*k], n.aux[i*k:(i+1)*k]
		var allowed []bool
		if mask != nil {
			allowed = mask[i*k : (i+1)*k]
		}
		m := maskedMax(z, allowed)
		var s float64
		for j, v := range z {
			if allowed == nil || allowed[j] {
				s += math.Exp(v - m)
			}
		}
		lse := m + math.Log(s)
		for j, v := range z {
			if allowed == nil || allowed[j] {
				lp[j] = v - lse
			} else {
				lp[j] = math.Inf(-1)
			}
		}
	}
}

func (categoricalLogProbOp) backward(_ *Tape, n *Node) {
	logits := n.in[0]
	if !logits.needGrad {
		return
	}
	k := logits.Cols
	for i, a := range n.ints {
		g := n.Grad[i]
		lp, lg := n.aux[i*k:(i+1)*k], logits.Grad[i*k:(i+1)*k]
		for j, l := range lp {
			if n.mask == nil || n.mask[i*k+j] {
				lg[j] -= g * math.Exp(l)
			}
		}
		lg[a] += g
	}
}

// categoricalEntropyOp is H_i = −Σ_j p_j ln p_j over allowed j, per row.
// Backward: d logit_j = −g·p_j(ln p_j + H_i) over allowed j.
type categoricalEntropyOp struct{}

// CategoricalEntropy records the entropy of each row's masked softmax
// distribution, as an m×1 column; mask is as in CategoricalLogProb. A row
// with no allowed action has entropy 0.
func (t *Tape) CategoricalEntropy(logits *Node, mask []bool) *Node {
	n := t.node(categoricalEntropyOp{}, logits.Rows, 1, logits)
	n.mask = mask
	maskedLogSoftmax(n, logits, mask)
	k := logits.Cols
	for i := range n.Data {
		var h float64
		for j, l := range n.aux[i*k : (i+1)*k] {
			if mask == nil || mask[i*k+j] {
				h -= math.Exp(l) * l
			}
		}
		n.Data[i] = h
	}
	return n
}

func (categoricalEntropyOp) backward(_ *Tape, n *Node) {
	logits := n.in[0]
	if !logits.needGrad {
		return
	}
	k := logits.Cols
	for i, g := range n.Grad {
		h := n.Data[i]
		lp, lg := n.aux[i*k:(i+1)*k], logits.Grad[i*k:(i+1)*k]
		for j, l := range lp {
			if n.mask == nil || n.mask[i*k+j] {
				lg[j] -= g * math.Exp(l) * (l + h)
			}
		}
	}
}
