package rundiff

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// welch is Welch's two-sample t test of mean(b) − mean(a) on independent
// samples (here, one value per seed), with the two-sided p-value and the
// (1−alpha) confidence interval of the difference. It needs two values
// on each side. When both samples are constant the difference is exact:
// p is 1 if it is zero and 0 otherwise, and the interval is the point.
func welch(a, b []float64, alpha float64) (p, lo, hi float64) {
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	d := mb - ma
	se2 := va/na + vb/nb
	if se2 == 0 {
		if d == 0 {
			return 1, d, d
		}
		return 0, d, d
	}
	se := math.Sqrt(se2)
	df := se2 * se2 / (va*va/(na*na*(na-1)) + vb*vb/(nb*nb*(nb-1)))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	p = 2 * t.Survival(math.Abs(d)/se)
	q := t.Quantile(1 - alpha/2)
	return math.Min(1, p), d - q*se, d + q*se
}

// holm adjusts p-values for multiple comparisons with Holm's step-down
// method: sorted ascending, the i-th of m (from 0) becomes
// max over j ≤ i of min(1, (m−j)·p_j). Rejecting where the adjusted value
// is below alpha keeps the family-wise error rate at alpha, whatever the
// dependence between the tests.
func holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(p[i], p[j]) })
	adj := make([]float64, m)
	run := 0.0
	for rank, i := range order {
		run = math.Max(run, math.Min(1, float64(m-rank)*p[i]))
		adj[i] = run
	}
	return adj
}

// relative is (b−a)/|a|: 0 when both are 0, ±Inf when only a is.
func relative(a, b float64) float64 {
	if a == b {
		return 0
	}
	if a == 0 {
		return math.Copysign(math.Inf(1), b-a)
	}
	return (b - a) / math.Abs(a)
}
