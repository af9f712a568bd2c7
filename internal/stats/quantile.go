// Package stats holds the small statistics that several packages share,
// so that each figure is computed one way wherever it is reported.
package stats

import "math"

// Quantile of sorted data at q ∈ [0, 1] by linear interpolation between
// order statistics (Hyndman and Fan's type 7, the default of numpy, R and
// DuckDB's quantile_cont), so that the figures match what users compute.
// It is NaN for empty data.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
