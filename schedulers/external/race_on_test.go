//go:build race

package external_test

// raceEnabled: under the race detector the PAI replay's two runs take
// minutes, and exercise nothing the small scenarios do not, so
// TestPAISubsetMatchesBuiltin skips there; the non-race pass of make test
// (make test-norace) runs it whole.
const raceEnabled = true
