package sim

// arena hands out small slices carved from shared chunks: a job's slots,
// servers, socket takes, flows and routes are a few elements each, and a
// replay of a million jobs allocated each of them on its own (most of the
// run's allocations, and the collector's work). A chunk lives as long as
// any slice carved from it; slices are capped, so an append to one
// reallocates instead of reaching its neighbour.
type arena[T any] struct{ buf []T }

// arenaChunk is the chunk size in elements: large enough that chunk
// allocations are rare, small enough that a chunk pinned by one
// long-running job holds little.
const arenaChunk = 256

// take returns a zeroed slice of n elements.
func (a *arena[T]) take(n int) []T {
	if cap(a.buf)-len(a.buf) < n {
		if n > arenaChunk/4 {
			return make([]T, n) // large: not worth a chunk's tail
		}
		a.buf = make([]T, 0, arenaChunk)
	}
	k := len(a.buf)
	a.buf = a.buf[:k+n]
	return a.buf[k : k+n : k+n]
}

// clone returns a copy of src carved from the arena (nil when src is
// empty).
func (a *arena[T]) clone(src []T) []T {
	if len(src) == 0 {
		return nil
	}
	dst := a.take(len(src))
	copy(dst, src)
	return dst
}

// reuse copies src into dst's array where it has room, else into a new
// slice from the arena: a resumed job's slots, servers, takes and flows
// go back where its last stint's were (a replay that preempts resumes
// most of its starts), so the arena's chunks, and the collector's work,
// do not grow with the preemptions.
func (a *arena[T]) reuse(dst, src []T) []T {
	if len(src) > 0 && cap(dst) >= len(src) {
		return append(dst[:0], src...)
	}
	return a.clone(src)
}
