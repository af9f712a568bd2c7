package marl

import (
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/nn"
)

// Edge features of both graphs (DESIGN.md §5: bandwidth, load, tier).
const edgeFeatures = 3

// Scales that bring features to O(1).
const (
	gbpsScale  = 100 // Gbit/s
	flowScale  = 4   // concurrent flows on a link direction
	tierScale  = 4
	gpuScale   = 4 // GPUs
	cpuScale   = 16
	memScale   = 256 // GiB
	countScale = 4   // workers or PS of one job on one node
)

// candidate is a node the policy can place a task on: a GPU group
// (server, socket) at device level, a whole server (socket −1) at server
// level.
type candidate struct {
	server, socket int
}

// edgeKind says where an inner-graph edge's load comes from.
type edgeKind uint8

const (
	edgePCIe edgeKind = iota // GPU group – CPU: PCIe traffic of the socket
	edgeQPI                  // CPU – CPU: no load modelled
	edgeNet                  // a topology link: flows crossing it the edge's way
)

// edgeInfo is the static description of one directed edge.
type edgeInfo struct {
	kind   edgeKind
	gbps   float64
	bw     float64          // bandwidthFeature(gbps), computed once
	tier   float64          // 0 inside a server, topology tier + 1 for links
	dl     sim.DirectedLink // edgeNet: the topology link crossed from the edge's source end
	server int              // edgePCIe
	socket int              // edgePCIe
}

// reversed is e seen from its other end.
func (e edgeInfo) reversed() edgeInfo {
	if e.kind == edgeNet {
		e.dl = e.dl.Reverse()
	}
	return e
}

// partition is the inner graph of one scheduler (DESIGN.md §5, MARL paper
// §IV-A). Node order: the candidates (GPU groups or servers) first, so
// rows 0..M−1 of an embedding are the action targets, then CPU nodes
// (device level), then the switches the partition owns. Every link is two
// directed edges.
type partition struct {
	servers []int
	cands   []candidate
	srvPos  []int             // per candidate, its server's position in servers
	candOf  map[candidate]int // (server, socket) → candidate index; socket −1 at server level
	nodes   int
	graph   *nn.Graph
	edges   []edgeInfo
	links   []int // topology links its edges stand for, ascending
	// efBase holds the edges' features with a load of 0, loaded the
	// edges whose load varies (PCIe and network links).
	efBase []float64
	loaded []int
}

// interGraph joins the schedulers (nodes 0..P−1) and the switches no
// single partition owns (nodes P..); links between them are aggregated:
// an edge (scheduler p, switch s) carries the summed capacity of every
// topology link from a node of p to s, and the flows crossing them from p's
// side to s (the edge (s, p) those crossing the other way).
type interGraph struct {
	nodes    int
	graph    *nn.Graph
	gbps     []float64
	bw       []float64 // bandwidthFeature(gbps), computed once
	tier     []float64
	links    [][]sim.DirectedLink // per directed edge, the topology links it aggregates, crossed the edge's way
	linkIDs  []int                // every topology link its edges stand for, ascending
	edgesOf  [][]int              // per sim.DirectedLink, the edges whose links hold it
	switches []int                // topology nodes of the shared switches
}

// clusterGraph holds every partition of a cluster under one variant.
type clusterGraph struct {
	cluster *sim.Cluster
	parts   []*partition
	inter   *interGraph   // nil for the single-agent variant
	partOf  []int         // per server: its scheduler
	candIdx [][]candIndex // per server, per socket: (scheduler, candidate)
}

type candIndex struct{ part, cand int }

// neighbour is a topology node's link to another node.
type neighbour struct{ to, link int }

// buildGraphs cuts the cluster into the variant's partitions: one per pod,
// or one for the whole cluster (single). A switch belongs to a partition
// when every lower-tier neighbour (server or switch) belongs to it; other
// switches are shared and become nodes of the inter-scheduler graph. In a
// fat-tree that makes edge and (fused) aggregation switches local and core
// switches shared, as in the paper; in VL2 the aggregation switches, which
// are dual-homed to the ToRs of two pods, are shared too; in BCube the
// switches of levels that join BCube_1 blocks of different pods are shared.
func buildGraphs(c *sim.Cluster, variant string) (*clusterGraph, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	top := c.Topology
	parts := c.Pods
	if variant == VariantSingle {
		parts = 1
	}
	cg := &clusterGraph{cluster: c, partOf: make([]int, len(c.Servers))}
	for i := range c.Servers {
		if parts > 1 {
			cg.partOf[i] = c.Servers[i].Pod
		}
	}
	// Owner of every topology node: a partition, or −1 for shared.
	owner := make([]int, len(top.Nodes))
	maxTier := 0
	for _, n := range top.Nodes {
		maxTier = max(maxTier, n.Tier)
	}
	adj := make([][]neighbour, len(top.Nodes))
	for li, l := range top.Links {
		adj[l.A] = append(adj[l.A], neighbour{l.B, li})
		adj[l.B] = append(adj[l.B], neighbour{l.A, li})
	}
	for i, n := range top.Nodes {
		if n.Kind == sim.NodeServer {
			owner[i] = cg.partOf[n.Server]
		}
	}
	for tier := 1; tier <= maxTier; tier++ {
		for i, n := range top.Nodes {
			if n.Kind != sim.NodeSwitch || n.Tier != tier {
				continue
			}
			o := -2 // no lower neighbour yet
			for _, e := range adj[i] {
				m := top.Nodes[e.to]
				if m.Kind == sim.NodeSwitch && m.Tier >= tier {
					continue
				}
				switch {
				case owner[e.to] < 0:
					o = -1
				case o == -2:
					o = owner[e.to]
				case o != owner[e.to]:
					o = -1
				}
			}
			if o == -2 || parts == 1 {
				o = 0
				if parts > 1 {
					o = -1
				}
			}
			owner[i] = o
		}
	}

	cg.candIdx = make([][]candIndex, len(c.Servers))
	for p := 0; p < parts; p++ {
		cg.parts = append(cg.parts, &partition{candOf: map[candidate]int{}})
	}
	for s := range c.Servers {
		cg.parts[cg.partOf[s]].servers = append(cg.parts[cg.partOf[s]].servers, s)
	}
	for p, pt := range cg.parts {
		if len(pt.servers) == 0 {
			return nil, fmt.Errorf("marl: partition %d of %s has no servers", p, c.Name)
		}
		if err := pt.build(c, variant, p, owner, adj, cg.candIdx); err != nil {
			return nil, err
		}
	}
	if variant != VariantSingle {
		// Also with one pod (a small BCube): a graph of one scheduler
		// keeps the network's shapes those of the variant.
		cg.inter = buildInter(c, parts, owner)
	}
	return cg, nil
}

// build lays out the nodes and edges of partition p.
func (pt *partition) build(c *sim.Cluster, variant string, p int, owner []int, adj [][]neighbour, candIdx [][]candIndex) error {
	top := c.Topology
	device := variant != VariantServer
	// Candidates.
	for pos, s := range pt.servers {
		socks := c.Servers[s].Kind.Sockets
		candIdx[s] = make([]candIndex, len(socks))
		if device {
			for k := range socks {
				candIdx[s][k] = candIndex{p, len(pt.cands)}
				pt.candOf[candidate{s, k}] = len(pt.cands)
				pt.cands = append(pt.cands, candidate{s, k})
				pt.srvPos = append(pt.srvPos, pos)
			}
		} else {
			for k := range socks {
				candIdx[s][k] = candIndex{p, len(pt.cands)}
			}
			pt.candOf[candidate{s, -1}] = len(pt.cands)
			pt.cands = append(pt.cands, candidate{s, -1})
			pt.srvPos = append(pt.srvPos, pos)
		}
	}
	next := len(pt.cands)
	// CPU nodes (device level): one per socket.
	cpu := map[candidate]int{}
	if device {
		for _, s := range pt.servers {
			for k := range c.Servers[s].Kind.Sockets {
				cpu[candidate{s, k}] = next
				next++
			}
		}
	}
	// Switches owned by the partition, in topology order.
	local := map[int]int{}
	for i, n := range top.Nodes {
		if n.Kind == sim.NodeSwitch && owner[i] == p {
			local[i] = next
			next++
		}
	}
	pt.nodes = next
	var src, dst []int
	add := func(a, b int, e edgeInfo) {
		e.bw = bandwidthFeature(e.gbps)
		src = append(src, a, b)
		dst = append(dst, b, a)
		pt.edges = append(pt.edges, e, e.reversed())
		if e.kind == edgeNet {
			pt.links = append(pt.links, e.dl.Link())
		}
	}
	// The server's ends of its network links: its CPU nodes (the NIC is
	// shared by both sockets) or the server node itself.
	ends := func(s int) []int {
		if !device {
			return []int{pt.candOf[candidate{s, -1}]}
		}
		var out []int
		for k := range c.Servers[s].Kind.Sockets {
			out = append(out, cpu[candidate{s, k}])
		}
		return out
	}
	for _, s := range pt.servers {
		kind := c.Servers[s].Kind
		if device {
			for k, so := range kind.Sockets {
				add(pt.candOf[candidate{s, k}], cpu[candidate{s, k}], edgeInfo{kind: edgePCIe, gbps: so.PCIeGbps, server: s, socket: k})
			}
			for a := 0; a < len(kind.Sockets); a++ {
				for b := a + 1; b < len(kind.Sockets); b++ {
					add(cpu[candidate{s, a}], cpu[candidate{s, b}], edgeInfo{kind: edgeQPI, gbps: kind.QPIGbps})
				}
			}
		}
		node := c.Servers[s].Node
		for _, e := range adj[node] {
			sw, ok := local[e.to]
			if !ok {
				continue
			}
			l := top.Links[e.link]
			for _, u := range ends(s) {
				add(u, sw, edgeInfo{kind: edgeNet, gbps: l.Gbps, tier: float64(l.Tier + 1), dl: top.Directed(e.link, node)})
			}
		}
	}
	for li, l := range top.Links {
		a, okA := local[l.A]
		b, okB := local[l.B]
		if okA && okB {
			add(a, b, edgeInfo{kind: edgeNet, gbps: l.Gbps, tier: float64(l.Tier + 1), dl: top.Directed(li, l.A)})
		}
	}
	slices.Sort(pt.links)
	pt.links = slices.Compact(pt.links)
	g, err := nn.NewGraph(pt.nodes, src, dst)
	if err != nil {
		return fmt.Errorf("marl: partition %d: %w", p, err)
	}
	pt.graph = g
	// The features that never change, once: the observations copy them
	// and fill in the loads (view.edgeFeatures).
	pt.efBase = make([]float64, len(pt.edges)*edgeFeatures)
	for i, e := range pt.edges {
		pt.efBase[i*edgeFeatures], pt.efBase[i*edgeFeatures+2] = e.bw, e.tier/tierScale
		if e.kind == edgePCIe || e.kind == edgeNet {
			pt.loaded = append(pt.loaded, i)
		}
	}
	return nil
}

// buildInter builds the inter-scheduler graph: schedulers, shared switches
// and the aggregated links between them.
func buildInter(c *sim.Cluster, parts int, owner []int) *interGraph {
	top := c.Topology
	ig := &interGraph{}
	node := map[int]int{} // topology node of a shared switch → inter node
	for i, n := range top.Nodes {
		if n.Kind == sim.NodeSwitch && owner[i] < 0 {
			node[i] = parts + len(ig.switches)
			ig.switches = append(ig.switches, i)
		}
	}
	ig.nodes = parts + len(ig.switches)
	// Inter-graph end of a topology node: its partition or its own node.
	end := func(i int) int {
		if owner[i] >= 0 {
			return owner[i]
		}
		return node[i]
	}
	type pair struct{ a, b int }
	agg := map[pair]int{} // undirected pair → index in ig.links/2
	var order []pair
	for li, l := range top.Links {
		a, b := end(l.A), end(l.B)
		if a == b {
			continue
		}
		dl := top.Directed(li, l.A) // crossed from a to b
		if a > b {
			a, b = b, a
			dl = dl.Reverse()
		}
		k, ok := agg[pair{a, b}]
		if !ok {
			k = len(order)
			agg[pair{a, b}] = k
			order = append(order, pair{a, b})
			ig.gbps = append(ig.gbps, 0)
			ig.tier = append(ig.tier, 0)
			ig.links = append(ig.links, nil)
		}
		ig.gbps[k] += l.Gbps
		ig.tier[k] = max(ig.tier[k], float64(l.Tier+1))
		ig.links[k] = append(ig.links[k], dl)
	}
	var src, dst []int
	gbps, tier, links := ig.gbps, ig.tier, ig.links
	ig.gbps, ig.tier, ig.links = nil, nil, nil
	for k, p := range order {
		src = append(src, p.a, p.b)
		dst = append(dst, p.b, p.a)
		back := make([]sim.DirectedLink, len(links[k]))
		for i, dl := range links[k] {
			back[i] = dl.Reverse()
		}
		ig.gbps = append(ig.gbps, gbps[k], gbps[k])
		ig.bw = append(ig.bw, bandwidthFeature(gbps[k]), bandwidthFeature(gbps[k]))
		ig.tier = append(ig.tier, tier[k], tier[k])
		ig.links = append(ig.links, links[k], back)
		for _, dl := range links[k] {
			ig.linkIDs = append(ig.linkIDs, dl.Link())
		}
	}
	slices.Sort(ig.linkIDs)
	ig.linkIDs = slices.Compact(ig.linkIDs)
	ig.edgesOf = make([][]int, 2*len(c.Topology.Links))
	for k, ls := range ig.links {
		for _, dl := range ls {
			if es := ig.edgesOf[dl]; len(es) == 0 || es[len(es)-1] != k {
				ig.edgesOf[dl] = append(es, k)
			}
		}
	}
	g, err := nn.NewGraph(ig.nodes, src, dst)
	if err != nil {
		panic("marl: inter-scheduler graph: " + err.Error()) // indices are ours
	}
	ig.graph = g
	return ig
}
