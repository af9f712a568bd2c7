package sim_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// shortestFirst is a minimal preemptive policy for the engine's tests: at
// every decision it runs the job with the least remaining standalone work
// (an oracle) on the one server, preempting the one running if need be,
// and, when wakeEvery > 0, asks to be woken wakeEvery seconds later.
type shortestFirst struct{ wakeEvery float64 }

func (shortestFirst) Name() string { return "test-srtf" }

func (p shortestFirst) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	d, err := p.Decide(ctx, st)
	return d.Start, err
}

func (p shortestFirst) Decide(_ context.Context, st *sim.State) (sim.Decision, error) {
	var d sim.Decision
	if p.wakeEvery > 0 {
		d.WakeS = st.Now + p.wakeEvery
	}
	var best *sim.JobState
	left := func(j *sim.JobState) float64 { return j.DurationS - j.ExecutedS(st.Now) }
	for _, j := range slices.Concat(st.Pending, st.Running) {
		if best == nil || left(j) < left(best) {
			best = j
		}
	}
	if best == nil || best.Status == sim.StatusRunning {
		return d, nil
	}
	for _, j := range st.Running {
		d.Preempt = append(d.Preempt, j.Index)
	}
	slots := make([]sim.Slot, len(best.Instances))
	for i := range slots {
		slots[i] = sim.Slot{Server: 0, Socket: -1}
	}
	d.Start = []sim.Placement{{Job: best.Index, Slots: slots}}
	return d, nil
}

var _ sim.Decider = shortestFirst{}

func oneGPUServer(t *testing.T) *sim.Cluster {
	t.Helper()
	c, err := sim.Racks(1, 1, sim.ServerKind{Name: "g2", Sockets: []sim.Socket{{Cores: 8, GPUs: 2, PCIeGbps: 128}}, MemGiB: 64, NICGbps: 10})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func twoGPUJob(id string, submit, dur float64) datasets.Job {
	return datasets.Job{JobID: id, SubmitS: submit, DurationS: dur,
		Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: 2}}}
}

// TestPreemptResume: a long job is preempted by a short one and resumed
// with its progress kept; the restart cost is extra work; the records count
// the preemption and the resumption; the first start stays the start.
func TestPreemptResume(t *testing.T) {
	jobs := []datasets.Job{twoGPUJob("long", 0, 100), twoGPUJob("short", 10, 20)}
	for _, tc := range []struct {
		name      string
		restart   float64
		trigger   string
		longEnd   float64
		decisions int
	}{
		{"free restart", 0, sim.TriggerEvery, 120, 3},
		{"pollux 30 s", 30, sim.TriggerEvery, 150, 3},
		{"event trigger", 0, sim.TriggerEvent, 120, 2}, // no decision on the short job's arrival: the cluster is full
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.DefaultConfig()
			cfg.Speed = sim.SpeedStandalone
			cfg.Trigger = tc.trigger
			cfg.RestartS = sim.RestartFixed(tc.restart)
			res, err := sim.Run(context.Background(), oneGPUServer(t), jobs, shortestFirst{}, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			long, short := res.Jobs[0], res.Jobs[1]
			if tc.trigger == sim.TriggerEvent {
				// Without a decision at the arrival nothing preempts.
				if long.FinishS != 100 || short.StartS != 100 || len(res.Preempted) != 0 {
					t.Fatalf("event trigger: long %+v short %+v preempted %v", long, short, res.Preempted)
				}
				return
			}
			if long.StartS != 0 || long.FinishS != tc.longEnd || short.StartS != 10 || short.FinishS != 30 {
				t.Fatalf("long %+v, short %+v; want long 0–%g, short 10–30", long, short, tc.longEnd)
			}
			if want := tc.longEnd - 20; long.RunS != want {
				t.Errorf("long run_s = %g, want %g (its stints, not finish − start)", long.RunS, want)
			}
			if want := []sim.Preempted{{Index: 0, Preemptions: 1, Resumptions: 1}}; !slices.Equal(res.Preempted, want) {
				t.Errorf("Preempted = %v, want %v", res.Preempted, want)
			}
			if res.Decisions != tc.decisions {
				t.Errorf("%d decisions, want %d", res.Decisions, tc.decisions)
			}
		})
	}
}

// TestWake: a decision's WakeS brings a decision at that time though
// nothing arrives or finishes then.
func TestWake(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Speed = sim.SpeedStandalone
	cfg.Trigger = sim.TriggerEvery
	var at []float64
	driveWith(t, oneGPUServer(t), []datasets.Job{twoGPUJob("a", 0, 100)}, cfg, nil, shortestFirst{wakeEvery: 40}, func(st *sim.State) {
		at = append(at, st.Now)
	})
	if want := []float64{0, 40, 80}; !slices.Equal(at, want) {
		t.Fatalf("decisions at %v, want %v", at, want)
	}
}

// TestDecisionInfeasible: the engine rejects the whole decision when a
// preemption names a job that is not running, a job is preempted twice, or
// a job is preempted and restarted at once; it accepts a start on what a
// preemption frees.
func TestDecisionInfeasible(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Trigger = sim.TriggerEvery
	s, err := sim.New(oneGPUServer(t), []datasets.Job{twoGPUJob("a", 0, 100), twoGPUJob("b", 10, 100)}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	slot := []sim.Slot{{Server: 0, Socket: -1}}
	if _, err := s.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Do(sim.Decision{Preempt: []int{1}}); !errors.Is(err, sim.ErrInfeasible) {
		t.Fatalf("preempt of a job not yet submitted: %v, want ErrInfeasible", err)
	}
	if err := s.Do(sim.Decision{Start: []sim.Placement{{Job: 0, Slots: slot}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(ctx); err != nil {
		t.Fatal(err)
	}
	for _, d := range []sim.Decision{
		{Preempt: []int{0, 0}},
		{Preempt: []int{0}, Start: []sim.Placement{{Job: 0, Slots: slot}}},
		{Start: []sim.Placement{{Job: 1, Slots: slot}}}, // the server is full
		{Preempt: []int{-1}},
	} {
		if err := s.Do(d); !errors.Is(err, sim.ErrInfeasible) {
			t.Errorf("%+v: %v, want ErrInfeasible", d, err)
		}
	}
	if err := s.Do(sim.Decision{Preempt: []int{0}, Start: []sim.Placement{{Job: 1, Slots: slot}}}); err != nil {
		t.Fatalf("start on the preempted job's GPUs: %v", err)
	}
	if j := s.Job(0); j.Status != sim.StatusPending || j.Preemptions != 1 || j.ExecutedS(10) != 10 {
		t.Fatalf("preempted job: status %d, %d preemptions, executed %g s", j.Status, j.Preemptions, j.ExecutedS(10))
	}
}
