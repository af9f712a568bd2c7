package sim

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
)

// spread places each pending job's instances round-robin over the servers
// from a moving start, so that jobs span servers and share links, and
// many jobs start in one decision (relinks are batched per flush).
type spread struct{ next int }

func (*spread) Name() string { return "test-spread" }

func (p *spread) Schedule(_ context.Context, st *State) ([]Placement, error) {
	l := st.Ledger()
	var out []Placement
	for _, j := range st.Pending {
		var slots []Slot
		for i, in := range j.Instances {
			for k := 0; k < len(l.Free); k++ {
				s := (p.next + k) % len(l.Free)
				if l.Fits(s, in.Demand) {
					l.Take(s, in.Demand)
					slots = append(slots, Slot{Server: s, Socket: -1})
					p.next = s + 1
					break
				}
			}
			if len(slots) != i+1 {
				l.GiveBack(j, slots)
				slots = nil
				break
			}
		}
		if slots != nil {
			out = append(out, Placement{Job: j.Index, Slots: slots})
		}
	}
	return out, nil
}

// TestRelinkBatchedExact checks, at every decision point of a fat-tree run
// where flows share links, that each link direction's share is its
// capacity over its flow count and that every flow not marked stale holds
// the least share along its route (each way): what a full recomputation
// gives, whatever the order and grouping of the relinks that led there,
// and whichever relinks left the flows alone (linkMost, which must bound
// every such flow's bottleneck).
func TestRelinkBatchedExact(t *testing.T) {
	c, err := FatTree(4, "power8")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	var jobs []datasets.Job
	for iv := 0; iv < 6; iv++ {
		for k := 0; k < 20; k++ {
			jobs = append(jobs, datasets.Job{
				JobID: fmt.Sprintf("m%d", len(jobs)), SubmitS: float64(iv)*1800 + r.Float64()*1800,
				DurationS: 600 + r.Float64()*7200, Model: MARLModels[r.IntN(len(MARLModels))],
				Tasks: []datasets.Task{
					{Role: datasets.RoleWorker, Instances: int32(1 + r.IntN(4)), GPU: 1, CPU: 2, MemGiB: 8},
					{Role: datasets.RolePS, Instances: int32(1 + r.IntN(4)), CPU: 2, MemGiB: 8},
				},
			})
		}
	}
	cfg := DefaultConfig()
	cfg.Trigger = TriggerInterval
	s, err := New(c, jobs, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	spreadAll(t, s, func() {
		for dl, n := range s.linkCount {
			want := inf
			if n > 0 {
				want = c.Topology.Links[dl/2].Gbps / float64(n)
			}
			if s.linkShare[dl] != want {
				t.Fatalf("t=%g: link direction %d: share %v, want %v (%d flows)", s.now, dl, s.linkShare[dl], want, n)
			}
		}
		// Stale completion events are dropped as they pile up.
		if n := len(s.heap); n > 2*len(s.running)+64 {
			t.Fatalf("t=%g: %d events queued for %d running jobs", s.now, n, len(s.running))
		}
		// linkJobs lists exactly the running jobs' flows on each link.
		refs := make([]int, len(s.linkJobs))
		for _, js := range s.running {
			for _, f := range js.flows {
				for _, dl := range f.links {
					refs[dl.Link()]++
				}
			}
		}
		for l, lj := range s.linkJobs {
			if len(lj) != refs[l] {
				t.Fatalf("t=%g: link %d lists %d flows, the running jobs have %d on it", s.now, l, len(lj), refs[l])
			}
			for _, r := range lj {
				if s.jobs[r.job].Status != StatusRunning {
					t.Fatalf("t=%g: link %d lists a flow of job %d, which is not running", s.now, l, r.job)
				}
			}
		}
		for _, js := range s.running {
			for k := range js.flows {
				f := &js.flows[k]
				h := &s.hot[f.id]
				if h.stale {
					continue
				}
				fwd, back := inf, inf
				for _, dl := range f.links {
					fwd = min(fwd, s.linkShare[dl])
					back = min(back, s.linkShare[dl.Reverse()])
				}
				if h.fwd != fwd || f.duplex && h.back != back {
					t.Fatalf("t=%g: job %d flow %d: bottlenecks %v, %v; the links give %v, %v", s.now, js.Index, k, h.fwd, h.back, fwd, back)
				}
				// relink's bound holds each up-to-date bottleneck.
				for _, dl := range f.links {
					if s.linkMost[dl] < h.fwd || f.duplex && s.linkMost[dl.Reverse()] < h.back {
						t.Fatalf("t=%g: job %d flow %d: bottlenecks %v, %v above link direction %d's bounds %v, %v", s.now, js.Index, k, h.fwd, h.back, dl, s.linkMost[dl], s.linkMost[dl.Reverse()])
					}
				}
				if !h.tStale && h.t != f.time(h) {
					t.Fatalf("t=%g: job %d flow %d: time %v, its bottlenecks give %v", s.now, js.Index, k, h.t, f.time(h))
				}
				if f.id != js.flows[0].id+int32(k) {
					t.Fatalf("t=%g: job %d flow %d: entry %d, want %d (the job's block, in order)", s.now, js.Index, k, f.id, js.flows[0].id+int32(k))
				}
				checked++
			}
		}
	})
	if checked == 0 {
		t.Fatal("no flow was checked: the workload shares no links")
	}
}

// spreadAll drives s to the end under a fresh spread, calling check at
// every decision point before spread decides. Any error fails t.
func spreadAll(t *testing.T, s *Sim, check func()) {
	t.Helper()
	sched := &spread{}
	for {
		st, err := s.Next(context.Background())
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		check()
		pl, err := sched.Schedule(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(pl); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDropRun checks dropRun against a filter on lists of runs of jobs,
// the removed run anywhere (front, back, middle, the whole list).
func TestDropRun(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 2000; trial++ {
		var lj []linkRef
		jobs := 1 + r.IntN(12)
		for j := 0; j < jobs; j++ {
			for k := 0; k < 1+r.IntN(4); k++ {
				lj = append(lj, linkRef{id: int32(len(lj)), job: int32(j), dl: DirectedLink(r.IntN(8))})
			}
		}
		job := int32(r.IntN(jobs))
		var want []linkRef
		for _, x := range lj {
			if x.job != job {
				want = append(want, x)
			}
		}
		got := dropRun(append([]linkRef(nil), lj...), job)
		if !slices.Equal(got, want) {
			t.Fatalf("drop job %d from %v: got %v, want %v", job, lj, got, want)
		}
	}
}
