//go:build race

package marl_test

// raceEnabled: the race detector slows the numeric code about five-fold,
// so the learning test trains only the device level.
const raceEnabled = true
