package nn

import (
	"runtime"

	"github.com/sourcegraph/conc"
)

// maxWorkers bounds the goroutines one operator uses.
const maxWorkers = 8

// minParallelFlops is the least work worth splitting: below it, starting
// goroutines costs more than it saves.
const minParallelFlops = 1 << 20

// workers returns how many goroutines splitWork uses for n items of the
// given total work.
func workers(n int, work int64) int {
	if work < minParallelFlops {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), maxWorkers, n))
}

// splitWork runs f over items [0, n) in workers(n, work) contiguous chunks,
// one goroutine each, waits for all, and returns the sum of what the calls
// return (their flop counts). Each item must be computed wholly by the one
// call that owns it and write memory no other item writes; then the split
// cannot change a single bit of the result, whatever GOMAXPROCS is.
func splitWork(n int, work int64, f func(worker, lo, hi int) int64) int64 {
	w := workers(n, work)
	if w == 1 {
		return f(0, 0, n)
	}
	var counts [maxWorkers]int64
	var wg conc.WaitGroup
	for i := range w {
		wg.Go(func() { counts[i] = f(i, i*n/w, (i+1)*n/w) })
	}
	wg.Wait()
	var total int64
	for _, c := range counts[:w] {
		total += c
	}
	return total
}
