//go:build race

package dl2

// raceEnabled: under the race detector the numeric code runs many times
// slower, so the multi-seed learning test is skipped there (its code
// paths run under the detector in TestWarmupAndTraining).
const raceEnabled = true
