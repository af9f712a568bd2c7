package external_test

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
)

// TestPreemptiveMatchesBuiltin runs the Python preemptive example keyed by
// GPUs and the built-in smallest-first (a preemptive policy) on the
// conformance scenarios: every job's result, its preemptions included,
// must be equal, bit for bit, and the scenarios must preempt.
func TestPreemptiveMatchesBuiltin(t *testing.T) {
	cmd := example(t, "preemptive.py") + " gpus"
	preempted := 0
	for _, sc := range schedulerstest.Scenarios(120) {
		t.Run(sc.Name, func(t *testing.T) {
			c, err := sc.Cluster.Build()
			if err != nil {
				t.Fatal(err)
			}
			res, _, _ := matchBuiltin(t, c, sc.Jobs, sc.Config, "smallest-first", cmd)
			for _, r := range res.Preempted {
				preempted += r.Preemptions
			}
		})
	}
	if preempted == 0 {
		t.Error("no scenario preempted a job: the test compares no preemption")
	}
	t.Logf("%d preemptions, equal", preempted)
}

// TestLASRuns: the LAS-like key preempts, asks to be woken, and finishes
// every job.
func TestLASRuns(t *testing.T) {
	cmd := example(t, "preemptive.py") + " las 300"
	sc := schedulerstest.Scenarios(80)[0]
	c, err := sc.Cluster.Build()
	if err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, external.Config{Name: "las-py", Command: cmd})
	res, err := sim.Run(context.Background(), c, sc.Jobs, p, sc.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range res.Preempted {
		n += r.Preemptions
	}
	if len(res.Jobs) == 0 || n == 0 {
		t.Errorf("%d jobs, %d preemptions: want jobs and preemptions", len(res.Jobs), n)
	}
	t.Logf("%d jobs, %d preemptions, %d decisions, mean JCT %.0f s", len(res.Jobs), n, res.Decisions, res.Metrics.MeanJCTS)
}
