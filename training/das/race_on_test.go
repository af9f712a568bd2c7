//go:build race

package das

// raceEnabled: under the race detector, where the paper-sized model's
// products take many times as long, TestTrunkRowsMatchTrunk compares the
// trunks on a minibatch of 16 decisions, not 48; make test-norace runs it
// whole. TestTrainingLearns trains each trainer 2 episodes on 100 jobs
// under the detector, and checks learning only there (20 on 500).
const raceEnabled = true
