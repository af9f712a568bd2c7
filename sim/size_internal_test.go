package sim

import "testing"

// TestSizeCountsTheBuiltCluster: Size counts what Build builds, and its
// RouteTables are the destinations route gives tables of their own.
func TestSizeCountsTheBuiltCluster(t *testing.T) {
	for _, s := range []ClusterSpec{
		{Topology: "flat", N: 5, Servers: "pai-v100"},
		{Topology: "fattree", K: 2, Servers: "power8"},
		{Topology: "fattree", K: 6, Servers: "power8"},
		{Topology: "vl2", K: 8, Servers: "power8"},
		{Topology: "bcube", N: 3, K: 0, Servers: "power8"},
		{Topology: "bcube", N: 3, K: 2, Servers: "power8"},
	} {
		got, err := s.Size()
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		c, err := s.Build()
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		tables := map[int]bool{}
		for _, sv := range c.Servers {
			g := sv.Node
			if adj := c.Topology.adj[g]; len(adj) == 1 {
				g = int(adj[0].to)
			}
			tables[g] = true
		}
		want := Size{Servers: len(c.Servers), Nodes: len(c.Topology.Nodes), Pods: c.Pods, RouteTables: len(tables)}
		if got != want {
			t.Errorf("%+v: Size %+v, built %+v", s, got, want)
		}
	}
	if _, err := (ClusterSpec{Topology: "fattree", K: 200, Servers: "power8"}).Size(); err == nil {
		t.Error("fattree(200): Size gave no error for more than 2^20 servers")
	}
}
