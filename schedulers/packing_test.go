package schedulers_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/schedulers/schedulerstest"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// marlJob is a MARL-style job of w workers (1 GPU, 2 cores, 8 GiB each) and
// ps parameter servers (2 cores, 8 GiB each) submitted at submitS.
func marlJob(id string, submitS float64, w, ps int32) datasets.Job {
	tasks := []datasets.Task{{Role: datasets.RoleWorker, Instances: w, GPU: 1, CPU: 2, MemGiB: 8}}
	if ps > 0 {
		tasks = append(tasks, datasets.Task{Role: datasets.RolePS, Instances: ps, CPU: 2, MemGiB: 8})
	}
	return datasets.Job{JobID: id, SubmitS: submitS, DurationS: 3600, Model: sim.MARLModels[0], Tasks: tasks}
}

// placeOne lets the scheduler name place job on cluster c after blockers
// have been started: busy[s] one-GPU workers pinned on server s at t=0. It
// returns the server of each of job's instances.
func placeOne(t *testing.T, c *sim.Cluster, busy []int32, job datasets.Job, name string) []int {
	t.Helper()
	var jobs []datasets.Job
	var pins []sim.Placement
	for s, n := range busy {
		if n == 0 {
			continue
		}
		pl := sim.Placement{Job: len(jobs)}
		for range n {
			pl.Slots = append(pl.Slots, sim.Slot{Server: s, Socket: -1})
		}
		pins = append(pins, pl)
		jobs = append(jobs, marlJob(fmt.Sprintf("busy%d", s), 0, n, 0))
	}
	job.SubmitS = 10
	jobs = append(jobs, job)
	sm, err := sim.New(c, jobs, sim.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := sm.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pins) > 0 {
		if err := sm.Apply(pins); err != nil {
			t.Fatal(err)
		}
		if st, err = sm.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(st.Pending) != 1 {
		t.Fatalf("%d jobs pending at t=%g, want the one under test", len(st.Pending), sm.Now())
	}
	sched, err := schedulers.New(schedulers.Name(name), schedulers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := sched.Schedule(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl) != 1 {
		t.Fatalf("%s placed %d jobs, want 1", name, len(pl))
	}
	servers := make([]int, len(pl[0].Slots))
	for i, sl := range pl[0].Slots {
		servers[i] = sl.Server
	}
	return servers
}

func distinct(servers []int) []int {
	d := slices.Clone(servers)
	slices.Sort(d)
	return slices.Compact(d)
}

// TestPackingLocality: four workers and a PS fit one power8 server (4 GPUs,
// 16 cores); the MARL paper's Tetris keeps them there, the DAS paper's
// spreads them.
func TestPackingLocality(t *testing.T) {
	c := simtest.FatTree(t, 4, "power8")
	job := marlJob("j", 0, 4, 1)
	busy := make([]int32, len(c.Servers))
	if got := distinct(placeOne(t, c, busy, job, "tetris-pack")); len(got) != 1 {
		t.Errorf("tetris-pack on an idle cluster: servers %v, want one", got)
	}
	if got := distinct(placeOne(t, c, busy, job, "tetris")); len(got) < 2 {
		t.Errorf("tetris on an idle cluster: servers %v, want the job spread", got)
	}
	// One job's worth of room left on server 5 only, two GPUs on 0 to 4:
	// packing must find server 5 rather than split the job.
	for s := range busy {
		busy[s] = 4
	}
	for s := range 5 {
		busy[s] = 2
	}
	busy[5] = 0
	if got := distinct(placeOne(t, c, busy, job, "tetris-pack")); !reflect.DeepEqual(got, []int{5}) {
		t.Errorf("tetris-pack with one idle server: servers %v, want [5]", got)
	}
}

// TestPackingFewestServers: when no server holds the whole job, each new
// server is the one taking most of the remaining instances.
func TestPackingFewestServers(t *testing.T) {
	c := simtest.Flat(t, 6, "power8")
	for _, tc := range []struct {
		name  string
		busy  []int32 // one-GPU workers already on each server
		w, ps int32
		want  []int // distinct servers
	}{
		// 6 GPUs needed, 4 per server: 4 workers + both PS on the first
		// server, 2 workers on the next.
		{"idle", []int32{0, 0, 0, 0, 0, 0}, 6, 2, []int{0, 1}},
		// Free GPUs 1, 3, 2, 0, 1, 1: the 3 then the 2; spreading over
		// the 1s would take four servers.
		{"fragmented", []int32{3, 1, 2, 4, 3, 3}, 5, 1, []int{1, 2}},
		// Free GPUs 2, 2, 1, 1, 1, 1: a 2, a 2, then a 1.
		{"needs three", []int32{2, 2, 3, 3, 3, 3}, 5, 2, []int{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := placeOne(t, c, tc.busy, marlJob("j", 0, tc.w, tc.ps), "tetris-pack")
			if d := distinct(got); !reflect.DeepEqual(d, tc.want) {
				t.Errorf("servers %v (per instance %v), want %v", d, got, tc.want)
			}
		})
	}
}

// recorder keeps every decision's placements.
type recorder struct {
	sim.Scheduler
	got [][]sim.Placement
}

func (r *recorder) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	pl, err := r.Scheduler.Schedule(ctx, st)
	cp := make([]sim.Placement, len(pl))
	for i, p := range pl {
		cp[i] = sim.Placement{Job: p.Job, Slots: slices.Clone(p.Slots)}
	}
	r.got = append(r.got, cp)
	return pl, err
}

// TestPackingDeterministic: the same workload run twice gets the same
// placements at every decision.
func TestPackingDeterministic(t *testing.T) {
	c := simtest.FatTree(t, 4, "power8")
	jobs := schedulerstest.MARLLike(150, 600, 7)
	run := func() [][]sim.Placement {
		s, err := schedulers.New("tetris-pack", schedulers.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := &recorder{Scheduler: s}
		if _, err := sim.Run(context.Background(), c, jobs, r, sim.DefaultConfig(), nil); err != nil {
			t.Fatal(err)
		}
		return r.got
	}
	a, b := run(), run()
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("two runs of the same workload placed differently (%d and %d decisions)", len(a), len(b))
	}
}
