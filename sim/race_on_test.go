//go:build race

package sim_test

// raceEnabled: the engine runs on one goroutine (the package starts
// none), so the race detector checks nothing in its long digests and
// only slows them about fivefold; TestGolden leaves the three pai-flat32
// cells (10.6 of its 14 s there) to make test-norace, which runs them.
const raceEnabled = true
