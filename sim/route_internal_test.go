package sim

import (
	"slices"
	"testing"
)

// routeFull is the router before leaf destinations borrowed their
// neighbour's distance table: a walk down b's own table.
func routeFull(t *Topology, a, b int) []DirectedLink {
	dist := t.dist(b)
	var dst []DirectedLink
	h := mix(uint64(a)<<32 | uint64(b))
	for u, hop := a, uint64(0); u != b; hop++ {
		want := dist[u] - 1
		n := 0
		for _, e := range t.adj[u] {
			if dist[e.to] == want {
				n++
			}
		}
		k := int(mix(h+hop) % uint64(n))
		for _, e := range t.adj[u] {
			if dist[e.to] == want {
				if k == 0 {
					dst = append(dst, t.Directed(int(e.link), u))
					u = int(e.to)
					break
				}
				k--
			}
		}
	}
	return dst
}

// TestRouteLeafTables checks that every route between two servers, and
// between a switch and a server, is the one a walk down the destination's
// own distance table takes, on each topology kind.
func TestRouteLeafTables(t *testing.T) {
	ft, _ := FatTree(6, "power8")
	vl2, _ := VL2(4, "power8")
	bc, _ := BCube(3, 1, "power8")
	flat, _ := Flat(5, "dgx1")
	for _, c := range []*Cluster{ft, vl2, bc, flat} {
		tp := c.Topology
		for a := range tp.Nodes {
			for _, s := range c.Servers {
				b := s.Node
				got, ok := tp.route(nil, a, b)
				if want := routeFull(tp, a, b); !ok || !slices.Equal(got, want) {
					t.Fatalf("%s: route %d -> %d: %v (ok %v), want %v", c.Name, a, b, got, ok, want)
				}
			}
		}
	}
}
