package sim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/schedlab/schedlab/datasets"
)

// Socket is one CPU socket of a server with its GPU group; the GPUs talk to
// the socket over one PCIe link.
type Socket struct {
	Cores    float64
	GPUs     float64
	PCIeGbps float64
}

// ServerKind describes one server architecture (DESIGN.md §4).
type ServerKind struct {
	Name    string
	Sockets []Socket
	MemGiB  float64
	QPIGbps float64 // inter-socket link
	NICGbps float64 // server uplink in flat clusters; tiered topologies set their own
}

// GPU, CPU are the server totals.
func (k ServerKind) GPU() float64 {
	var s float64
	for _, x := range k.Sockets {
		s += x.GPUs
	}
	return s
}

// CPU is the total number of cores.
func (k ServerKind) CPU() float64 {
	var s float64
	for _, x := range k.Sockets {
		s += x.Cores
	}
	return s
}

// Server kinds. Sources: power8, dgx1, hetero-cpu and the 1-socket 8-core
// 2-GPU server from the MARL paper §V (Server Architecture, Fig. 8); pai-v100
// from the PAI v2020 machine spec (8 V100, 96 cores, 512 GB) and DAS §5.1.3.
// Memory sizes of the MARL servers and the NIC speeds are not given by the
// papers: the values below are assumptions (IBM Power8 S822LC ships with
// 256 GiB; 25 Gbit/s is Alibaba Cloud's V100 instance bandwidth class).
var (
	KindPower8    = ServerKind{Name: "power8", Sockets: []Socket{{8, 2, 128}, {8, 2, 128}}, MemGiB: 256, QPIGbps: 300, NICGbps: 10}
	KindDGX1      = ServerKind{Name: "dgx1", Sockets: []Socket{{16, 4, 128}, {16, 4, 128}}, MemGiB: 512, QPIGbps: 300, NICGbps: 10}
	KindHeteroCPU = ServerKind{Name: "hetero-cpu", Sockets: []Socket{{16, 4, 128}, {8, 2, 128}}, MemGiB: 256, QPIGbps: 300, NICGbps: 10}
	KindSmall     = ServerKind{Name: "small", Sockets: []Socket{{8, 2, 128}}, MemGiB: 128, QPIGbps: 0, NICGbps: 10}
	KindPAIV100   = ServerKind{Name: "pai-v100", Sockets: []Socket{{48, 4, 128}, {48, 4, 128}}, MemGiB: 512, QPIGbps: 300, NICGbps: 25}
)

// KindNames lists the server kind names accepted by ClusterSpec.Servers.
func KindNames() []string {
	return append([]string{"power8", "dgx1", "hetero-cpu", "mixed", "pai-v100"}, gpuKindNames...)
}

// kindAt returns the kind of the i-th server of a partition for the named
// kind. "mixed" repeats the pattern small, power8, power8, dgx1, dgx1 so that
// every block of five servers (and so every pod of a multiple of five) is
// 20 % small, 40 % power8, 40 % dgx1.
func kindAt(name string, i int) (ServerKind, error) {
	if k, ok := gpuKindAt(name, i); ok {
		return k, nil
	}
	switch name {
	case "power8":
		return KindPower8, nil
	case "dgx1":
		return KindDGX1, nil
	case "hetero-cpu":
		return KindHeteroCPU, nil
	case "pai-v100":
		return KindPAIV100, nil
	case "mixed":
		switch i % 5 {
		case 0:
			return KindSmall, nil
		case 1, 2:
			return KindPower8, nil
		default:
			return KindDGX1, nil
		}
	}
	return ServerKind{}, fmt.Errorf("sim: unknown server kind %q (want one of %s)", name, strings.Join(KindNames(), ", "))
}

// Server is one machine of a cluster.
type Server struct {
	ID   int
	Kind ServerKind
	Node int // its node in Cluster.Topology
	Pod  int // partition (one scheduler agent per pod)
}

// Cluster is a set of servers joined by a topology and cut into pods.
type Cluster struct {
	Name     string
	Servers  []Server
	Topology *Topology
	Pods     int
	// GPUSpeed, when set, makes a job's speed follow the GPU types of its
	// servers (gputype.go); nil: every GPU runs alike.
	GPUSpeed GPUSpeed
}

// TotalGPU is the number of GPUs in the cluster.
func (c *Cluster) TotalGPU() float64 {
	var s float64
	for i := range c.Servers {
		s += c.Servers[i].Kind.GPU()
	}
	return s
}

// Capacity is the full resources of server i.
func (c *Cluster) Capacity(i int) Resources {
	k := &c.Servers[i].Kind
	return Resources{GPU: k.GPU(), CPU: k.CPU(), MemGiB: k.MemGiB}
}

// Validate checks that the cluster is usable: at least one server, every
// server a node of the topology, every link of positive capacity, every
// server reachable from every other.
func (c *Cluster) Validate() error {
	if c == nil || len(c.Servers) == 0 {
		return errors.New("sim: cluster has no servers")
	}
	if c.Topology == nil {
		return fmt.Errorf("sim: cluster %q has no topology", c.Name)
	}
	for i, s := range c.Servers {
		if s.ID != i {
			return fmt.Errorf("sim: cluster %q: server %d has id %d", c.Name, i, s.ID)
		}
		if s.Node < 0 || s.Node >= len(c.Topology.Nodes) || c.Topology.Nodes[s.Node].Server != i {
			return fmt.Errorf("sim: cluster %q: server %d is not node %d of the topology", c.Name, i, s.Node)
		}
		if len(s.Kind.Sockets) == 0 {
			return fmt.Errorf("sim: cluster %q: server %d (%s) has no sockets", c.Name, i, s.Kind.Name)
		}
		if s.Pod < 0 || s.Pod >= c.Pods {
			return fmt.Errorf("sim: cluster %q: server %d in pod %d, want [0,%d)", c.Name, i, s.Pod, c.Pods)
		}
	}
	if c.Topology.adj == nil {
		if err := c.Topology.finish(); err != nil {
			return fmt.Errorf("cluster %q: %w", c.Name, err)
		}
	}
	if n := c.Topology.disconnected(); n >= 0 {
		return fmt.Errorf("sim: cluster %q: %w: server %d (node %q) cannot reach server 0",
			c.Name, ErrDisconnected, c.Topology.Nodes[n].Server, c.Topology.Nodes[n].Name)
	}
	return nil
}

// ClusterSpec names a cluster to build. Topology is one of flat, fattree,
// vl2, bcube; N is the server count of flat and the switch port count of
// bcube; K is the fat-tree / VL2 parameter or the BCube level; Servers is a
// server kind name (see KindNames).
type ClusterSpec struct {
	Topology string `mapstructure:"topology" yaml:"topology" json:"topology"`
	N        int    `mapstructure:"n" yaml:"n" json:"n"`
	K        int    `mapstructure:"k" yaml:"k" json:"k"`
	Servers  string `mapstructure:"servers" yaml:"servers" json:"servers"`
}

// Presets of DESIGN.md §4 and §6.
var presets = map[string]ClusterSpec{
	"small":   {Topology: "flat", N: 8, Servers: "pai-v100"},
	"medium":  {Topology: "flat", N: 16, Servers: "pai-v100"},
	"large":   {Topology: "flat", N: 32, Servers: "pai-v100"},
	"fattree": {Topology: "fattree", K: 20, Servers: "power8"},
	"vl2":     {Topology: "vl2", K: 20, Servers: "power8"},
	"bcube":   {Topology: "bcube", N: 6, K: 3, Servers: "power8"},
}

// PresetNames lists the names accepted by Preset, sorted.
func PresetNames() []string { return []string{"bcube", "fattree", "large", "medium", "small", "vl2"} }

// Preset returns a named cluster spec: small, medium, large (DAS: 8, 16, 32
// pai-v100 servers on one switch), fattree (k=20), vl2 (k=20), bcube (n=6,
// k=3), the last three with power8 servers (MARL defaults).
func Preset(name string) (ClusterSpec, error) {
	s, ok := presets[strings.ToLower(name)]
	if !ok {
		return ClusterSpec{}, fmt.Errorf("sim: unknown cluster preset %q (want one of %s)", name, strings.Join(PresetNames(), ", "))
	}
	return s, nil
}

// MaxServers bounds a cluster's servers (2^20, a million): a spec beyond
// it would exhaust memory when built.
const MaxServers = 1 << 20

// Validate checks the spec; messages name the key.
func (s ClusterSpec) Validate() error {
	if _, err := kindAt(s.Servers, 0); err != nil {
		return fmt.Errorf("cluster.servers: %w", err)
	}
	// servers is the server count, saturated at MaxServers+1 so that huge
	// parameters cannot overflow.
	servers := func(factors ...int) int {
		p := 1
		for _, f := range factors {
			if f > MaxServers || p*f > MaxServers {
				return MaxServers + 1
			}
			p *= f
		}
		return p
	}
	switch s.Topology {
	case "flat":
		if s.N < 1 || s.N > MaxServers {
			return fmt.Errorf("cluster.n: must be in [1, %d] for flat, got %d", MaxServers, s.N)
		}
	case "fattree":
		if s.K < 2 || s.K%2 != 0 {
			return fmt.Errorf("cluster.k: must be even and >= 2 for fattree, got %d", s.K)
		}
		if servers(s.K, s.K/2, s.K/2) > MaxServers { // k pods of (k/2)² servers
			return fmt.Errorf("cluster.k: fattree(%d) has more than 2^20 servers", s.K)
		}
	case "vl2":
		if s.K < 4 || s.K%4 != 0 {
			return fmt.Errorf("cluster.k: must be a multiple of 4 and >= 4 for vl2, got %d", s.K)
		}
		if servers(s.K, s.K/4, 20) > MaxServers { // k pods of k/4 ToRs of 20 servers
			return fmt.Errorf("cluster.k: vl2(%d) has more than 2^20 servers", s.K)
		}
	case "bcube":
		if s.N < 2 {
			return fmt.Errorf("cluster.n: must be >= 2 for bcube, got %d", s.N)
		}
		if s.K < 0 {
			return fmt.Errorf("cluster.k: must be >= 0 for bcube, got %d", s.K)
		}
		p := 1
		for i := 0; i <= s.K; i++ { // n^(k+1) servers
			if p = servers(p, s.N); p > MaxServers {
				return fmt.Errorf("cluster.k: bcube(%d,%d) has more than 2^20 servers", s.N, s.K)
			}
		}
	default:
		return fmt.Errorf("cluster.topology: unknown %q (want flat, fattree, vl2 or bcube)", s.Topology)
	}
	return nil
}

// Build constructs the cluster the spec names.
func (s ClusterSpec) Build() (*Cluster, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	switch s.Topology {
	case "flat":
		return Flat(s.N, s.Servers)
	case "fattree":
		return FatTree(s.K, s.Servers)
	case "vl2":
		return VL2(s.K, s.Servers)
	default:
		return BCube(s.N, s.K, s.Servers)
	}
}

type builder struct {
	c *Cluster
	t *Topology
}

func newBuilder(name string, pods int) *builder {
	t := &Topology{}
	return &builder{c: &Cluster{Name: name, Topology: t, Pods: pods}, t: t}
}

// server adds a server in pod of the kind that kindAt gives the name at
// position posInPod, and returns its node.
func (b *builder) server(kind string, pod, posInPod int) (int, error) {
	k, err := kindAt(kind, posInPod)
	if err != nil {
		return 0, err
	}
	return b.serverOf(k, pod), nil
}

// rack adds n servers in pod of the kinds that kindAt gives the name at
// positions first to first+n-1, each linked to switch sw at gbps.
func (b *builder) rack(kind string, pod, first, n, sw int, gbps float64) error {
	for s := first; s < first+n; s++ {
		node, err := b.server(kind, pod, s)
		if err != nil {
			return err
		}
		b.t.addLink(node, sw, gbps, 0)
	}
	return nil
}

// serverOf adds a server of kind k in pod, the next id, and returns its
// node.
func (b *builder) serverOf(k ServerKind, pod int) int {
	id := len(b.c.Servers)
	node := b.t.addNode(Node{Kind: NodeServer, Name: fmt.Sprintf("s%d", id), Server: id})
	b.c.Servers = append(b.c.Servers, Server{ID: id, Kind: k, Node: node, Pod: pod})
	return node
}

func (b *builder) sw(name string, tier int) int {
	return b.t.addNode(Node{Kind: NodeSwitch, Name: name, Tier: tier, Server: -1})
}

func (b *builder) done() (*Cluster, error) {
	if err := b.t.finish(); err != nil {
		return nil, err
	}
	if err := b.c.Validate(); err != nil {
		return nil, err
	}
	return b.c, nil
}

// Flat is n servers of one kind under one top-of-rack switch, each linked at
// its NIC speed; one pod. DAS Small/Medium/Large are Flat(8|16|32, "pai-v100").
func Flat(n int, kind string) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("sim: flat(%d): need at least one server", n)
	}
	b := newBuilder(fmt.Sprintf("flat(%d,%s)", n, kind), 1)
	tor := b.sw("tor", 1)
	for i := 0; i < n; i++ {
		node, err := b.server(kind, 0, i)
		if err != nil {
			return nil, err
		}
		b.t.addLink(node, tor, b.c.Servers[i].Kind.NICGbps, 0)
	}
	return b.done()
}

// Racks is switches racks of perSwitch servers of kind k, each rack under
// its own top-of-rack switch (servers linked at k's NIC speed) and the
// racks under one core switch at 4× that speed; one pod. It is the shape of
// a Tiresias cluster spec (num_switch × num_node_p_switch); with one rack
// the core switch is left out and Racks is Flat of a custom kind.
func Racks(switches, perSwitch int, k ServerKind) (*Cluster, error) {
	if switches < 1 || perSwitch < 1 {
		return nil, fmt.Errorf("sim: racks(%d, %d): need at least one switch and one server per switch", switches, perSwitch)
	}
	if len(k.Sockets) == 0 {
		return nil, fmt.Errorf("sim: racks: server kind %q has no sockets", k.Name)
	}
	b := newBuilder(fmt.Sprintf("racks(%dx%d,%s)", switches, perSwitch, k.Name), 1)
	core := -1
	if switches > 1 {
		core = b.sw("core", 2)
	}
	for r := 0; r < switches; r++ {
		tor := b.sw(fmt.Sprintf("tor%d", r), 1)
		if core >= 0 {
			b.t.addLink(tor, core, 4*k.NICGbps, 1)
		}
		for i := 0; i < perSwitch; i++ {
			b.t.addLink(b.serverOf(k, 0), tor, k.NICGbps, 0)
		}
	}
	return b.done()
}

// FromTiresias builds the cluster a Tiresias cluster spec describes:
// Racks of one-socket servers with the spec's GPUs, cores and memory. The
// spec gives no link speeds (its "count" placement ignores the network);
// the servers get 10 Gbit/s NICs, a free choice.
func FromTiresias(c datasets.TiresiasCluster) (*Cluster, error) {
	k := ServerKind{
		Name:    fmt.Sprintf("tiresias-g%dc%d", c.GPUsPerNode, c.CPUsPerNode),
		Sockets: []Socket{{Cores: float64(c.CPUsPerNode), GPUs: float64(c.GPUsPerNode), PCIeGbps: 128}},
		MemGiB:  c.MemPerNodeGiB, NICGbps: 10,
	}
	cl, err := Racks(c.Switches, c.NodesPerSwitch, k)
	if err != nil {
		return nil, err
	}
	cl.Name = fmt.Sprintf("tiresias(%dx%d,g%d)", c.Switches, c.NodesPerSwitch, c.GPUsPerNode)
	return cl, nil
}

// Fat-tree, VL2 and BCube link speeds per tier, Gbit/s (MARL paper §V).
var (
	FatTreeGbps = [3]float64{10, 20, 40} // server–edge, edge–aggregation, aggregation–core
	VL2Gbps     = [3]float64{1, 10, 10}  // server–ToR, ToR–aggregation, aggregation–intermediate
	BCubeGbps   = [3]float64{10, 20, 40} // level 0, level 1, level ≥ 2
)

// FatTree is a k-ary fat-tree: k pods, each with k/2 edge switches of k/2
// servers and k/2 aggregation switches, and (k/2)² core switches. As in the
// MARL paper the aggregation switches of a pod are fused into one node; the
// fused node's links carry the summed capacity of the parallel links they
// replace (edge–aggregation: k/2 × 20 Gbit/s; each core switch keeps its one
// 40 Gbit/s link per pod). One pod per partition.
func FatTree(k int, kind string) (*Cluster, error) {
	if k < 2 || k%2 != 0 {
		return nil, fmt.Errorf("sim: fattree(%d): k must be even and >= 2", k)
	}
	h := k / 2
	b := newBuilder(fmt.Sprintf("fattree(%d,%s)", k, kind), k)
	cores := make([]int, h*h)
	for i := range cores {
		cores[i] = b.sw(fmt.Sprintf("core%d", i), 3)
	}
	for p := 0; p < k; p++ {
		agg := b.sw(fmt.Sprintf("p%d-agg", p), 2)
		for _, c := range cores {
			b.t.addLink(agg, c, FatTreeGbps[2], 2)
		}
		for e := 0; e < h; e++ {
			edge := b.sw(fmt.Sprintf("p%d-edge%d", p, e), 1)
			b.t.addLink(edge, agg, float64(h)*FatTreeGbps[1], 1)
			if err := b.rack(kind, p, e*h, h, edge, FatTreeGbps[0]); err != nil {
				return nil, err
			}
		}
	}
	return b.done()
}

// VL2 has k aggregation switches, k/2 intermediate switches and k²/4 ToR
// switches of 20 servers (MARL paper §V). Each ToR is dual-homed to the
// aggregation switch of its pod and that switch's pair (pods 2i and 2i+1);
// every aggregation switch links to every intermediate switch. A pod is one
// aggregation switch with its k/4 ToRs, so VL2(20) has 20 pods of 100
// servers.
func VL2(k int, kind string) (*Cluster, error) {
	if k < 4 || k%4 != 0 {
		return nil, fmt.Errorf("sim: vl2(%d): k must be a multiple of 4 and >= 4", k)
	}
	const perToR = 20
	b := newBuilder(fmt.Sprintf("vl2(%d,%s)", k, kind), k)
	inter := make([]int, k/2)
	for i := range inter {
		inter[i] = b.sw(fmt.Sprintf("int%d", i), 3)
	}
	aggs := make([]int, k)
	for a := range aggs {
		aggs[a] = b.sw(fmt.Sprintf("agg%d", a), 2)
		for _, in := range inter {
			b.t.addLink(aggs[a], in, VL2Gbps[2], 2)
		}
	}
	torsPerPod := k / 4
	for p := 0; p < k; p++ {
		for t := 0; t < torsPerPod; t++ {
			tor := b.sw(fmt.Sprintf("p%d-tor%d", p, t), 1)
			b.t.addLink(tor, aggs[p], VL2Gbps[1], 1)
			b.t.addLink(tor, aggs[p^1], VL2Gbps[1], 1)
			if err := b.rack(kind, p, t*perToR, perToR, tor, VL2Gbps[0]); err != nil {
				return nil, err
			}
		}
	}
	return b.done()
}

// BCube is BCube(n,k): n^(k+1) servers with k+1 ports each; at level l there
// are n^k switches of n ports, switch j of level l joining the servers whose
// base-n addresses differ only in digit l. Servers relay traffic, so routes
// may pass through servers. A pod is two BCube_1 (2n² servers), so
// BCube(6,3) has 18 pods; with k = 0 the single BCube_0 is one pod.
func BCube(n, k int, kind string) (*Cluster, error) {
	if n < 2 || k < 0 {
		return nil, fmt.Errorf("sim: bcube(%d,%d): need n >= 2, k >= 0", n, k)
	}
	total := 1
	for i := 0; i <= k; i++ {
		total *= n
		if total > 1<<20 {
			return nil, fmt.Errorf("sim: bcube(%d,%d): more than 2^20 servers", n, k)
		}
	}
	podSize := 2 * n * n
	if k == 0 {
		podSize = n
	}
	pods := (total + podSize - 1) / podSize
	b := newBuilder(fmt.Sprintf("bcube(%d,%d,%s)", n, k, kind), pods)
	nodes := make([]int, total)
	for i := 0; i < total; i++ {
		node, err := b.server(kind, i/podSize, i%podSize)
		if err != nil {
			return nil, err
		}
		nodes[i] = node
	}
	perLevel := total / n
	pow := 1 // n^l
	for l := 0; l <= k; l++ {
		gbps := BCubeGbps[min(l, 2)]
		for j := 0; j < perLevel; j++ {
			sw := b.sw(fmt.Sprintf("l%d-sw%d", l, j), l+1)
			// Switch j of level l: remove digit l from the address. The
			// servers attached have digit l = 0..n-1 and the other digits
			// given by j.
			lo := j % pow
			hi := j / pow
			for d := 0; d < n; d++ {
				addr := hi*pow*n + d*pow + lo
				b.t.addLink(nodes[addr], sw, gbps, l)
			}
		}
		pow *= n
	}
	return b.done()
}
