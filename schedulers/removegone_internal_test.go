package schedulers

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestRemoveGoneN checks removeGoneN against removeGone on random lists,
// with the finished jobs at the front (where it moves the front) and
// anywhere (where it falls back), at two seeds: the same jobs in the same
// order, and no finished job left anywhere in q's array.
func TestRemoveGoneN(t *testing.T) {
	live := &sim.JobState{}
	for _, seed := range []uint64{1, 7} {
		r := rand.New(rand.NewPCG(seed, 48))
		for range 2000 {
			n := r.IntN(40)
			q := make([]*rjob, n)
			gone := 0
			front := 1 + r.IntN(n+1)
			for i := range q {
				q[i] = &rjob{js: live, seq: uint32(i)}
				if (i < front || r.IntN(4) == 0) && r.IntN(3) == 0 {
					q[i].js = nil
					gone++
				}
			}
			want := removeGone(slices.Clone(q))
			full := slices.Clone(q)
			got := removeGoneN(full, gone)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: removeGoneN(%d gone of %d) kept %d jobs, removeGone %d, or in another order", seed, gone, n, len(got), len(want))
			}
			for _, j := range full {
				if j != nil && j.js == nil {
					t.Fatalf("seed %d: a finished job left in a freed slot", seed)
				}
			}
		}
	}
}
