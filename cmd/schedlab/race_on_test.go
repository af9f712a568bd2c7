//go:build race

package main

// raceEnabled: under the race detector TestPresetTrainingSeeds walks the
// first 20 seeds of quick, not 200 (the non-race pass of make test walks
// them all).
const raceEnabled = true
