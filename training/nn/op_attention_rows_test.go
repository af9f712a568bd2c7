package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSelfAttentionRowsMatchesSelfAttention checks the promise of
// SelfAttentionRows at the DAS trunk's shape (sets of 128 rows, width 64,
// 4 heads, where the products take gemm's parallel path): for a loss that
// reads only the needed rows, those rows and the whole input gradient
// are SelfAttention's bit for bit, and the other rows are 0. The sets
// cover a full set, prefix masks of several lengths, a mask with holes
// and a set with no present key; the needed rows include padded ones.
func TestSelfAttentionRowsMatchesSelfAttention(t *testing.T) {
	const N, e, heads, B = 128, 64, 4, 5
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, B*N*3*e)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	mask := make([]bool, B*N)
	for r := 0; r < N; r++ {
		mask[0*N+r] = true              // full
		mask[1*N+r] = r < 100           // prefix
		mask[2*N+r] = r < 7             // short prefix
		mask[3*N+r] = r%3 != 1          // holes
		mask[4*N+r] = r > N && r%2 == 0 // none present
	}
	var rows []int
	for r := 0; r < B*N; r++ {
		if rng.IntN(4) == 0 || r == 2*N+6 || r == 2*N+9 {
			rows = append(rows, r)
		}
	}
	w := make([]float64, len(rows)*e)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	run := func(sel bool) (out, grad []float64) {
		ps := NewParams()
		p := ps.New("qkv", B*N, 3*e)
		copy(p.Data, x)
		// A first pass with every key present and every row needed
		// leaves stale probabilities in the tape's buffers, which the
		// pass compared must not read.
		var tp Tape
		all := make([]bool, B*N)
		allRows := make([]int, B*N)
		for i := range all {
			all[i], allRows[i] = true, i
		}
		if sel {
			tp.Backward(tp.Sum(tp.SelfAttentionRows(p, N, heads, all, allRows)))
		} else {
			tp.Backward(tp.Sum(tp.SelfAttention(p, N, heads, all)))
		}
		tp.Reset()
		ps.ZeroGrad()
		var att *Node
		if sel {
			att = tp.SelfAttentionRows(p, N, heads, mask, rows)
		} else {
			att = tp.SelfAttention(p, N, heads, mask)
		}
		tp.Backward(tp.Sum(tp.Mul(tp.GatherRows(att, rows), tp.Const(len(rows), e, w))))
		return append([]float64(nil), att.Data...), append([]float64(nil), p.Grad...)
	}
	wantOut, wantGrad := run(false)
	gotOut, gotGrad := run(true)
	needed := map[int]bool{}
	for _, r := range rows {
		needed[r] = true
	}
	for i, v := range gotOut {
		r := i / e
		want := 0.0
		if needed[r] {
			want = wantOut[i]
		}
		if math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("output row %d column %d = %v, want %v", r, i%e, v, want)
		}
	}
	nonzero := 0
	for i, v := range gotGrad {
		if math.Float64bits(v) != math.Float64bits(wantGrad[i]) {
			t.Fatalf("gradient row %d column %d = %v, want SelfAttention's %v", i/(3*e), i%(3*e), v, wantGrad[i])
		}
		if v != 0 {
			nonzero++
		}
	}
	if nonzero == 0 {
		t.Fatal("all gradients are 0: the test compares nothing")
	}
}

// TestSelfAttentionRowsRejectsUnsortedRows checks the precondition that
// lets a set find its rows by binary search.
func TestSelfAttentionRowsRejectsUnsortedRows(t *testing.T) {
	for name, rows := range map[string][]int{"descending": {3, 1}, "repeated": {2, 2}, "out of range": {0, 8}} {
		func() {
			defer func() {
				if r, ok := recover().(string); !ok || r[:4] != "nn: " {
					t.Errorf("%s: panic %v, want an \"nn: \" message", name, r)
				}
			}()
			var tp Tape
			tp.SelfAttentionRows(tp.Const(8, 6, nil), 4, 2, nil, rows)
		}()
	}
}
