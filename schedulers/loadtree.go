package schedulers

import (
	"math"
	"math/bits"

	"github.com/schedlab/schedlab/sim"
)

// loadTree is a binary tree over the servers (leaves padded to a power of
// two) holding, per subtree, the least load with the lowest server index
// reaching it and the most free of each resource on any one server. best
// searches it for bestServer's answer under LeastLoad's score: the fitting
// server of least load, ties to the lowest index. A subtree is skipped
// when no server in it can fit (some resource's most free is short) or
// when none can beat the best found so far (its least load is higher, or
// equal and all its servers come after the best). Loads are the score
// function's own values, so the comparisons are the scan's.
type loadTree struct {
	servers, n int
	minLoad    []float64
	minIdx     []int32
	maxFree    []sim.Resources
	stack      []int32
}

func (t *loadTree) build(free []sim.Resources, inv *capInverse) {
	t.servers = len(free)
	t.n = 1
	for t.n < len(free) {
		t.n *= 2
	}
	if len(t.minLoad) != 2*t.n {
		t.minLoad = make([]float64, 2*t.n)
		t.minIdx = make([]int32, 2*t.n)
		t.maxFree = make([]sim.Resources, 2*t.n)
	}
	none := sim.Resources{GPU: math.Inf(-1), CPU: math.Inf(-1), MemGiB: math.Inf(-1)}
	for k := 0; k < t.n; k++ {
		v := t.n + k
		t.minIdx[v] = int32(k)
		if k < len(free) {
			t.minLoad[v] = inv.load(k, free[k])
			t.maxFree[v] = free[k]
		} else {
			t.minLoad[v] = math.Inf(1)
			t.maxFree[v] = none
		}
	}
	for v := t.n - 1; v >= 1; v-- {
		t.pull(v)
	}
}

func (t *loadTree) pull(v int) {
	pullLeast(t.minLoad, t.minIdx, v)
	fa, fb := t.maxFree[2*v], t.maxFree[2*v+1]
	t.maxFree[v] = sim.Resources{GPU: max(fa.GPU, fb.GPU), CPU: max(fa.CPU, fb.CPU), MemGiB: max(fa.MemGiB, fb.MemGiB)}
}

// pullLeast sets node v of a tree of loads (and the server index reaching
// each) to its lesser child's load and index; children are compared
// strictly, so equal loads keep the left child's, the lower index.
func pullLeast(load []float64, idx []int32, v int) {
	a, b := 2*v, 2*v+1
	if load[b] < load[a] {
		a = b
	}
	load[v], idx[v] = load[a], idx[a]
}

// set records server s's new free resources.
func (t *loadTree) set(s int, free sim.Resources, inv *capInverse) {
	v := t.n + s
	t.minLoad[v] = inv.load(s, free)
	t.maxFree[v] = free
	for v /= 2; v >= 1; v /= 2 {
		t.pull(v)
	}
}

// best returns the fitting server of least load (ties to the lowest
// index), or −1; l is the ledger the tree follows.
func (t *loadTree) best(d sim.Resources, l *sim.Ledger) int {
	best, bestLoad := -1, 0.0
	stack := append(t.stack[:0], 1)
	for len(stack) > 0 {
		v := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		// The load test first: one comparison, and once a server is found
		// it skips most nodes; the order of two skips does not change
		// which nodes are skipped.
		if best >= 0 {
			if ml := t.minLoad[v]; ml > bestLoad || ml == bestLoad && t.first(v) > best {
				continue
			}
		}
		if !d.Fits(t.maxFree[v]) {
			continue // Fits per server implies Fits of the per-resource maxima
		}
		if v >= t.n {
			if s := v - t.n; l.Fits(s, d) {
				if ld := t.minLoad[v]; best < 0 || ld < bestLoad || ld == bestLoad && s < best {
					best, bestLoad = s, ld
				}
			}
			continue
		}
		// The more promising child is searched first (pushed last).
		a, b := 2*v, 2*v+1
		if t.minLoad[b] < t.minLoad[a] {
			a, b = b, a
		}
		stack = append(stack, int32(b), int32(a))
	}
	t.stack = stack
	return best
}

// first is the lowest server index under node v: v's leftmost leaf, v
// shifted down to the leaves' level (t.n is a power of two).
func (t *loadTree) first(v int) int {
	if v >= t.n {
		return v - t.n
	}
	return v<<(bits.Len(uint(t.n))-bits.Len(uint(v))) - t.n
}
