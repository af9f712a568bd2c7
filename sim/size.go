package sim

import "unsafe"

// Size is what the cluster a spec names holds, counted without building
// it, so that a configuration can be refused before a run allocates it
// (evaluation's memory estimate).
type Size struct {
	Servers int
	// Nodes are the topology's servers and switches.
	Nodes int
	Pods  int
	// RouteTables is how many distance tables routing between servers
	// builds at most: one per node a server's route ends at (a
	// single-linked server's one neighbour, or the server itself when it
	// has several links, as in BCube), each of Nodes entries
	// (RouteTableBytes).
	RouteTables int
}

// Size counts the spec's cluster as Build would build it; an invalid
// spec is Validate's error.
func (s ClusterSpec) Size() (Size, error) {
	if err := s.Validate(); err != nil {
		return Size{}, err
	}
	switch s.Topology {
	case "flat":
		return Size{Servers: s.N, Nodes: s.N + 1, Pods: 1, RouteTables: 1}, nil
	case "fattree":
		// (k/2)² core switches, one fused aggregation switch and k/2 edge
		// switches of k/2 servers per pod.
		h := s.K / 2
		edges := s.K * h
		return Size{Servers: edges * h, Nodes: edges*h + h*h + s.K + edges, Pods: s.K, RouteTables: edges}, nil
	case "vl2":
		// k/2 intermediate and k aggregation switches, k/4 ToRs of 20
		// servers per pod.
		tors := s.K * (s.K / 4)
		return Size{Servers: 20 * tors, Nodes: 20*tors + s.K/2 + s.K + tors, Pods: s.K, RouteTables: tors}, nil
	default: // bcube, n^(k+1) servers of k+1 ports, k+1 levels of n^k switches
		servers := 1
		for i := 0; i <= s.K; i++ {
			servers *= s.N
		}
		switches := (s.K + 1) * (servers / s.N)
		podSize := 2 * s.N * s.N
		tables := servers
		if s.K == 0 {
			podSize, tables = s.N, 1
		}
		return Size{Servers: servers, Nodes: servers + switches, Pods: (servers + podSize - 1) / podSize, RouteTables: tables}, nil
	}
}

// RouteTableBytes is the size of one destination's distance table over
// nodes nodes: a distance and a next-hop run per node.
func RouteTableBytes(nodes int) int64 {
	return int64(nodes) * int64(unsafe.Sizeof(int32(0))+unsafe.Sizeof(uint32(0)))
}
