// Package jobheap is a min-heap of jobs by a number (a release, a finish
// time, a work), ties by the job's index, for container/heap: items enter
// with heap.Push and leave least first with heap.Pop; the least is at [0].
package jobheap

// An Item is a job's index and the number it is ordered by.
type Item struct {
	Key float64
	Job int
}

// Heap orders Items by Key, then by Job; it implements heap.Interface.
type Heap []Item

func (h Heap) Len() int { return len(h) }
func (h Heap) Less(i, j int) bool {
	if h[i].Key != h[j].Key {
		return h[i].Key < h[j].Key
	}
	return h[i].Job < h[j].Job
}
func (h Heap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *Heap) Push(x any)   { *h = append(*h, x.(Item)) }
func (h *Heap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
