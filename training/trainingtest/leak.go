// Package trainingtest holds the checks that the tests of the stages, of
// `schedlab train` and of the learned families share: that no evaluated
// job is trained or validated on, that a resumed training writes the
// bytes an uninterrupted one writes, that a model's gradients agree with
// finite differences of its loss, and that a configuration refuses each
// bad key with a message of its own.
package trainingtest

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/training"
)

// EvaluatedJobIDs runs spec's experiment with its FIFO row alone
// (fifo-ff) at seed and returns the ids of the jobs it evaluated; it
// fails t if there are none.
func EvaluatedJobIDs(t testing.TB, spec evaluation.Spec, seed uint64) map[string]bool {
	t.Helper()
	spec.Schedulers = []string{"fifo-ff"}
	rep, err := evaluation.Run(context.Background(), spec, evaluation.Options{Seed: seed, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range rep.Cells {
		for _, j := range c.Jobs {
			ids[j.JobID] = true
		}
	}
	if len(ids) == 0 {
		t.Fatalf("%s evaluated no job", spec.Experiment)
	}
	return ids
}

// CheckNoLeak fails t if spec has no training or no validation jobs, or
// if one of them is evaluated, or is in both parts.
func CheckNoLeak(t testing.TB, what string, spec training.TrainSpec, evaluated map[string]bool) {
	t.Helper()
	if len(spec.Data.Train) == 0 || len(spec.Data.Val) == 0 {
		t.Errorf("%s: %d training and %d validation jobs", what, len(spec.Data.Train), len(spec.Data.Val))
	}
	train := map[string]bool{}
	for _, j := range spec.Data.Train {
		train[j.JobID] = true
		if evaluated[j.JobID] {
			t.Errorf("%s: evaluated job %s trains", what, j.JobID)
		}
	}
	for _, j := range spec.Data.Val {
		if evaluated[j.JobID] {
			t.Errorf("%s: evaluated job %s validates", what, j.JobID)
		}
		if train[j.JobID] {
			t.Errorf("%s: job %s both trains and validates", what, j.JobID)
		}
	}
}
