package evaluation

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrPairs: the samples of a paired test differ in length or hold a value
// that is not finite.
var ErrPairs = errors.New("bad paired samples")

// ExactMaxN is the largest number of non-zero differences for which
// WilcoxonSignedRank uses the exact null distribution (when there are no
// ties); beyond it, or with ties, it uses the normal approximation.
const ExactMaxN = 25

// Wilcoxon is the outcome of a two-sided Wilcoxon signed-rank test.
type Wilcoxon struct {
	// N is the number of pairs with a non-zero difference (those tested);
	// Zeros is the number dropped for a zero difference.
	N, Zeros int
	// WPlus and WMinus are the rank sums of the positive and negative
	// differences x−y (average ranks for ties); WPlus+WMinus = N(N+1)/2.
	WPlus, WMinus float64
	// Ties says whether some |differences| were equal.
	Ties bool
	// Exact says whether P comes from the exact null distribution; if not,
	// Z is the normal approximation's statistic.
	Exact bool
	Z     float64
	// P is the two-sided p-value.
	P float64
}

// WilcoxonSignedRank tests whether the paired differences x[i]−y[i] are
// symmetric about zero (two-sided).
//
// Conventions (those of Wilcoxon 1945 and scipy.stats.wilcoxon with
// zero_method="wilcox", correction=True):
//
//   - zero differences are dropped before ranking (N counts the rest);
//   - |differences| are ranked with average ranks for ties;
//   - with N ≤ ExactMaxN and no ties, P = min(1, 2·min(Pr[W+ ≤ w], Pr[W+ ≥ w]))
//     under the exact null distribution of W+ (each of the 2^N sign
//     patterns equally likely);
//   - otherwise the normal approximation: mean N(N+1)/4, variance
//     N(N+1)(2N+1)/24 − Σ(t³−t)/48 over tie groups of size t,
//     continuity correction of 0.5 towards the mean, P = 2·(1−Φ(|Z|));
//   - when every difference is zero (N = 0) there is no evidence of a
//     difference: P = 1.
func WilcoxonSignedRank(x, y []float64) (Wilcoxon, error) {
	if len(x) != len(y) {
		return Wilcoxon{}, fmt.Errorf("evaluation: wilcoxon: %w: %d and %d values", ErrPairs, len(x), len(y))
	}
	d := make([]float64, 0, len(x))
	var res Wilcoxon
	for i := range x {
		v := x[i] - y[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Wilcoxon{}, fmt.Errorf("evaluation: wilcoxon: %w: pair %d is (%v, %v)", ErrPairs, i, x[i], y[i])
		}
		if v == 0 {
			res.Zeros++
			continue
		}
		d = append(d, v)
	}
	n := len(d)
	res.N = n
	if n == 0 {
		res.P = 1
		return res, nil
	}
	// The differences are finite: cmp.Compare is < and > on them.
	slices.SortFunc(d, func(a, b float64) int { return cmp.Compare(math.Abs(a), math.Abs(b)) })
	var tieTerm float64 // Σ (t³ − t)
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(d[j]) == math.Abs(d[i]) {
			j++
		}
		rank := float64(i+j+1) / 2 // ranks i+1..j averaged
		for k := i; k < j; k++ {
			if d[k] > 0 {
				res.WPlus += rank
			} else {
				res.WMinus += rank
			}
		}
		if t := float64(j - i); t > 1 {
			res.Ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	nf := float64(n)
	if n <= ExactMaxN && !res.Ties {
		res.Exact = true
		w := int(math.Round(res.WPlus))
		counts := signedRankCounts(n)
		var le, ge, total float64
		for k, c := range counts {
			total += c
			if k <= w {
				le += c
			}
			if k >= w {
				ge += c
			}
		}
		res.P = math.Min(1, 2*math.Min(le, ge)/total)
		return res, nil
	}
	mean := nf * (nf + 1) / 4
	sd := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tieTerm/48)
	diff := res.WPlus - mean
	if diff != 0 {
		diff -= math.Copysign(0.5, diff)
	}
	res.Z = diff / sd
	res.P = math.Min(1, math.Erfc(math.Abs(res.Z)/math.Sqrt2))
	return res, nil
}

// signedRankCounts returns, for k = 0..n(n+1)/2, the number of subsets of
// {1..n} whose sum is k: the exact null distribution of W+ times 2^n. The
// counts are below 2^n ≤ 2^25 for the n it is used with, so float64 holds
// them exactly.
func signedRankCounts(n int) []float64 {
	c := make([]float64, n*(n+1)/2+1)
	c[0] = 1
	top := 0
	for r := 1; r <= n; r++ {
		top += r
		for k := top; k >= r; k-- {
			c[k] += c[k-r]
		}
	}
	return c
}
