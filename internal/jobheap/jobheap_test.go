package jobheap_test

import (
	"container/heap"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/internal/jobheap"
)

// TestOrder pops the items least key first, equal keys by job index,
// whatever the order they were pushed in.
func TestOrder(t *testing.T) {
	in := []jobheap.Item{{3, 4}, {1, 7}, {2, 0}, {1, 2}, {3, 1}, {0.5, 9}, {1, 5}}
	want := []jobheap.Item{{0.5, 9}, {1, 2}, {1, 5}, {1, 7}, {2, 0}, {3, 1}, {3, 4}}
	for _, perm := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1, 0}, {3, 0, 6, 1, 5, 2, 4}} {
		var h jobheap.Heap
		for _, i := range perm {
			heap.Push(&h, in[i])
		}
		var got []jobheap.Item
		for h.Len() > 0 {
			got = append(got, heap.Pop(&h).(jobheap.Item))
		}
		if !slices.Equal(got, want) {
			t.Errorf("pushed in order %v: popped %v, want %v", perm, got, want)
		}
	}
}
