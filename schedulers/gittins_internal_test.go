package schedulers

import "testing"

// TestPyRound checks Python 2.7's round(x, n) on values whose exact binary
// expansion is a tie (halves go away from zero) and on ordinary ones.
func TestPyRound(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		n    int
		want float64
	}{
		{0.015625, 5, 0.01563}, // 1/64: an exact tie at the sixth decimal
		{-0.015625, 5, -0.01563},
		{2.5, 0, 3},
		{0.125, 2, 0.13},
		{2.675, 2, 2.67}, // binary 2.67499999...: not a tie
		{1234.56789, 4, 1234.5679},
		{1.0 / 3, 5, 0.33333},
		{0, 4, 0},
	} {
		if got := pyRound(tc.x, tc.n); got != tc.want {
			t.Errorf("pyRound(%v, %d) = %v, want %v", tc.x, tc.n, got, tc.want)
		}
	}
}
