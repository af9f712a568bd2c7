//go:build race

package families_test

// raceEnabled: under the race detector DAS trains many times slower, so
// TestResumeIsByteIdentical resumes das only of the DAS variants there
// (da, da+mc and da+rwgp run the same trainer code with other modules),
// over two learning rates killed after the first, not three killed after
// the second; make test-norace runs it whole. TestTraceFamiliesTakeInterference
// trains das and dl2 there, not the five trace families.
const raceEnabled = true
