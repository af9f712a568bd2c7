package schedulers

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/internal/sortorder"
)

// TestOrderDesc: orderDesc gives what a stable sort by sortorder.Desc
// gives, and resort, after one or two keys change, what orderDesc gives
// afresh: MALO's and MOSA's decodes rest on both. The keys take few
// values, so that ties (broken by index) are common; lengths 0 to 40
// cross a stable sort's insertion blocks of 20.
func TestOrderDesc(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := trial % 41
		key := make([]float64, n)
		for i := range key {
			key[i] = float64(rng.IntN(6)) / 5
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return sortorder.Desc(key[a], key[b]) })
		got := make([]int, n)
		orderDesc(got, key)
		if !slices.Equal(got, want) {
			t.Fatalf("keys %v: orderDesc %v, a stable sort %v", key, got, want)
		}
		if n == 0 {
			continue
		}
		i, j := rng.IntN(n), rng.IntN(n)
		if trial%2 == 0 {
			key[i], key[j] = key[j], key[i] // MOSA's swap of two jobs' keys
		} else {
			j = i
			key[i] = float64(rng.IntN(6)) / 5 // MOSA's new affinity of one server
		}
		resort(got, key, i, j)
		orderDesc(want, key)
		if !slices.Equal(got, want) {
			t.Fatalf("keys %v changed at %d and %d: resort %v, orderDesc %v", key, i, j, got, want)
		}
	}
}
