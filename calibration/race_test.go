//go:build race

package calibration

// raceEnabled is true under the race detector, which makes the DAS fit on
// the PAI trace take tens of minutes (TestFitDASMeetsTargetsOnPAI is
// skipped there) and TestFitDAS's fit on 600 jobs 18 s: it fits 300
// there, and make test-norace fits 600.
const raceEnabled = true
