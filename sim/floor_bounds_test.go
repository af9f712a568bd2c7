package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDFFFeasible: u⁽ᵏ⁾ is dual feasible for every k the packing bound
// uses: requests that fit one server together (capacities and requests of
// the clusters' kinds: whole and half GPUs, cores, GiB) weigh at most one
// server. Each multiset is packed greedily to the capacity, so most are
// full, where a wrong weight would show.
func TestDFFFeasible(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []float64{2, 4, 8, 12, 16, 32, 48, 64, 96} {
		for trial := 0; trial < 2000; trial++ {
			var items []float64
			left := c
			for left > 0 {
				x := float64(1+rng.IntN(int(2*c))) / 2 // 0.5 … c
				if x > left {
					if trial%2 == 0 {
						break
					}
					x = left // fill the server exactly
				}
				items = append(items, x)
				left -= x
			}
			for _, k := range packingKs {
				var sum float64
				for _, x := range items {
					sum += dff(x/c, k)
				}
				if sum > 1+1e-12 {
					t.Fatalf("capacity %g, k %d: requests %v fit, weights sum to %g", c, k, items, sum)
				}
			}
		}
	}
	// The case the bound is for: two 6-core workers fill a 16-core
	// power8 server (a third does not fit), so each weighs half of it.
	if w := packedWeight(6, []float64{16}, 2); w != 0.5 {
		t.Errorf("a 6-core worker on 16 cores weighs %g, want 0.5", w)
	}
}

// TestMinMeanBusyIsLeast: the mean-busy-time bound's single-machine sum
// (preemptive shortest-work-first) is no larger than that of any other
// preemptive schedule of the same jobs: here every fixed-priority one
// drawn at random, SRPT's among them, on instances with releases.
func TestMinMeanBusyIsLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(8)
		rel, work := make([]float64, n), make([]float64, n)
		for i := range rel {
			rel[i] = float64(rng.IntN(10))
			work[i] = float64(rng.IntN(6)) // some jobs without work
		}
		least := minMeanBusy(rel, work)
		for p := 0; p < 30; p++ {
			prio := rng.Perm(n)
			if got := meanBusyByPriority(rel, work, prio); got < least-1e-9 {
				t.Fatalf("rel %v work %v: priority %v has Σ M = %g below the bound's %g", rel, work, prio, got, least)
			}
		}
	}
}

// meanBusyByPriority is Σ M_j of the preemptive schedule that always runs
// the released unfinished job of least prio (jobs without work count
// their release, as minMeanBusy counts them).
func meanBusyByPriority(rel, work []float64, prio []int) float64 {
	n := len(rel)
	left := slices.Clone(work)
	moment := make([]float64, n)
	var sum, t float64
	for {
		best := -1
		next := math.Inf(1)
		for j := 0; j < n; j++ {
			if left[j] <= 0 {
				continue
			}
			if rel[j] <= t {
				if best < 0 || prio[j] < prio[best] {
					best = j
				}
			} else {
				next = min(next, rel[j])
			}
		}
		if best < 0 {
			if math.IsInf(next, 1) {
				break
			}
			t = next
			continue
		}
		end := min(t+left[best], next)
		moment[best] += (end - t) * (t + end) / 2
		left[best] -= end - t
		t = end
	}
	for j := range rel {
		if work[j] > 0 {
			sum += moment[j] / work[j]
		} else {
			sum += rel[j]
		}
	}
	return sum
}
