package external_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/sim"
)

// matchBuiltin runs the built-in scheduler builtin and the policy of cmd
// on the same jobs, cluster and configuration, and fails t unless every
// job's result, the preempted jobs, the metrics and the engine's decision
// count are equal, bit for bit. It returns the policy's result, the
// number of messages the policy was asked (its wake_on may make them
// fewer than the decisions) and the number of decision points at which
// the built-in started or preempted something. The built-in runs behind
// acting, which hides its declarations, so that Run computes
// State.Since.Progress for it and not for the policy (a
// sim.ProgressBlind): equal results show the protocol does without it.
func matchBuiltin(t *testing.T, c *sim.Cluster, jobs []datasets.Job, cfg sim.Config, builtin schedulers.Name, cmd string) (res *sim.Result, asked, acted int) {
	t.Helper()
	s, err := schedulers.New(builtin, schedulers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := &acting{Scheduler: s}
	want, err := sim.Run(context.Background(), c, jobs, a, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, external.Config{Name: "py", Command: cmd})
	if _, ok := sim.Scheduler(a).(sim.ProgressBlind); ok {
		t.Fatal("acting passes sim.ProgressBlind on: neither run has Progress")
	}
	got, err := sim.Run(context.Background(), c, jobs, p, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	compareJobs(t, got.Jobs, want.Jobs)
	if !reflect.DeepEqual(got.Preempted, want.Preempted) {
		t.Errorf("preempted jobs differ: python %d, built-in %d", len(got.Preempted), len(want.Preempted))
	}
	if got.Metrics != want.Metrics || got.Decisions != want.Decisions {
		t.Errorf("metrics %+v after %d decisions, built-in %+v after %d", got.Metrics, got.Decisions, want.Metrics, want.Decisions)
	}
	return got, p.Messages(), a.n
}

// acting is a scheduler that counts the decision points at which it
// starts or preempts something.
type acting struct {
	sim.Scheduler
	n int
}

func (a *acting) Decide(ctx context.Context, st *sim.State) (sim.Decision, error) {
	d, err := sim.DecisionOf(ctx, a.Scheduler, st)
	if len(d.Start)+len(d.Preempt) > 0 {
		a.n++
	}
	return d, err
}

// compareJobs fails t for each job whose result differs (the first five
// shown).
func compareJobs(t *testing.T, got, want []sim.JobResult) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d jobs, built-in %d", len(got), len(want))
	}
	bad := 0
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			if bad < 5 {
				t.Errorf("job %d: python %+v\nbuilt-in %+v", i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d jobs differ", bad, len(got))
	}
}
