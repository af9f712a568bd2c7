//go:build race

package main

// raceEnabled: under the race detector, where a quick run takes eight
// times the CPU it takes without it, some tests do less, and the non-race
// pass of make test (make test-norace) runs them whole:
//   - TestPresetTrainingSeeds walks the first 3 seeds of quick and
//     nightly, not 200 and 20;
//   - TestQuickRunCache, TestRunResumesAfterSIGKILL, TestDiff and
//     TestHistory, each making quick runs of its own, are skipped (the
//     shared quick run exercises the same pipeline under the detector);
//   - TestEveryKeyIsRead (plans built, no goroutine started) and
//     TestOutputsNeverClobber (each command refusing its output before
//     it starts any work) are skipped;
//   - TestQuickRunDeterministic makes no run with one worker on one P
//     (the shared run under the detector runs all that code with two);
//   - TestTrainCommand trains three of the five families;
//   - TestProfileImportFitPredictShare fits one source's samples, not two.
const raceEnabled = true
