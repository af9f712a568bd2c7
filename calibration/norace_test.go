//go:build !race

package calibration

// raceEnabled is true under the race detector (race_test.go).
const raceEnabled = false
