package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// shapeHeap is a binary min-heap of shape groups keyed by the pending
// order of each group's next job.
type shapeHeap struct {
	groups [][]*sim.JobState
	cursor []int
	heads  []int
}

func (h *shapeHeap) less(a, b int) bool {
	x, y := h.heads[a], h.heads[b]
	return sim.ComparePending(h.groups[x][h.cursor[x]], h.groups[y][h.cursor[y]]) < 0
}

func (h *shapeHeap) init() {
	for i := len(h.heads)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *shapeHeap) down(i int) {
	n := len(h.heads)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.heads[i], h.heads[m] = h.heads[m], h.heads[i]
		i = m
	}
}

func (h *shapeHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.heads[i], h.heads[p] = h.heads[p], h.heads[i]
		i = p
	}
}

// fix restores the heap after the top's key grew.
func (h *shapeHeap) fix() { h.down(0) }

func (h *shapeHeap) pop() {
	last := len(h.heads) - 1
	h.heads[0] = h.heads[last]
	h.heads = h.heads[:last]
	h.down(0)
}

func (h *shapeHeap) push(k int) {
	h.heads = append(h.heads, k)
	h.up(len(h.heads) - 1)
}
