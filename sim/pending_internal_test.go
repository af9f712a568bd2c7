package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDropStarted checks dropStarted against a plain filter on random
// queues and removals, so both of its ways (moving the tail down, the head
// up) are exercised; the vacated slots must be cleared for the collector.
func TestDropStarted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + r.IntN(40)
		jobs := make([]JobState, n)
		q := make([]*JobState, n)
		for i := range jobs {
			jobs[i] = JobState{Index: i, SubmitS: float64(i / 3)}
			q[i] = &jobs[i]
		}
		var started, want []*JobState
		for _, js := range q {
			if r.IntN(4) == 0 {
				started = append(started, js)
			} else {
				want = append(want, js)
			}
		}
		backing := q[:n:n]
		got := dropStarted(q, started)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: got %d jobs, want %d", trial, len(got), len(want))
		}
		live := 0
		for _, p := range backing {
			if p != nil {
				live++
			}
		}
		if live != len(want) {
			t.Fatalf("trial %d: %d non-nil slots in the array for %d kept jobs", trial, live, len(want))
		}
	}
}

// TestMergePending checks mergePending against sorting the union, on
// random queues (jobs sharing submit times, so the index decides) and
// random sets of jobs put back, at two seeds.
func TestMergePending(t *testing.T) {
	for _, seed := range []uint64{1, 7} {
		r := rand.New(rand.NewPCG(seed, 3))
		for trial := 0; trial < 500; trial++ {
			n := 1 + r.IntN(40)
			jobs := make([]JobState, n)
			var q, add []*JobState
			for i := range jobs {
				jobs[i] = JobState{Index: i, SubmitS: float64(r.IntN(8))}
				if r.IntN(3) == 0 {
					add = append(add, &jobs[i])
				} else {
					q = append(q, &jobs[i])
				}
			}
			slices.SortFunc(q, ComparePending)
			slices.SortFunc(add, ComparePending)
			want := slices.SortedFunc(slices.Values(append(slices.Clone(q), add...)), ComparePending)
			if got := mergePending(q, add); !slices.Equal(got, want) {
				t.Fatalf("seed %d, trial %d: merged %d into %d jobs out of order", seed, trial, len(add), len(q))
			}
		}
	}
}
