//go:build race

package schedulers_test

// raceEnabled: under the race detector a replay of the 6,000-job PAI
// subset runs about ten times slower, so TestPAISubset replays one cell
// there (the simulator's concurrency is what the detector is for, and one
// cell exercises it) and both without it (make test-norace).
const raceEnabled = true
