package daspaper

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
	"github.com/schedlab/schedlab/training"
)

// TestPrepareJobs: a split pruned against Large, trained on Small, loses
// the training and validation jobs Small cannot hold (counted as pruned)
// but keeps its test boundary; each part starts at 0.
func TestPrepareJobs(t *testing.T) {
	small, large := simtest.Preset(t, "small"), simtest.Preset(t, "large")
	jobs := make([]datasets.Job, 20)
	for i := range jobs {
		workers := int32(1)
		if i == 3 || i == 17 { // 80 GPUs: Large holds them, Small (64) does not
			workers = 10
		}
		jobs[i] = datasets.Job{JobID: string(rune('a' + i)), SubmitS: 100 + 10.5*float64(i), DurationS: 600,
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: workers, GPU: 8, CPU: 8, MemGiB: 32}}}
	}
	ts, err := datasets.SplitTrace(jobs, sim.Pruner([]*sim.Cluster{large}, sim.DefaultConfig()),
		datasets.TraceSplit{MaxJobs: 100, TestFraction: 0.2, ValFraction: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	// 20 kept: test the last 4 (job 17 among them), validation the 4 before.
	sp, err := PrepareJobs(small, ts, sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Train) != 11 || len(sp.Val) != 4 || sp.Pruned != 1 || sp.Read != 20 {
		t.Fatalf("train %d, val %d, pruned %d, read %d; want 11, 4, 1, 20", len(sp.Train), len(sp.Val), sp.Pruned, sp.Read)
	}
	if slices.ContainsFunc(sp.Train, func(j datasets.Job) bool { return j.JobID == "d" }) {
		t.Error("job 3 (too large for Small) in training")
	}
	if sp.Train[0].SubmitS != 0 || sp.Val[0].SubmitS != 0 || sp.Val[1].SubmitS != 10.5 {
		t.Errorf("parts not rebased: train from %v, val %v, %v", sp.Train[0].SubmitS, sp.Val[0].SubmitS, sp.Val[1].SubmitS)
	}
	if want := 600.0; sp.Norm.JCTS != want || sp.Norm.GPUs != 8 {
		t.Errorf("norm %+v, want JCT %v s and 8 GPUs", sp.Norm, want)
	}

	ts.Val = nil
	if _, err := PrepareJobs(small, ts, sim.DefaultConfig()); !errors.Is(err, training.ErrNoTrainingJobs) || !strings.Contains(err.Error(), "too few") {
		t.Errorf("no validation jobs: got %v, want training.ErrNoTrainingJobs", err)
	}
}
