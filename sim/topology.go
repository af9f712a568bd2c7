package sim

import (
	"fmt"
	"slices"
	"sync/atomic"
)

// NodeKind says what a topology node is.
type NodeKind uint8

const (
	NodeServer NodeKind = iota
	NodeSwitch
)

// Node is a vertex of the topology graph: a server or a switch.
type Node struct {
	Kind   NodeKind
	Name   string
	Tier   int // 0 for servers, 1 for the switches next to them, upwards
	Server int // index into Cluster.Servers for NodeServer, -1 otherwise
}

// Link is a full-duplex link between two nodes: Gbps each way. Flows
// crossing a link in the same direction share that direction's capacity
// equally.
type Link struct {
	A, B int     // node indices, A < B
	Gbps float64 // capacity, Gbit/s
	Tier int     // 0 for server links, upwards
}

// DirectedLink is one direction of a topology link: 2·l carries traffic
// from Links[l].A to Links[l].B, 2·l+1 from B to A. Links are full duplex,
// so the simulator counts and shares capacity per directed link
// (State.LinkFlows is indexed by it).
type DirectedLink int32

// Link is the index of the link in Topology.Links.
func (d DirectedLink) Link() int { return int(d >> 1) }

// Reverse is the other direction of the same link.
func (d DirectedLink) Reverse() DirectedLink { return d ^ 1 }

// Directed is link l crossed from node from (one of its ends).
func (t *Topology) Directed(l, from int) DirectedLink {
	if t.Links[l].A == from {
		return DirectedLink(2 * l)
	}
	return DirectedLink(2*l + 1)
}

// Ends are the nodes d leaves and enters.
func (t *Topology) Ends(d DirectedLink) (from, to int) {
	l := t.Links[d.Link()]
	if d&1 == 0 {
		return l.A, l.B
	}
	return l.B, l.A
}

// Topology is the graph of servers and switches. Routing is shortest path
// by hop count. Where several shortest paths exist (a fat-tree's core
// switches, VL2's intermediates, BCube's levels), the next hop at each node is
// chosen among the equal-cost ones by a fixed hash of the two endpoints and
// the hop number — deterministic ECMP: the same pair always takes the same
// path, and different pairs spread over the equal-cost links.
type Topology struct {
	Nodes []Node
	Links []Link
	adj   [][]adjEdge // per node, sorted by neighbour index
	// distTo caches, per destination node, its distance table (dist): a
	// table is built once per topology, on first use, instead of once per
	// run (a fat-tree of k = 20 has 2,000 server destinations of 2,320
	// nodes each, which every run used to search again). Filled
	// concurrently by the runs sharing the topology: a table is a pure
	// function of the graph, so a race only builds one twice.
	distTo []atomic.Pointer[distTable]
}

// distTable is a destination's distance table with, per node, where its
// equal-cost next hops towards the destination are in its adjacency list
// when they are one run there (next[u] = lo<<16 | n for adj[u][lo:lo+n];
// 0 when they are not, or u has none): route then picks the hash's hop
// by index. A fat-tree's aggregation switch has some 110 neighbours, of
// which the core switches, one run, are the candidates, and route's two
// passes over them were most of its cost.
type distTable struct {
	dist []int32
	next []uint32
}

type adjEdge struct {
	to   int32
	link int32
	dl   DirectedLink // link crossed from the list's node to to (Directed, without a visit to Links)
}

func (t *Topology) addNode(n Node) int {
	t.Nodes = append(t.Nodes, n)
	return len(t.Nodes) - 1
}

func (t *Topology) addLink(a, b int, gbps float64, tier int) {
	if a > b {
		a, b = b, a
	}
	t.Links = append(t.Links, Link{A: a, B: b, Gbps: gbps, Tier: tier})
}

// finish builds the adjacency lists. Call once after all nodes and links are
// added.
func (t *Topology) finish() error {
	t.adj = make([][]adjEdge, len(t.Nodes))
	t.distTo = make([]atomic.Pointer[distTable], len(t.Nodes))
	for i, l := range t.Links {
		if l.A < 0 || l.B >= len(t.Nodes) || l.A == l.B {
			return fmt.Errorf("sim: link %d joins invalid nodes %d and %d", i, l.A, l.B)
		}
		if !(l.Gbps > 0) {
			return fmt.Errorf("sim: link %d (%s–%s) has capacity %v Gbit/s, want > 0", i, t.Nodes[l.A].Name, t.Nodes[l.B].Name, l.Gbps)
		}
		t.adj[l.A] = append(t.adj[l.A], adjEdge{to: int32(l.B), link: int32(i), dl: DirectedLink(2 * i)})
		t.adj[l.B] = append(t.adj[l.B], adjEdge{to: int32(l.A), link: int32(i), dl: DirectedLink(2*i + 1)})
	}
	for _, a := range t.adj {
		sortAdj(a)
	}
	return nil
}

func sortAdj(a []adjEdge) {
	// insertion sort: degrees are small and this keeps the package free of
	// reflection-based sorting in a hot constructor.
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && (a[j].to < a[j-1].to || (a[j].to == a[j-1].to && a[j].link < a[j-1].link)); j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// distCached is dst's distTable from the topology's cache, built on first
// use. The table is shared: callers must not modify it.
func (t *Topology) distCached(dst int) *distTable {
	if d := t.distTo[dst].Load(); d != nil {
		return d
	}
	d := t.table(dst)
	t.distTo[dst].Store(d)
	return d
}

// table builds dst's distTable.
func (t *Topology) table(dst int) *distTable {
	dist := t.dist(dst)
	next := make([]uint32, len(dist))
	for u, adj := range t.adj {
		want := dist[u] - 1
		if dist[u] <= 0 || len(adj) >= 1<<16 {
			continue
		}
		lo, n, runs, prev := 0, 0, 0, false
		for i, e := range adj {
			c := dist[e.to] == want
			if c {
				if !prev {
					runs++
					lo = i
				}
				n++
			}
			prev = c
		}
		if runs == 1 {
			next[u] = uint32(lo)<<16 | uint32(n)
		}
	}
	return &distTable{dist: dist, next: next}
}

// dist returns every node's hop distance to dst (−1 when unreachable).
func (t *Topology) dist(dst int) []int32 {
	d := make([]int32, len(t.Nodes))
	for i := range d {
		d[i] = -1
	}
	d[dst] = 0
	// Every node enters the queue at most once: one allocation, read by
	// a moving head (a k = 20 fat-tree builds 320 of these tables).
	queue := make([]int32, 1, len(t.Nodes))
	queue[0] = int32(dst)
	for head := 0; head < len(queue); head++ {
		u := queue[head]
		for _, e := range t.adj[u] {
			if d[e.to] < 0 {
				d[e.to] = d[u] + 1
				queue = append(queue, e.to)
			}
		}
	}
	return d
}

// Route appends to dst the links of the route from node a to node b and
// reports whether b is reachable. The route of a node to itself is empty.
// A Topology is read-only once built, so Route is safe for concurrent use;
// distance tables are cached per topology. Cluster.Route gives the
// same route between servers, with the direction each link is crossed in.
func (t *Topology) Route(dst []int32, a, b int) ([]int32, bool) {
	n := len(dst)
	path, ok := t.route(nil, a, b)
	dst = slices.Grow(dst, len(path))[:n]
	for _, dl := range path {
		dst = append(dst, int32(dl.Link()))
	}
	return dst, ok
}

// route walks from a to b down the distance table of b, choosing among
// equal-cost next hops by hash, and appends the directed links it crosses.
// It is the simulator's only router.
//
// A destination with a single link (a server of a fat-tree, VL2 or flat
// cluster) is reached only through its one neighbour w, so its distance
// table is w's plus one everywhere but at itself: the walk follows w's
// table to w (the same equal-cost candidates at every node, the same
// hashes) and then takes the one link. Only switches and multi-homed
// servers (BCube) need tables of their own: 320 instead of 2,320 for a
// k = 20 fat-tree.
func (t *Topology) route(dst []DirectedLink, a, b int) ([]DirectedLink, bool) {
	g := b
	if len(t.adj[b]) == 1 && a != b {
		g = int(t.adj[b][0].to)
	}
	tab := t.distCached(g)
	dist := tab.dist
	if dist[a] < 0 {
		return dst, false
	}
	h := mix(uint64(a)<<32 | uint64(b))
	u, hop := a, uint64(0)
	for ; u != g; hop++ {
		adj := t.adj[u]
		if run := tab.next[u]; run != 0 {
			// The candidates are adj[lo:lo+n], in adjacency order.
			lo, n := int(run>>16), uint64(run&0xffff)
			e := adj[lo+int(mix(h+hop)%n)]
			dst = append(dst, e.dl)
			u = int(e.to)
			continue
		}
		// The equal-cost next hops in adjacency order, then the hash's
		// pick among them: counted, then the pick found by a second pass
		// (no list of them to build and clear per hop).
		want := dist[u] - 1
		n := 0
		for _, e := range adj {
			if dist[e.to] == want {
				n++
			}
		}
		pick := int(mix(h+hop) % uint64(n))
		var e adjEdge
		for _, x := range adj {
			if dist[x.to] == want {
				if pick == 0 {
					e = x
					break
				}
				pick--
			}
		}
		dst = append(dst, e.dl)
		u = int(e.to)
	}
	if g != b {
		dst = append(dst, t.adj[b][0].dl.Reverse()) // g to b
	}
	return dst, true
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// disconnected reports the first server node not reachable from the first
// server, or -1 when all are reachable.
func (t *Topology) disconnected() int {
	first := -1
	for i, n := range t.Nodes {
		if n.Kind == NodeServer {
			first = i
			break
		}
	}
	if first < 0 {
		return -1
	}
	seen := make([]bool, len(t.Nodes))
	seen[first] = true
	queue := []int32{int32(first)}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, e := range t.adj[u] {
			if !seen[e.to] {
				seen[e.to] = true
				queue = append(queue, e.to)
			}
		}
	}
	for i, n := range t.Nodes {
		if n.Kind == NodeServer && !seen[i] {
			return i
		}
	}
	return -1
}
