//go:build race

package marl_test

// raceEnabled: the race detector slows the numeric code about five-fold,
// so the learning test (TestLearning, 88 s there for the device level
// alone) runs only in make test-norace, whole; the trainings'
// concurrency is checked under the detector by the byte-identity tests,
// TestSpreadSameBytes over four episodes there rather than seven.
const raceEnabled = true
