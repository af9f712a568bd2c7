package evaluation

import (
	"errors"
	"math"
	"testing"
)

// TestWilcoxonReference compares with scipy 1.10.1's
// scipy.stats.wilcoxon (zero_method="wilcox", correction=True), called as
// in each case's comment. Exact p-values are ratios of integers and must
// match to rounding (1e-12); approximate ones go through erfc, which
// agrees with scipy's norm.sf to about 1e-15 relative: 1e-9 is ample.
func TestWilcoxonReference(t *testing.T) {
	// rng = np.random.default_rng(7); b = np.round(rng.normal(0.3, 1, 40), 6)
	b := []float64{0.30123, 0.598746, 0.025862, -0.590592, -0.154671, -0.691647, 0.360144, 1.640215, -0.192207, -0.320475,
		0.789842, 0.656887, 0.405414, -0.630468, 0.270748, 0.995303, -1.044215, -0.157616, -1.601223, -0.989538,
		-1.541735, 0.064909, -0.967446, 0.571264, 0.456751, 0.113069, -2.21676, -0.238693, 0.251499, 0.413309,
		-1.230136, -0.177753, -0.678519, -0.508837, 1.360899, -0.507535, 0.267478, 1.18439, -0.2836, 0.188298}
	for _, tc := range []struct {
		name  string
		x, y  []float64
		stat  float64 // scipy's statistic: min(W+, W−)
		p     float64
		exact bool
		n     int
	}{
		// wilcoxon([6,8,14,16,23,24,28,29,41,-48,49,56,60,-67,75], mode='exact')
		// (Darwin's Zea mays differences, Fisher 1935) -> 24.0, 0.041259765625
		{"darwin", []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}, nil, 24, 0.041259765625, true, 15},
		// wilcoxon([1,2,3,4,5], mode='exact') -> 0.0, 0.0625
		{"all positive", []float64{1, 2, 3, 4, 5}, nil, 0, 0.0625, true, 5},
		// Hollander & Wolfe (1973) depression scores, p. 29:
		// wilcoxon(x, y, mode='exact') -> 5.0, 0.0390625
		{"hollander-wolfe", []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30},
			[]float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}, 5, 0.0390625, true, 9},
		// wilcoxon([1,2,2,3,0,0,-1,4,4,4,5,-2,6,7,-3,8], zero_method='wilcox',
		// correction=True, mode='approx') -> 12.0, 0.011826913156292663
		{"ties and zeros", []float64{1, 2, 2, 3, 0, 0, -1, 4, 4, 4, 5, -2, 6, 7, -3, 8}, nil, 12, 0.011826913156292663, false, 14},
		// wilcoxon(b, zero_method='wilcox', correction=True, mode='approx') -> 372.0, 0.614227190801766
		{"n=40 normal", b, nil, 372, 0.614227190801766, false, 40},
		// wilcoxon(b[:25], mode='exact') -> 152.0, 0.7914759516716003
		{"n=25 exact", b[:25], nil, 152, 0.7914759516716003, true, 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := tc.y
			if y == nil {
				y = make([]float64, len(tc.x))
			}
			w, err := WilcoxonSignedRank(tc.x, y)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-9
			if tc.exact {
				tol = 1e-12
			}
			if w.Exact != tc.exact || w.N != tc.n || math.Min(w.WPlus, w.WMinus) != tc.stat || math.Abs(w.P-tc.p) > tol*tc.p {
				t.Errorf("got %+v, want statistic %v p %v exact %v n %d", w, tc.stat, tc.p, tc.exact, tc.n)
			}
			if s := float64(w.N*(w.N+1)) / 2; w.WPlus+w.WMinus != s {
				t.Errorf("rank sums %v + %v != %v", w.WPlus, w.WMinus, s)
			}
		})
	}
}

func TestWilcoxonEdges(t *testing.T) {
	w, err := WilcoxonSignedRank([]float64{1, 2}, []float64{1, 2})
	if err != nil || w.N != 0 || w.Zeros != 2 || w.P != 1 {
		t.Errorf("all zero: %+v, %v", w, err)
	}
	if _, err := WilcoxonSignedRank([]float64{1}, nil); !errors.Is(err, ErrPairs) {
		t.Errorf("length mismatch: %v", err)
	}
	if _, err := WilcoxonSignedRank([]float64{math.NaN()}, []float64{0}); !errors.Is(err, ErrPairs) {
		t.Errorf("NaN: %v", err)
	}
	// Symmetric in sign: swapping x and y swaps W+ and W− and keeps P.
	x, y := []float64{3, 1, 4, 1, 5, 9, 2, 6}, []float64{2, 7, 1, 8, 2, 8, 1, 8}
	a, _ := WilcoxonSignedRank(x, y)
	b, _ := WilcoxonSignedRank(y, x)
	if a.WPlus != b.WMinus || a.P != b.P {
		t.Errorf("not symmetric: %+v vs %+v", a, b)
	}
}

// signedRankCounts for n = 3: subsets of {1,2,3} by sum 0..6 are
// 1,1,1,2,1,1,1.
func TestSignedRankCounts(t *testing.T) {
	want := []float64{1, 1, 1, 2, 1, 1, 1}
	got := signedRankCounts(3)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
