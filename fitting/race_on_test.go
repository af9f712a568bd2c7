//go:build race

package fitting

// raceEnabled is true under the race detector, where the numerical fits
// run five to ten times slower and start no goroutine for it to watch:
// TestRunShareRealData (both real share sources) is skipped there, and
// the non-race pass of make test (make test-norace) runs it.
const raceEnabled = true
