// Package schedulerstest is the conformance harness every sim.Scheduler
// implementation must pass (heuristics, meta-heuristics and learned
// policies alike, preemptive ones through sim.Decider). It drives the
// scheduler through the simulator on small DAS-like and MARL-like
// scenarios and checks, at every decision, that the
// scheduler leaves the state untouched and never over-commits a server, and
// at the end that every job finished exactly once with JCT ≥ standalone
// duration and fee = price × GPUs × run time, and that two runs with the
// same seed are identical.
package schedulerstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// Scenario is one conformance run.
type Scenario struct {
	Name    string
	Cluster sim.ClusterSpec
	Jobs    []datasets.Job
	Config  sim.Config
}

// Scenarios returns the standard scenarios, scaled by n jobs each.
func Scenarios(n int) []Scenario {
	interval := sim.DefaultConfig()
	interval.Trigger = sim.TriggerInterval
	return []Scenario{
		{"das-flat", sim.ClusterSpec{Topology: "flat", N: 4, Servers: "pai-v100"}, PAILike(n, 0.02, 1), sim.DefaultConfig()},
		{"marl-fattree-interval", sim.ClusterSpec{Topology: "fattree", K: 4, Servers: "power8"}, MARLLike(n, 1800, 2), interval},
		{"marl-bcube-mixed", sim.ClusterSpec{Topology: "bcube", N: 3, K: 1, Servers: "mixed"}, MARLLike(n, 900, 3), sim.DefaultConfig()},
	}
}

// PAILike draws n PAI-like jobs (Poisson arrivals at rate per second, 1–8
// GPU single instances and some multi-instance jobs, long-tailed
// durations); one job is too large for a 4-server cluster and is pruned.
func PAILike(n int, rate float64, seed uint64) []datasets.Job {
	r := rand.New(rand.NewPCG(seed, 11))
	jobs := make([]datasets.Job, n)
	t := 0.0
	for i := range jobs {
		t += r.ExpFloat64() / rate
		inst := int32(1)
		gpu := []float64{0.5, 1, 1, 2, 4, 8}[r.IntN(6)]
		if r.Float64() < 0.2 {
			inst = int32(2 + r.IntN(3))
			gpu = []float64{1, 2, 4}[r.IntN(3)]
		}
		jobs[i] = datasets.Job{
			JobID: fmt.Sprintf("p%d", i), Source: "conformance", SubmitS: math.Round(t),
			DurationS: math.Round(30 + r.ExpFloat64()*1800),
			Tasks:     []datasets.Task{{Role: datasets.RoleWorker, Instances: inst, GPU: gpu, CPU: 6 * max(gpu, 1), MemGiB: 20 * max(gpu, 1)}},
		}
	}
	if n > 0 {
		jobs[n/2].Tasks[0].Instances = 64 // 512 GPUs: pruned on small clusters
		jobs[n/2].Tasks[0].GPU = 8
	}
	return jobs
}

// MARLLike draws n jobs of the MARL paper's kind: model uniform over Table
// I, 1–4 workers (1 GPU, 2 cores) and 1–2 parameter servers (2 cores),
// arriving uniformly over spans of spanS.
func MARLLike(n int, spanS float64, seed uint64) []datasets.Job {
	r := rand.New(rand.NewPCG(seed, 12))
	jobs := make([]datasets.Job, n)
	for i := range jobs {
		jobs[i] = datasets.Job{
			JobID: fmt.Sprintf("m%d", i), Source: "conformance",
			SubmitS:   float64(i/8)*spanS + math.Round(r.Float64()*spanS),
			DurationS: math.Round(300 + r.Float64()*5400), Model: sim.MARLModels[r.IntN(len(sim.MARLModels))],
			Tasks: []datasets.Task{
				{Role: datasets.RoleWorker, Instances: int32(1 + r.IntN(4)), GPU: 1, CPU: 2, MemGiB: 8},
				{Role: datasets.RolePS, Instances: int32(1 + r.IntN(2)), CPU: 2, MemGiB: 8},
			},
		}
	}
	return jobs
}

// Run checks one scheduler, built fresh by newSched for each run, on the
// standard scenarios with n jobs each.
func Run(t *testing.T, newSched func(seed uint64) (sim.Scheduler, error), n int) {
	t.Helper()
	for _, sc := range Scenarios(n) {
		t.Run(sc.Name, func(t *testing.T) {
			c, err := sc.Cluster.Build()
			if err != nil {
				t.Fatal(err)
			}
			first := runChecked(t, c, sc, newSched, 7)
			second := runChecked(t, c, sc, newSched, 7)
			if !reflect.DeepEqual(first.Jobs, second.Jobs) {
				t.Error("two runs with the same seed differ")
			}
		})
	}
}

type snapshot struct {
	now     float64
	pending []int
	running []int
	free    []sim.Resources
}

func snap(st *sim.State) snapshot {
	s := snapshot{now: st.Now, free: slices.Clone(st.Free)}
	for _, j := range st.Pending {
		s.pending = append(s.pending, j.Index)
	}
	for _, j := range st.Running {
		s.running = append(s.running, j.Index)
	}
	return s
}

func runChecked(t *testing.T, c *sim.Cluster, sc Scenario, newSched func(uint64) (sim.Scheduler, error), seed uint64) *sim.Result {
	t.Helper()
	sched, err := newSched(seed)
	if err != nil {
		t.Fatal(err)
	}
	if sched.Name() == "" {
		t.Error("scheduler has an empty name")
	}
	s, err := sim.New(c, sc.Jobs, sc.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	placed := 0
	for d := 0; ; d++ {
		st, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", sched.Name(), err)
		}
		before := snap(st)
		dec, err := sim.DecisionOf(ctx, sched, st)
		if err != nil {
			t.Fatalf("%s at t=%g: %v", sched.Name(), st.Now, err)
		}
		if after := snap(st); !reflect.DeepEqual(before, after) {
			t.Fatalf("%s modified the state at t=%g", sched.Name(), st.Now)
		}
		for _, p := range dec.Start {
			if s.Job(p.Job).Preemptions == 0 {
				placed++ // a first start, not a resumption
			}
		}
		if err := s.Do(dec); err != nil {
			t.Fatalf("%s: %v", sched.Name(), err)
		}
		used := make([]sim.Resources, len(c.Servers))
		for k := range sc.Jobs {
			j := s.Job(k)
			if j.Status != sim.StatusRunning {
				continue
			}
			for i, sl := range j.Slots {
				used[sl.Server] = used[sl.Server].Add(j.Instances[i].Demand)
			}
		}
		for i := range used {
			if !used[i].Fits(c.Capacity(i)) {
				t.Fatalf("%s: t=%g: server %d over-committed: %+v of %+v", sched.Name(), st.Now, i, used[i], c.Capacity(i))
			}
		}
	}
	res := s.Result()
	accounted := make(map[int]bool)
	for _, p := range res.Pruned {
		accounted[p.Index] = true
	}
	for _, r := range res.Jobs {
		if accounted[r.Index] {
			t.Fatalf("job %d finished twice or finished after being pruned", r.Index)
		}
		accounted[r.Index] = true
		tol := 1e-9 * max(1, r.FinishS) // finish times are sums of rate segments
		if r.JCTS < r.DurationS-tol || r.RunS < r.DurationS-tol {
			t.Errorf("job %d: JCT %g / run %g below standalone %g", r.Index, r.JCTS, r.RunS, r.DurationS)
		}
		want := sc.Config.PriceGPUHour * sc.Jobs[r.Index].TotalGPU() * r.RunS / 3600
		if math.Abs(r.FeeUSD-want) > 1e-9*max(1, want) {
			t.Errorf("job %d: fee %g, want %g", r.Index, r.FeeUSD, want)
		}
	}
	if len(accounted) != len(sc.Jobs) || placed != len(res.Jobs) {
		t.Errorf("%d of %d jobs accounted for; %d placed, %d finished", len(accounted), len(sc.Jobs), placed, len(res.Jobs))
	}
	return res
}
