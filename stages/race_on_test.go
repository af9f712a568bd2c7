//go:build race

package stages

// raceEnabled: under the race detector some end-to-end tests of this
// package do less, and the non-race pass of make test (make
// test-norace) runs them whole:
//   - TestGPUShareStages fits one source's measurements, not two;
//   - TestLearnedSchedulersInDAG runs three of its seven experiments.
const raceEnabled = true
