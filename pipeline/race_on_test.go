//go:build race

package pipeline

// raceEnabled: TestNoLiteralStreams parses the tree on one goroutine, 2 s
// under the race detector for nothing it could check; it runs in make
// test-norace (0.4 s).
const raceEnabled = true
