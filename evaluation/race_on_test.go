//go:build race

package evaluation

// raceEnabled: TestWriteResultsSameBytes writes 175,000 rows twice on one
// goroutine, 18 s under the race detector for nothing it could check; it
// runs in make test-norace (1.8 s). TestFloorIsABound replays every
// heuristic on 3 workloads of each generator there, not 100: sim and
// schedulers start no goroutines.
const raceEnabled = true
