//go:build race

package calibration

// raceEnabled is true under the race detector, which makes the DAS fit on
// the PAI trace take tens of minutes.
const raceEnabled = true
