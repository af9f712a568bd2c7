//go:build race

package schedulers_test

// raceEnabled: under the race detector a replay runs about ten times
// slower, so TestPAISubset replays one cell of the 6,000-job PAI subset
// there and TestCompare one of its two workloads (the simulator's
// concurrency is what the detector is for, and one exercises it); both
// run whole without it (make test-norace).
const raceEnabled = true
