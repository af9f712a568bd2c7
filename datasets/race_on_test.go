//go:build race

package datasets

// raceEnabled is true under the race detector, which makes the full Google
// trace (2 million rows through an instrumented decoder) take minutes.
const raceEnabled = true
