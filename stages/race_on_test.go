//go:build race

package stages

// raceEnabled: under the race detector, where this package's runs take
// five to ten times the CPU they take without it, some end-to-end tests
// do less, and the non-race pass of make test (make test-norace) runs
// them whole:
//   - TestStagesConformance evaluates two of its five experiments;
//   - TestCalibrateStage runs the stage with two workers, not also one;
//   - TestGPUShareStages fits one source's measurements, not two;
//   - TestLearnedSchedulersInDAG runs three of its seven experiments;
//   - TestTrainingResumesOnRetry and TestTrainSeedsRun run the trainings
//     and what they need, not the evaluations;
//   - TestSensitivityDAS trains at one point of its grid, not two.
const raceEnabled = true
