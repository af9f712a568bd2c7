//go:build race

package schedulers_test

// raceEnabled: under the race detector a replay runs about ten times
// slower, so some tests do less there, and the non-race pass of make test
// (make test-norace) runs them whole:
//   - TestPAISubset replays one cell of the 6,000-job PAI subset, not two;
//   - TestCompare runs one of its two workloads, the DAS-like one, on 80
//     jobs arriving at 0.02/s rather than 200 at 0.01/s;
//   - TestConformance runs a third of the jobs a scenario: 40, not 120,
//     and MALO and MOSA 26, not 80;
//   - TestNoFutureReads permutes the durations of 30 jobs, not 80;
//   - TestGoldenHeuristics leaves out MALO's and MOSA's digests (a digest
//     pins a whole run, which cannot shrink).
//
// sim and schedulers start no goroutines, so the detector has nothing to
// find in these replays that the reduced forms do not show; it watches the
// packages that run them concurrently (evaluation's matrix, stages).
const raceEnabled = true
