package nn

import (
	"math/rand/v2"
	"testing"
)

// TestPerturb: Perturb adds scale times the rng's normal draws, parameter
// by parameter in List order, element by element.
func TestPerturb(t *testing.T) {
	ps := NewParams()
	a, b := ps.New("a", 2, 2), ps.New("b", 1, 3)
	copy(a.Data, []float64{1, 2, 3, 4})
	ps.Perturb(0.5, rand.New(rand.NewPCG(1, 2)))
	rng := rand.New(rand.NewPCG(1, 2))
	want := []float64{1, 2, 3, 4, 0, 0, 0}
	for i := range want {
		want[i] += 0.5 * rng.NormFloat64()
	}
	got := append(append([]float64(nil), a.Data...), b.Data...)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after Perturb %v, want %v", got, want)
		}
	}
}
