//go:build race

package marl_test

// raceEnabled: the race detector slows the numeric code about five-fold,
// so the slowest training (single agent) is left out.
const raceEnabled = true
