package sortorder

import (
	"math"
	"slices"
	"testing"
)

func TestDesc(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		a, b float64
		want int
	}{
		{2, 1, -1}, {1, 2, 1}, {1, 1, 0}, {0, math.Copysign(0, -1), 0}, {nan, 1, 0}, {1, nan, 0},
	} {
		if got := Desc(tc.a, tc.b); got != tc.want {
			t.Errorf("Desc(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	x := []float64{1, 3, 2, 3}
	slices.SortStableFunc(x, Desc)
	if !slices.Equal(x, []float64{3, 3, 2, 1}) {
		t.Errorf("sorted %v", x)
	}
}
