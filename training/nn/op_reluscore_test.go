package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestReLUScoreMatchesComposed checks ReLUScore's promise: its value and
// every gradient are those of ReLU(Add(GatherRows(s, rep), c)) then
// Add(MatMul(·, w), b), bit for bit, at the MARL scorers' shapes (128
// hidden units; hundreds of candidates, where gemm's paths differ from
// small ones) and small ones. The states s are an intermediate node (a
// product, as the scorer's state half is); rep repeats states and skips
// some; the loss weights some outputs by 0 (rows the backward pass
// skips) and some pre-activations are exactly 0. Each case runs twice on
// one tape, so a stale buffer from the first pass would show.
func TestReLUScoreMatchesComposed(t *testing.T) {
	for _, tc := range []struct {
		p, m, h, in    int
		candGrad, bias bool
	}{
		{3, 7, 5, 4, true, false},
		{3, 7, 5, 4, false, true},
		{3, 7, 5, 4, true, true},
		{21, 200, 128, 96, true, false},
		{21, 200, 128, 96, true, true},
		{1, 411, 128, 64, false, false},
	} {
		t.Run(fmt.Sprintf("p%d-m%d-h%d-cand%v-bias%v", tc.p, tc.m, tc.h, tc.candGrad, tc.bias), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.m), 7))
			fill := func(d []float64) {
				for i := range d {
					d[i] = rng.NormFloat64()
				}
			}
			x, ws, c, w, b, cb := make([]float64, tc.p*tc.in), make([]float64, tc.in*tc.h), make([]float64, tc.m*tc.h), make([]float64, tc.h), []float64{0.3}, make([]float64, tc.h)
			for _, d := range [][]float64{x, ws, c, w, cb} {
				fill(d)
			}
			rep := make([]int, tc.m)
			for i := range rep {
				rep[i] = rng.IntN(tc.p)
			}
			// A pre-activation of exactly 0: c cancels the state's value
			// (computed below, after the product).
			k := make([]float64, tc.m)
			for i := range k {
				if rng.IntN(5) > 0 {
					k[i] = rng.NormFloat64()
				}
			}
			run := func(fused bool) (out []float64, grads [][]float64) {
				ps := NewParams()
				px, pws, pc, pw, pb, pcb := ps.New("x", tc.p, tc.in), ps.New("ws", tc.in, tc.h), ps.New("c", tc.m, tc.h), ps.New("w", tc.h, 1), ps.New("b", 1, 1), ps.New("cb", 1, tc.h)
				copy(pcb.Data, cb)
				copy(px.Data, x)
				copy(pws.Data, ws)
				copy(pc.Data, c)
				copy(pw.Data, w)
				copy(pb.Data, b)
				var tp Tape
				for pass := range 2 {
					tp.Reset()
					ps.ZeroGrad()
					s := tp.MatMul(px, pws)
					if pass == 0 {
						pc.Data[0] = -s.Data[rep[0]*tc.h]
						if tc.bias {
							pc.Data[0] -= pcb.Data[0] // (c + cb) + s is 0 to rounding
						}
					}
					cand := pc
					if !tc.candGrad {
						cand = tp.Const(tc.m, tc.h, pc.Data)
					}
					var cbn *Node
					if tc.bias {
						cbn = pcb
					}
					var y *Node
					switch {
					case fused:
						y = tp.ReLUScore(s, rep, cand, cbn, pw, pb)
					case tc.bias:
						y = tp.Add(tp.MatMul(tp.ReLU(tp.Add(tp.GatherRows(s, rep), tp.Add(cand, cbn))), pw), pb)
					default:
						y = tp.Add(tp.MatMul(tp.ReLU(tp.Add(tp.GatherRows(s, rep), cand)), pw), pb)
					}
					tp.Backward(tp.Sum(tp.Mul(y, tp.Const(tc.m, 1, k))))
					out = append(out[:0], y.Data...)
				}
				for _, p := range []*Node{px, pws, pc, pw, pb, pcb} {
					grads = append(grads, append([]float64(nil), p.Grad...))
				}
				return out, grads
			}
			wantOut, wantGrads := run(false)
			gotOut, gotGrads := run(true)
			if i := firstDiff(gotOut, wantOut); i >= 0 {
				t.Fatalf("output %d: %v, composed %v", i, gotOut[i], wantOut[i])
			}
			for g, name := range []string{"x", "ws", "c", "w", "b", "cb"} {
				if i := firstDiff(gotGrads[g], wantGrads[g]); i >= 0 {
					t.Errorf("gradient of %s [%d]: %v, composed %v", name, i, gotGrads[g][i], wantGrads[g][i])
				}
			}
			if !tc.candGrad {
				return
			}
			nonzero := 0
			for _, v := range gotGrads[2] {
				if v != 0 {
					nonzero++
				}
			}
			if nonzero == 0 || nonzero == len(gotGrads[2]) {
				t.Errorf("%d of %d candidate gradients are nonzero: the mask or the skipped rows are not exercised", nonzero, len(gotGrads[2]))
			}
		})
	}
}

// firstDiff returns the first index where a and b hold different bits
// (or lengths differ: the shorter length), or −1.
func firstDiff(a, b []float64) int {
	for i := range min(len(a), len(b)) {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func TestReLUScoreGradient(t *testing.T) {
	rep := []int{1, 0, 1, 2, 1}
	checkGrad(t, []gradInput{in(3, 4), in(5, 4), in(4, 1), in(1, 1), in(1, 4)}, func(tp *Tape, x []*Node) *Node {
		return tp.ReLUScore(x[0], rep, x[1], x[4], x[2], x[3])
	})
}

// BenchmarkReLUScore is a decision's group scorer at fat-tree k = 20: 200
// candidates, 128 hidden units, forward alone (decide) and forward and
// backward (the update).
func BenchmarkReLUScore(b *testing.B) {
	const m, h = 200, 128
	rng := rand.New(rand.NewPCG(1, 2))
	ps := NewParams()
	s, c, w, bias := ps.New("s", 1, h), ps.New("c", m, h), ps.New("w", h, 1), ps.New("b", 1, 1)
	for _, p := range []*Node{s, c, w, bias} {
		for i := range p.Data {
			p.Data[i] = rng.NormFloat64()
		}
	}
	rep := make([]int, m)
	for _, backward := range []bool{false, true} {
		b.Run(fmt.Sprintf("backward=%v", backward), func(b *testing.B) {
			var tp Tape
			for b.Loop() {
				tp.Reset()
				if !backward {
					tp.ReLUScore(tp.Const(1, h, s.Data), rep, tp.Const(m, h, c.Data), nil, tp.Const(h, 1, w.Data), tp.Const(1, 1, bias.Data))
					continue
				}
				tp.Backward(tp.Sum(tp.ReLUScore(s, rep, c, nil, w, bias)))
			}
		})
	}
}

// TestReLUScoreRows checks that ReLUScoreRows, reading candidate i's row
// at row crows[i] of a larger node, gives ReLUScore's value on those rows
// gathered and the same gradients, to the bit: the rows' gradients go
// to the larger node's rows (one candidate's at a row others do not
// read, as ECCSegment.HeadVersions hands them out). Scoring only the
// candidates with a gradient (live) changes none of these bits.
func TestReLUScoreRows(t *testing.T) {
	const p, m, h, big = 2, 37, 16, 90
	rng := rand.New(rand.NewPCG(31, 32))
	ps := NewParams()
	s, c, w, b, cb := ps.New("s", p, h), ps.New("c", big, h), ps.New("w", h, 1), ps.New("b", 1, 1), ps.New("cb", 1, h)
	for _, n := range []*Node{s, c, w, b, cb} {
		for i := range n.Data {
			n.Data[i] = rng.NormFloat64()
		}
	}
	rep, crows := make([]int, m), rng.Perm(big)[:m]
	for i := range rep {
		rep[i] = rng.IntN(p)
	}
	dy := make([]float64, m)
	for i := range dy {
		if i%5 != 0 { // some candidates without a gradient
			dy[i] = rng.NormFloat64()
		}
	}
	live := make([]bool, m)
	for i := range live {
		live[i] = dy[i] != 0
	}
	pass := func(rows bool, live []bool) ([]float64, [][]float64) {
		ps.ZeroGrad()
		var tp Tape
		var y *Node
		if rows {
			y = tp.ReLUScoreRows(s, rep, c, crows, live, cb, w, b)
		} else {
			y = tp.ReLUScore(s, rep, tp.GatherRows(c, crows), cb, w, b)
		}
		tp.Backward(tp.Sum(tp.Mul(y, tp.Const(m, 1, dy))))
		var g [][]float64
		for _, n := range ps.List() {
			g = append(g, append([]float64(nil), n.Grad...))
		}
		return append([]float64(nil), y.Data...), g
	}
	wantY, wantG := pass(false, nil)
	for _, lv := range [][]bool{nil, live} {
		gotY, gotG := pass(true, lv)
		for i := range wantY {
			if lv != nil && !lv[i] {
				if gotY[i] != 0 {
					t.Errorf("live %v: the score of candidate %d, not scored, is %v", lv != nil, i, gotY[i])
				}
			} else if math.Float64bits(gotY[i]) != math.Float64bits(wantY[i]) {
				t.Fatalf("live %v: candidate %d's score differs from ReLUScore's on the gathered rows", lv != nil, i)
			}
		}
		for i, n := range ps.List() {
			if !sameBits(gotG[i], wantG[i]) {
				t.Errorf("live %v: the gradient of %s differs", lv != nil, n.Name)
			}
		}
	}
}

// TestReLUScoreKernels checks the vector kernels of ReLUScore's rows
// against the Go loops they replace, to the bit (and the transposition
// of four rows, values untouched, columns around them left alone), on values that include
// ±0, ±Inf, NaN and sums that cancel to 0: a row of A (with and without
// the candidates' bias; Go's max turns −0 into +0 and keeps a NaN a
// NaN, though not always its sign or payload) and a
// gradient row (a sum only where A > 0; elsewhere the gradient keeps its
// bits, −0 included).
func TestReLUScoreKernels(t *testing.T) {
	if !haveFMA {
		t.Skip("no vector kernels on this machine or build")
	}
	const h = 128
	rng := rand.New(rand.NewPCG(45, 7))
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1, -1}
	fill := func(d []float64) {
		for i := range d {
			if rng.IntN(4) == 0 {
				d[i] = specials[rng.IntN(len(specials))]
			} else {
				d[i] = rng.NormFloat64()
			}
		}
	}
	s, c, cb, w := make([]float64, h), make([]float64, h), make([]float64, h), make([]float64, h)
	for trial := range 50 {
		for _, d := range [][]float64{s, c, cb, w} {
			fill(d)
		}
		for j := range h / 4 {
			c[j] = -s[j] // s + c exactly 0 (−0 + +0 or +0 + −0)
		}
		for _, bias := range []bool{false, true} {
			want, got := make([]float64, h), make([]float64, h)
			var cbp *float64
			for j := range want {
				if bias {
					want[j] = max(s[j]+(c[j]+cb[j]), 0)
				} else {
					want[j] = max(s[j]+c[j], 0)
				}
			}
			if bias {
				cbp = &cb[0]
			}
			reluSum4y(&got[0], &s[0], &c[0], cbp, h)
			// A NaN is a NaN: Go's max and the kernel may give it
			// another sign or payload.
			for j := range got {
				if math.IsNaN(got[j]) && math.IsNaN(want[j]) {
					got[j], want[j] = 0, 0
				}
			}
			if i := firstDiff(got, want); i >= 0 {
				t.Fatalf("trial %d, bias %v: A[%d] = %v, Go's loop %v (s %v, c %v, cb %v)", trial, bias, i, got[i], want[i], s[i], c[i], cb[i])
			}
		}
		rows := make([]float64, 4*h)
		fill(rows)
		const ldt = 9
		at := make([]float64, h*ldt)
		fill(at)
		wantT := append([]float64(nil), at...)
		for r := range 4 {
			for j := range h {
				wantT[j*ldt+r+2] = rows[r*h+j]
			}
		}
		transpose4y(&at[2], ldt, &rows[0], h)
		if i := firstDiff(at, wantT); i >= 0 {
			t.Fatalf("trial %d: transposed [%d] = %v, want %v", trial, i, at[i], wantT[i])
		}
		a, dst := make([]float64, h), make([]float64, h)
		fill(a)
		fill(dst)
		gi := rng.NormFloat64()
		want := append([]float64(nil), dst...)
		for j, av := range a {
			if av > 0 {
				d := gi * w[j]
				want[j] += d
			}
		}
		three := [3][]float64{append([]float64(nil), dst...), make([]float64, h), make([]float64, h)}
		fill(three[1])
		fill(three[2])
		want3 := [3][]float64{want, append([]float64(nil), three[1]...), append([]float64(nil), three[2]...)}
		for _, wr := range want3[1:] {
			for j, av := range a {
				if av > 0 {
					d := gi * w[j]
					wr[j] += d
				}
			}
		}
		reluGrad4y(&dst[0], &a[0], &w[0], gi, h)
		if i := firstDiff(dst, want); i >= 0 {
			t.Fatalf("trial %d: gradient [%d] = %v, Go's loop %v", trial, i, dst[i], want[i])
		}
		reluGrad3y(&three[0][0], &three[1][0], &three[2][0], &a[0], &w[0], gi, h)
		for r := range three {
			if i := firstDiff(three[r], want3[r]); i >= 0 {
				t.Fatalf("trial %d: three rows' gradient %d [%d] = %v, Go's loop %v", trial, r, i, three[r][i], want3[r][i])
			}
		}
	}
}
