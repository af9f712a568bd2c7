package marl

import (
	"context"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// TestEdgeLoadsDirected checks the network edge features of the
// server-level graphs of fattree(4) against the simulator's own link
// counts: a ring all-reduce over servers 0 and 1 is one flow each way on
// both server links (not two: the links are full duplex and the view
// counts directions as the engine does), and booking a worker on server 0
// with its PS on server 4 (the next pod) adds one flow each way along the
// route, changing pods 0 and 1's graphs and no other.
func TestEdgeLoadsDirected(t *testing.T) {
	c := simtest.FatTree(t, 4, "power8")
	cg, err := buildGraphs(c, VariantServer)
	if err != nil {
		t.Fatal(err)
	}
	for p, pt := range cg.parts {
		for k, e := range pt.edges {
			if src := pt.graph.Src[k]; e.kind == edgeNet && src < len(pt.cands) {
				if from, _ := c.Topology.Ends(e.dl); from != c.Servers[pt.cands[src].server].Node {
					t.Fatalf("partition %d edge %d leaves server %d but stands for a link crossed from node %d", p, k, pt.cands[src].server, from)
				}
			}
		}
	}
	worker := datasets.Task{Role: datasets.RoleWorker, GPU: 1, CPU: 2, MemGiB: 8}
	ps := datasets.Task{Role: datasets.RolePS, Instances: 1, CPU: 2, MemGiB: 8}
	ring, pair := worker, worker
	ring.Instances, pair.Instances = 2, 1
	jobs := []datasets.Job{
		{JobID: "ring", DurationS: 1000, Model: "resnet-50", Tasks: []datasets.Task{ring}},
		{JobID: "pair", SubmitS: 10, DurationS: 1000, Model: "resnet-50", Tasks: []datasets.Task{pair, ps}},
	}
	s, err := sim.New(c, jobs, sim.DefaultConfig(), sim.NoInterference{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply([]sim.Placement{{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: -1}, {Server: 1, Socket: -1}}}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v := newView(cg, 4)
	v.refresh(st)
	// load returns the load feature of every network edge touching server
	// srv in partition p.
	load := func(p, srv int) []float64 {
		pt := cg.parts[p]
		var out []float64
		for k, e := range pt.edges {
			from, to := c.Topology.Ends(e.dl)
			if e.kind == edgeNet && (from == c.Servers[srv].Node || to == c.Servers[srv].Node) {
				out = append(out, v.ctx.inner[p][k*edgeFeatures+1])
			}
		}
		return out
	}
	one, two := flowFeature(1), flowFeature(2)
	for _, srv := range []int{0, 1} {
		if got := load(0, srv); !slices.Equal(got, []float64{one, one}) {
			t.Errorf("server %d's edges carry %v, want %v (one flow each way)", srv, got, []float64{one, one})
		}
	}
	before := v.ctx
	changed := v.bookFlows(st.Pending[0], []sim.Slot{{Server: 0, Socket: 0}, {Server: 4, Socket: 0}})
	if !slices.Equal(changed, []int{0, 1}) {
		t.Errorf("booking changed partitions %v, want [0 1]", changed)
	}
	if got := load(0, 0); !slices.Equal(got, []float64{two, two}) {
		t.Errorf("after booking, server 0's edges carry %v, want %v", got, []float64{two, two})
	}
	if got := load(1, 4); !slices.Equal(got, []float64{one, one}) {
		t.Errorf("after booking, server 4's edges carry %v, want %v", got, []float64{one, one})
	}
	if got := load(0, 1); !slices.Equal(got, []float64{one, one}) {
		t.Errorf("after booking, server 1's edges carry %v, want %v (unchanged)", got, []float64{one, one})
	}
	if slices.Equal(before.inter, v.ctx.inter) {
		t.Error("a flow across pods left the inter-scheduler edge features unchanged")
	}
	if slices.Equal(before.inner[0], v.ctx.inner[0]) {
		t.Error("booking modified the edge features recorded before it, or changed nothing")
	}
	// Features kept from the last value, here and after a booking within
	// pod 1 (servers 4 and 5), whose flows cross no link of the
	// inter-scheduler graph, are those computed anew.
	same := func(when string) {
		t.Helper()
		fresh := v.edgeFeatures(nil, nil, true)
		for p := range fresh.inner {
			if !slices.Equal(fresh.inner[p], v.ctx.inner[p]) {
				t.Errorf("%s: partition %d's edge features differ from those computed anew", when, p)
			}
		}
		if !slices.Equal(fresh.inter, v.ctx.inter) {
			t.Errorf("%s: the inter-scheduler edge features differ from those computed anew", when)
		}
	}
	same("after a booking across pods")
	before = v.ctx
	if changed := v.bookFlows(st.Pending[0], []sim.Slot{{Server: 4, Socket: 0}, {Server: 5, Socket: 0}}); !slices.Equal(changed, []int{1}) {
		t.Errorf("booking within pod 1 changed partitions %v, want [1]", changed)
	}
	same("after a booking within a pod")
	if &before.inter[0] != &v.ctx.inter[0] {
		t.Error("a booking within a pod computed the inter-scheduler edge features again")
	}
}
