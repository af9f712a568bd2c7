package sim_test

import (
	"context"
	"errors"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// drive runs sched to the end, checking at every decision that no server
// is over-committed and that Free matches capacity minus running demand.
func drive(t *testing.T, c *sim.Cluster, jobs []datasets.Job, sched sim.Scheduler, cfg sim.Config) *sim.Result {
	t.Helper()
	return driveWith(t, c, jobs, cfg, nil, sched, func(st *sim.State) {
		used := make([]sim.Resources, len(c.Servers))
		for _, j := range st.Running {
			for i, sl := range j.Slots {
				used[sl.Server] = used[sl.Server].Add(j.Instances[i].Demand)
			}
		}
		for i := range c.Servers {
			cp := c.Capacity(i)
			if !used[i].Fits(cp) {
				t.Fatalf("t=%g: server %d over-committed: used %+v of %+v", st.Now, i, used[i], cp)
			}
			want := cp.Sub(used[i])
			// Tolerance: sums of fractional GPU shares drift by a few ulps.
			if d := want.Sub(st.Free[i]); math.Abs(d.GPU)+math.Abs(d.CPU)+math.Abs(d.MemGiB) > 1e-6 {
				t.Fatalf("t=%g: server %d free %+v, want %+v", st.Now, i, st.Free[i], want)
			}
		}
	})
}

// runCase is one whole run of the engine tests and benchmarks: a
// workload on a cluster under simulator settings.
type runCase struct {
	name string
	c    *sim.Cluster
	jobs []datasets.Job
	cfg  sim.Config
}

// intervalConfig is sim.DefaultConfig deciding at fixed intervals (the
// MARL paper's), not on arrivals and completions.
func intervalConfig() sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Trigger = sim.TriggerInterval
	return cfg
}

// driveWith runs jobs on c under cfg and model (nil: the default
// interference) to the end: at every decision point it calls check (when
// not nil), then carries out what sched decides (sim.DecisionOf). Any
// error fails t.
func driveWith(t testing.TB, c *sim.Cluster, jobs []datasets.Job, cfg sim.Config, model sim.Interference, sched sim.Scheduler, check func(st *sim.State)) *sim.Result {
	t.Helper()
	s, err := sim.New(c, jobs, cfg, model)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for {
		st, err := s.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if check != nil {
			check(st)
		}
		d, err := sim.DecisionOf(ctx, sched, st)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Do(d); err != nil {
			t.Fatal(err)
		}
	}
	return s.Result()
}

func checkInvariants(t *testing.T, jobs []datasets.Job, res *sim.Result, price float64) {
	t.Helper()
	seen := make(map[int]bool)
	for _, p := range res.Pruned {
		seen[p.Index] = true
	}
	for _, r := range res.Jobs {
		if seen[r.Index] {
			t.Fatalf("job %d finished twice or was pruned and finished", r.Index)
		}
		seen[r.Index] = true
		// Relative tolerance 1e-9: finish times are sums of rate segments.
		tol := 1e-9 * max(1, r.FinishS)
		if r.JCTS < jobs[r.Index].DurationS-tol || r.RunS < r.DurationS-tol {
			t.Errorf("job %d: JCT %g, run %g < standalone %g", r.Index, r.JCTS, r.RunS, r.DurationS)
		}
		if r.StartS < r.SubmitS || r.FinishS < r.StartS {
			t.Errorf("job %d: submit %g start %g finish %g out of order", r.Index, r.SubmitS, r.StartS, r.FinishS)
		}
		if want := price * jobs[r.Index].TotalGPU() * r.RunS / 3600; math.Abs(r.FeeUSD-want) > 1e-9*max(1, want) {
			t.Errorf("job %d: fee %g, want %g", r.Index, r.FeeUSD, want)
		}
	}
	if len(seen) != len(jobs) {
		t.Errorf("%d jobs accounted for (finished + pruned), want %d", len(seen), len(jobs))
	}
}

func TestEngineInvariants(t *testing.T) {
	large, _ := sim.Flat(32, "pai-v100")
	small, _ := sim.Flat(4, "pai-v100")
	ft, _ := sim.FatTree(4, "power8")
	bc, _ := sim.BCube(3, 1, "dgx1")
	interval := intervalConfig()
	tests := []runCase{
		{"pai-large", large, paiLike(2000, 0.05, 1), sim.DefaultConfig()},
		{"pai-small-overloaded", small, paiLike(500, 0.05, 2), sim.DefaultConfig()},
		{"marl-fattree-interval", ft, marlLike(4, 2, 10, 3), interval},
		{"marl-bcube-event", bc, marlLike(2, 3, 5, 4), sim.DefaultConfig()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := drive(t, tc.c, tc.jobs, firstFit{}, tc.cfg)
			checkInvariants(t, tc.jobs, res, tc.cfg.PriceGPUHour)
			again, err := sim.Run(context.Background(), tc.c, tc.jobs, firstFit{}, tc.cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Jobs, again.Jobs) || res.Metrics != again.Metrics {
				t.Error("two runs of the same input differ")
			}
			if m := res.Metrics; !(m.GPUUtil > 0 && m.GPUUtil <= 1+1e-9) || m.P50JCTS > m.P95JCTS || m.MeanFeeUSD <= 0 {
				t.Errorf("implausible metrics %+v", m)
			}
		})
	}
}

func job(id string, submit, dur float64, inst int32, gpu float64) datasets.Job {
	return datasets.Job{JobID: id, SubmitS: submit, DurationS: dur,
		Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: inst, GPU: gpu, CPU: 4, MemGiB: 16}}}
}

func TestEngineExactTimes(t *testing.T) {
	c, _ := sim.Flat(2, "pai-v100")
	jobs := []datasets.Job{
		job("alone", 0, 100, 1, 8),   // fills server 0 alone: runs at standalone speed
		job("queued", 10, 50, 2, 8),  // needs both servers: waits for "alone"
		job("zero", 20, 0, 1, 1),     // zero duration: starts and ends at once
		job("huge", 30, 10, 3, 8),    // 24 GPUs on a 16-GPU cluster: pruned
		job("cpu-only", 40, 5, 1, 0), // no GPU, fee 0
	}
	res, err := sim.Run(context.Background(), c, jobs, firstFit{}, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pruned) != 1 || res.Pruned[0].JobID != "huge" || res.Metrics.Pruned != 1 {
		t.Fatalf("pruned %+v, want job huge", res.Pruned)
	}
	byID := map[string]sim.JobResult{}
	for _, r := range res.Jobs {
		byID[r.JobID] = r
	}
	if r := byID["alone"]; r.StartS != 0 || r.FinishS != 100 || r.Machines != 1 {
		t.Errorf("alone: %+v", r)
	}
	q := byID["queued"]
	if q.StartS != 100 || q.Machines != 2 || !(q.RunS > 50) {
		t.Errorf("queued: start %g machines %d run %g; want 100, 2, > 50 (communication)", q.StartS, q.Machines, q.RunS)
	}
	// The "zero" job arrives at t=20 while "alone" holds server 0; first fit
	// puts it on server 1 at once.
	if z := byID["zero"]; z.StartS != 20 || z.FinishS != 20 || z.FeeUSD != 0 {
		t.Errorf("zero: %+v", z)
	}
	if r := byID["cpu-only"]; r.FeeUSD != 0 {
		t.Errorf("cpu-only fee %g", r.FeeUSD)
	}
	checkInvariants(t, jobs, res, 2.84)
}

// failing schedulers for the bad-input tests.
type fixed struct{ pl []sim.Placement }

func (f fixed) Name() string { return "fixed" }
func (f fixed) Schedule(context.Context, *sim.State) ([]sim.Placement, error) {
	return f.pl, nil
}

func TestEngineBadInput(t *testing.T) {
	c, _ := sim.Flat(2, "pai-v100")
	ctx := context.Background()
	one := []datasets.Job{job("a", 0, 10, 1, 4)}
	tests := []struct {
		name  string
		jobs  []datasets.Job
		sched sim.Scheduler
		cfg   func(*sim.Config)
		want  error
	}{
		{"over-commit", one, fixed{[]sim.Placement{{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: -1}}}, {Job: 0, Slots: []sim.Slot{{Server: 0, Socket: -1}}}}}, nil, sim.ErrInfeasible},
		{"no-such-server", one, fixed{[]sim.Placement{{Job: 0, Slots: []sim.Slot{{Server: 7, Socket: -1}}}}}, nil, sim.ErrInfeasible},
		{"bad-socket", one, fixed{[]sim.Placement{{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: 2}}}}}, nil, sim.ErrInfeasible},
		{"wrong-slots", one, fixed{[]sim.Placement{{Job: 0}}}, nil, sim.ErrInfeasible},
		{"no-such-job", one, fixed{[]sim.Placement{{Job: 3, Slots: []sim.Slot{{}}}}}, nil, sim.ErrInfeasible},
		{"too-big-for-server", []datasets.Job{job("a", 0, 10, 2, 8)}, fixed{[]sim.Placement{{Job: 0, Slots: []sim.Slot{{0, -1}, {0, -1}}}}}, nil, sim.ErrInfeasible},
		{"stall", one, fixed{}, nil, sim.ErrStalled},
		{"stall-interval", one, fixed{}, func(c *sim.Config) { c.Trigger = sim.TriggerInterval }, sim.ErrStalled},
		{"nan-duration", []datasets.Job{job("a", 0, math.NaN(), 1, 1)}, firstFit{}, nil, sim.ErrBadJob},
		{"negative-submit", []datasets.Job{job("a", -1, 1, 1, 1)}, firstFit{}, nil, sim.ErrBadJob},
		{"no-instances", []datasets.Job{job("a", 0, 1, 0, 1)}, firstFit{}, nil, sim.ErrBadJob},
		{"oversized-no-prune", []datasets.Job{job("a", 0, 1, 3, 8)}, firstFit{}, func(c *sim.Config) { c.PruneOversized = false }, sim.ErrOversized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			_, err := sim.Run(ctx, c, tc.jobs, tc.sched, cfg, nil)
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	// An infeasible decision is rejected whole: nothing starts.
	s, _ := sim.New(c, []datasets.Job{job("a", 0, 10, 1, 4), job("b", 0, 10, 1, 4)}, sim.DefaultConfig(), nil)
	st, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Apply([]sim.Placement{{Job: 0, Slots: []sim.Slot{{0, -1}}}, {Job: 1, Slots: []sim.Slot{{9, -1}}}})
	if !errors.Is(err, sim.ErrInfeasible) || len(st.Running) != 0 || st.Free[0] != c.Capacity(0) {
		t.Errorf("partial apply: err %v, running %d", err, len(st.Running))
	}
	if err := (sim.Config{Trigger: "sometimes"}).Validate(); err == nil {
		t.Error("bad trigger accepted")
	}
}

func TestIntervalTriggers(t *testing.T) {
	c, _ := sim.FatTree(4, "power8")
	jobs := marlLike(4, 2, 6, 9)
	var progress float64
	driveWith(t, c, jobs, intervalConfig(), nil, firstFit{}, func(st *sim.State) {
		if math.Mod(st.Now, 1800) != 0 {
			t.Fatalf("decision at t=%g, not a multiple of 1800", st.Now)
		}
		for _, p := range st.Since.Progress {
			progress += p.Fraction
		}
	})
	// Progress of jobs finished after the last decision is not reported, so
	// the sum is at most the job count.
	if progress <= 0 || progress > float64(len(jobs))+1e-6 {
		t.Errorf("summed progress %g for %d jobs", progress, len(jobs))
	}
}

func TestInterferenceAndCommunication(t *testing.T) {
	c, _ := sim.Flat(2, "power8")
	// Two 2-GPU CTC jobs (8 cores each) share server 0's sockets or are
	// spread: co-location must slow them, spreading must not.
	ctc := func(id string) datasets.Job {
		j := job(id, 0, 1000, 1, 2)
		j.Model = "ctc"
		return j
	}
	jobs := []datasets.Job{ctc("a"), ctc("b")}
	packed := fixed{[]sim.Placement{{Job: 0, Slots: []sim.Slot{{0, 0}}}, {Job: 1, Slots: []sim.Slot{{0, 0}}}}}
	spread := fixed{[]sim.Placement{{Job: 0, Slots: []sim.Slot{{0, -1}}}, {Job: 1, Slots: []sim.Slot{{1, -1}}}}}
	// Two instances of one socket's worth of GPUs cannot both sit on socket
	// 0 by GPU count, but capacity is per server, so the second overflows
	// into socket 1 while staying homed on socket 0.
	rp, err := sim.Run(context.Background(), c, jobs, packed, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := sim.Run(context.Background(), c, jobs, spread, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Jobs[0].RunS != 1000 || !(rp.Jobs[0].RunS > 1000) {
		t.Errorf("spread run %g (want 1000), packed run %g (want > 1000)", rs.Jobs[0].RunS, rp.Jobs[0].RunS)
	}
	none, _ := sim.Run(context.Background(), c, jobs, packed, sim.DefaultConfig(), sim.NoInterference{})
	if none.Jobs[0].RunS != 1000 {
		t.Errorf("no-interference packed run %g, want 1000", none.Jobs[0].RunS)
	}
}

func TestStandaloneSpeed(t *testing.T) {
	c, _ := sim.Flat(4, "pai-v100")
	jobs := paiLike(300, 0.02, 5)
	cfg := sim.DefaultConfig()
	cfg.Speed = sim.SpeedStandalone
	res := drive(t, c, jobs, firstFit{}, cfg)
	checkInvariants(t, jobs, res, cfg.PriceGPUHour)
	for _, r := range res.Jobs {
		// Exact up to the rounding of start + duration.
		if math.Abs(r.RunS-r.DurationS) > 1e-9*r.FinishS {
			t.Fatalf("job %d ran %g s, standalone %g s", r.Index, r.RunS, r.DurationS)
		}
	}
	model := drive(t, c, jobs, firstFit{}, sim.DefaultConfig())
	if !(model.Metrics.MeanSlowdown > res.Metrics.MeanSlowdown) {
		t.Errorf("speed model mean slowdown %g not above standalone %g", model.Metrics.MeanSlowdown, res.Metrics.MeanSlowdown)
	}
}
