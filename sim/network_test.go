package sim_test

import (
	"context"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// serverLink returns the directed links of server i's uplink in a tiered
// topology (its only link): up (server to switch) and down.
func serverLink(t *testing.T, c *sim.Cluster, i int) (up, down sim.DirectedLink) {
	t.Helper()
	node := c.Servers[i].Node
	for l, ln := range c.Topology.Links {
		if ln.A == node || ln.B == node {
			up := c.Topology.Directed(l, node)
			return up, up.Reverse()
		}
	}
	t.Fatalf("server %d has no link", i)
	return 0, 0
}

// TestLinkFlowsHandComputed starts jobs on a fat-tree k=4 (servers 0–1
// under one edge switch, 2 under the other edge switch of the pod: a
// single path each) and checks State.LinkFlows, per directed link, against
// counts worked out by hand: a ring hop is one flow one way, a worker–PS
// pair one flow each way, one per worker instance.
func TestLinkFlowsHandComputed(t *testing.T) {
	type want struct {
		server   int
		up, down int32
	}
	cases := []struct {
		name  string
		jobs  []placed
		want  []want // server links; every other directed link must carry 0
		other int32  // total flows on the switch–switch links
	}{
		{"ring of two", []placed{{[]int{0, 1}, nil}}, []want{{0, 1, 1}, {1, 1, 1}}, 0},
		{"worker-PS pair", []placed{{[]int{0}, []int{1}}}, []want{{0, 1, 1}, {1, 1, 1}}, 0},
		{"colocated pair", []placed{{[]int{0}, []int{0}}}, nil, 0},
		{"two workers one PS", []placed{{[]int{0, 0}, []int{1}}}, []want{{0, 2, 2}, {1, 2, 2}}, 0},
		{"ring and pair share", []placed{{[]int{0, 1}, nil}, {[]int{1}, []int{0}}}, []want{{0, 2, 2}, {1, 2, 2}}, 0},
		// 0→1 (up 0, down 1), 1→2 (up 1, down 2), 2→0 (up 2, down 0);
		// 1→2 and 2→0 each cross edge0–agg and agg–edge1 once.
		{"ring of three", []placed{{[]int{0, 1, 2}, nil}}, []want{{0, 1, 1}, {1, 1, 1}, {2, 1, 1}}, 4},
		// s0 → edge0 → agg → edge1 → s2 and back.
		{"pair across edges", []placed{{[]int{0}, []int{2}}}, []want{{0, 1, 1}, {2, 1, 1}}, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := simtest.FatTree(t, 4, "power8")
			jobs, pl := placedJobs(tc.name, tc.jobs)
			// A small job arriving at t=10 makes a decision point while
			// the others run.
			jobs = append(jobs, job("probe", 10, 1, 1, 1))
			s, err := sim.New(c, jobs, sim.DefaultConfig(), sim.NoInterference{})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			st, err := s.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(pl); err != nil {
				t.Fatal(err)
			}
			if st, err = s.Next(ctx); err != nil {
				t.Fatal(err)
			}
			if st.Now != 10 || len(st.Running) != len(tc.jobs) {
				t.Fatalf("decision at t=%g with %d running, want t=10 with %d", st.Now, len(st.Running), len(tc.jobs))
			}
			if got, want := len(st.LinkFlows), 2*len(c.Topology.Links); got != want {
				t.Fatalf("%d directed links, want %d", got, want)
			}
			exp := make([]int32, len(st.LinkFlows))
			isServer := make([]bool, len(st.LinkFlows))
			for i := range c.Servers {
				up, down := serverLink(t, c, i)
				isServer[up], isServer[down] = true, true
			}
			for _, w := range tc.want {
				up, down := serverLink(t, c, w.server)
				exp[up], exp[down] = w.up, w.down
			}
			var other int32
			for dl, n := range st.LinkFlows {
				if !isServer[dl] {
					other += n
					continue
				}
				if n != exp[dl] {
					t.Errorf("directed link %d (link %d): %d flows, want %d", dl, sim.DirectedLink(dl).Link(), n, exp[dl])
				}
			}
			if other != tc.other {
				t.Errorf("%d flows on switch links, want %d", other, tc.other)
			}
		})
	}
}

// TestRoute checks that Cluster.Route walks from one server to the other
// link by link in the directions it reports, over Topology.Route's links.
func TestRoute(t *testing.T) {
	ft, _ := sim.FatTree(4, "power8")
	vl2, _ := sim.VL2(4, "power8")
	bc, _ := sim.BCube(3, 1, "dgx1")
	for _, c := range []*sim.Cluster{ft, vl2, bc} {
		top := c.Topology
		for a := range c.Servers {
			for b := range c.Servers {
				r := c.Route(nil, a, b)
				links, _ := top.Route(nil, c.Servers[a].Node, c.Servers[b].Node)
				at := c.Servers[a].Node
				for k, dl := range r {
					from, to := top.Ends(dl)
					if from != at || int32(dl.Link()) != links[k] {
						t.Fatalf("%s: route %d→%d: hop %d is %d (link %d from node %d), walking from node %d over link %d",
							c.Name, a, b, k, dl, dl.Link(), from, at, links[k])
					}
					at = to
				}
				if at != c.Servers[b].Node || len(r) != len(links) {
					t.Fatalf("%s: route %d→%d ends at node %d after %d hops, want node %d after %d", c.Name, a, b, at, len(r), c.Servers[b].Node, len(links))
				}
			}
		}
	}
}

// TestFlowLinksMatchEngine checks, at every decision of whole runs, that
// counting Cluster.FlowLinks of the running jobs reproduces State.LinkFlows
// exactly: a scheduler booking tentative flows sees what the engine will.
func TestFlowLinksMatchEngine(t *testing.T) {
	ft, _ := sim.FatTree(4, "power8")
	bc, _ := sim.BCube(3, 1, "dgx1")
	vl2, _ := sim.VL2(4, "power8")
	flat, _ := sim.Flat(8, "pai-v100")
	interval := intervalConfig()
	tests := []runCase{
		{"fattree-ps", ft, marlLike(4, 4, 6, 5), interval},
		{"bcube-ps", bc, marlLike(2, 3, 5, 6), sim.DefaultConfig()},
		{"vl2-ps", vl2, marlLike(4, 3, 4, 7), interval},
		{"flat-rings", flat, paiLike(300, 0.05, 8), sim.DefaultConfig()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf []sim.DirectedLink
			decisions, loaded := 0, 0
			driveWith(t, tc.c, tc.jobs, tc.cfg, nil, firstFit{}, func(st *sim.State) {
				want := make([]int32, len(st.LinkFlows))
				for _, js := range st.Running {
					buf = tc.c.FlowLinks(buf[:0], js, js.Slots)
					for _, dl := range buf {
						want[dl]++
					}
				}
				if !slices.Equal(st.LinkFlows, want) {
					t.Fatalf("t=%g: LinkFlows %v, FlowLinks of the running jobs count %v", st.Now, st.LinkFlows, want)
				}
				decisions++
				if slices.ContainsFunc(want, func(n int32) bool { return n > 0 }) {
					loaded++
				}
			})
			if loaded == 0 {
				t.Fatalf("no decision of %d saw a loaded link: the test checks nothing", decisions)
			}
		})
	}
}
