//go:build race

package schedulers_test

// raceEnabled: under the race detector a replay runs about ten times
// slower, so some tests do less there, and the non-race pass of make test
// (make test-norace) runs them whole:
//   - TestPAISubset replays one cell of the 6,000-job PAI subset, not two;
//   - TestCompare runs one of its two workloads, the DAS-like one, on 80
//     jobs arriving at 0.02/s rather than 200 at 0.01/s;
//   - TestConformance runs MALO and MOSA on 40 jobs a scenario, not 80;
//   - TestGoldenHeuristics leaves out MALO's and MOSA's digests (a digest
//     pins a whole run, which cannot shrink).
//
// The simulator's concurrency is what the detector is for, and the reduced
// forms exercise it.
const raceEnabled = true
