package evaluation

import (
	"context"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// TestPolicyTrigger: a cell of a policy defined with its own trigger
// (schedulers.Info.Trigger: srtf acts at every arrival and completion)
// runs with that trigger in an experiment whose sim.trigger is another,
// and equals the policy run by hand with it; a policy without one keeps
// the experiment's.
func TestPolicyTrigger(t *testing.T) {
	s := smallDAS(t)
	s.Clusters = s.Clusters[:1]
	s.Schedulers = []string{"fifo-firstfit", "srtf"}
	if s.Sim.Trigger != sim.TriggerEvent {
		t.Fatalf("das-table1's trigger is %q, the test expects %q", s.Sim.Trigger, sim.TriggerEvent)
	}
	jobs, err := datasets.GeneratePAILikeJobs(context.Background(), datasets.PAILikeConfig{Jobs: 200}, pipeline.Rand(3, "test"))
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := s.Clusters[0].Spec.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		trigger string
	}{
		{"srtf", sim.TriggerEvery},
		{"fifo-firstfit", sim.TriggerEvent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Cell{Experiment: s.Experiment, Cluster: s.Clusters[0].Name, Workload: s.Workloads[0].Name, Scheduler: schedulers.Name(tc.name)}
			got, err := RunCell(context.Background(), s, 7, c, jobs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			sched, err := schedulers.New(schedulers.Name(tc.name), schedulers.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := s.Sim
			cfg.Trigger = tc.trigger
			want, err := sim.Run(context.Background(), cluster, jobs, sched, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Metrics != want.Metrics || got.Decisions != want.Decisions {
				t.Errorf("cell: %+v, %d decisions; by hand under trigger %s: %+v, %d decisions", got.Metrics, got.Decisions, tc.trigger, want.Metrics, want.Decisions)
			}
			if tc.trigger == s.Sim.Trigger {
				return
			}
			// The experiment's own trigger gives another run: the check
			// above tells the two apart.
			sched, _ = schedulers.New(schedulers.Name(tc.name), schedulers.Options{})
			other, err := sim.Run(context.Background(), cluster, jobs, sched, s.Sim, nil)
			if err != nil {
				t.Fatal(err)
			}
			if other.Decisions == want.Decisions {
				t.Errorf("%s makes %d decisions under trigger %s and under %s: the test cannot tell them apart", tc.name, want.Decisions, tc.trigger, s.Sim.Trigger)
			}
		})
	}
}
