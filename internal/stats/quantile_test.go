package stats

import (
	"math"
	"testing"
)

func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 4, 8}
	for _, tc := range []struct{ q, want float64 }{
		{0, 1}, {1, 8}, {0.5, 3}, {0.25, 1.75}, {0.9, 6.8}, {0.95, 7.4},
	} {
		if got := Quantile(xs, tc.q); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v (numpy's linear)", xs, tc.q, got, tc.want)
		}
	}
	if got := Quantile([]float64{7}, 0.3); got != 7 {
		t.Errorf("one value: %v, want 7", got)
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("empty: %v, want NaN", got)
	}
}
