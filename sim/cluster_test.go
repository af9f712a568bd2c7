package sim_test

import (
	"errors"
	"testing"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

func countSwitches(c *sim.Cluster, tier int) int {
	n := 0
	for _, nd := range c.Topology.Nodes {
		if nd.Kind == sim.NodeSwitch && nd.Tier == tier {
			n++
		}
	}
	return n
}

func TestTopologyCounts(t *testing.T) {
	tests := []struct {
		name                 string
		spec                 sim.ClusterSpec
		servers, pods, gpus  int
		topTier, topSwitches int
		perPod               int
		links                int
	}{
		// Fat-tree k=20: 20 pods, (k/2)²=100 cores, (k/2)² = 100 servers per
		// pod; links: servers 2000 + edge–agg 200 + agg–core 20·100.
		{"fattree-20", sim.ClusterSpec{Topology: "fattree", K: 20, Servers: "power8"}, 2000, 20, 8000, 3, 100, 100, 2000 + 200 + 2000},
		{"fattree-4", sim.ClusterSpec{Topology: "fattree", K: 4, Servers: "dgx1"}, 16, 4, 128, 3, 4, 4, 16 + 8 + 16},
		// BCube(6,3): 6^4 = 1296 servers, 4 levels of 6^3 = 216 switches,
		// 4 links per server; 18 pods of two BCube_1 (72 servers).
		{"bcube-6-3", sim.ClusterSpec{Topology: "bcube", N: 6, K: 3, Servers: "power8"}, 1296, 18, 5184, 4, 216, 72, 1296 * 4},
		// VL2 k=20: k²/4 = 100 ToRs × 20 servers, k/2 = 10 intermediates,
		// 20 pods of 5 ToRs; links: 2000 + 2·100 + 20·10.
		{"vl2-20", sim.ClusterSpec{Topology: "vl2", K: 20, Servers: "hetero-cpu"}, 2000, 20, 12000, 3, 10, 100, 2000 + 200 + 200},
		{"large", sim.ClusterSpec{Topology: "flat", N: 32, Servers: "pai-v100"}, 32, 1, 256, 1, 1, 32, 32},
		// mixed: per 5 servers 1 small (2 GPUs) + 2 power8 (4) + 2 dgx1 (8).
		{"mixed-fattree-20", sim.ClusterSpec{Topology: "fattree", K: 20, Servers: "mixed"}, 2000, 20, 400 * (2 + 8 + 16), 3, 100, 100, 4200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.spec.Build()
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Servers) != tc.servers || c.Pods != tc.pods || int(c.TotalGPU()) != tc.gpus {
				t.Errorf("servers %d pods %d gpus %g; want %d %d %d", len(c.Servers), c.Pods, c.TotalGPU(), tc.servers, tc.pods, tc.gpus)
			}
			if got := countSwitches(c, tc.topTier); got != tc.topSwitches {
				t.Errorf("tier-%d switches = %d, want %d", tc.topTier, got, tc.topSwitches)
			}
			if got := len(c.Topology.Links); got != tc.links {
				t.Errorf("links = %d, want %d", got, tc.links)
			}
			perPod := make([]int, c.Pods)
			for _, s := range c.Servers {
				perPod[s.Pod]++
			}
			for p, n := range perPod {
				if n != tc.perPod {
					t.Errorf("pod %d has %d servers, want %d", p, n, tc.perPod)
					break
				}
			}
		})
	}
}

func TestFatTreeRoutes(t *testing.T) {
	c := simtest.FatTree(t, 4, "power8")
	tp := c.Topology
	// Servers 0 and 1 share an edge switch: 2 hops. 0 and 2: same pod, other
	// edge: 4 hops. 0 and 4: other pod: 6 hops through a core.
	for _, tc := range []struct{ a, b, hops int }{{0, 0, 0}, {0, 1, 2}, {0, 2, 4}, {0, 4, 6}, {15, 0, 6}} {
		p, ok := tp.Route(nil, c.Servers[tc.a].Node, c.Servers[tc.b].Node)
		if !ok || len(p) != tc.hops {
			t.Errorf("route %d→%d: %d links (ok=%v), want %d", tc.a, tc.b, len(p), ok, tc.hops)
		}
		q, _ := tp.Route(nil, c.Servers[tc.a].Node, c.Servers[tc.b].Node)
		for i := range p {
			if p[i] != q[i] {
				t.Fatalf("route %d→%d not deterministic", tc.a, tc.b)
			}
		}
	}
	// BCube: servers differing in d digits are d switch hops apart (2d links).
	b, err := sim.BCube(4, 2, "power8")
	if err != nil {
		t.Fatal(err)
	}
	// 0 = 000, 21 = 111 in base 4: 3 digits differ.
	if p, ok := b.Topology.Route(nil, b.Servers[0].Node, b.Servers[21].Node); !ok || len(p) != 6 {
		t.Errorf("bcube route 000→111: %d links, want 6", len(p))
	}
	if p, _ := b.Topology.Route(nil, b.Servers[0].Node, b.Servers[3].Node); len(p) != 2 {
		t.Errorf("bcube route 000→003: %d links, want 2", len(p))
	}
}

func TestClusterBadInput(t *testing.T) {
	c := simtest.Flat(t, 3, "power8")
	// Cut server 2 off: drop its link.
	c.Topology.Links = c.Topology.Links[:2]
	bad := &sim.Cluster{Name: "cut", Servers: c.Servers, Pods: 1, Topology: &sim.Topology{Nodes: c.Topology.Nodes, Links: c.Topology.Links}}
	if err := bad.Validate(); !errors.Is(err, sim.ErrDisconnected) {
		t.Errorf("disconnected server: err = %v, want ErrDisconnected", err)
	}
	for _, spec := range []sim.ClusterSpec{
		{Topology: "fattree", K: 5, Servers: "power8"},
		{Topology: "vl2", K: 6, Servers: "power8"},
		{Topology: "flat", N: 0, Servers: "power8"},
		{Topology: "torus", N: 4, Servers: "power8"},
		{Topology: "flat", N: 4, Servers: "tpu"},
	} {
		if _, err := spec.Build(); err == nil {
			t.Errorf("%+v: no error", spec)
		}
	}
	if _, err := sim.Preset("nope"); err == nil {
		t.Error("unknown preset accepted")
	}
	for _, name := range sim.PresetNames() {
		s, err := sim.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}

func TestProfileOf(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		known    bool
	}{
		{"ResNet-50", "resnet-50", true},
		{"ResNet-50 (batch size 64)", "resnet-50", true},
		{"Inception-bn", "inception-bn", true},
		{"LM (batch size 20)", "lm", true},
		{"", "", false},
		{"mystery", "", false},
	} {
		p := sim.ProfileOf(tc.in)
		if p.Name != tc.want || p.Known != tc.known {
			t.Errorf("ProfileOf(%q) = %q known=%v, want %q %v", tc.in, p.Name, p.Known, tc.want, tc.known)
		}
	}
	for _, m := range sim.MARLModels {
		if !sim.ProfileOf(m).Known {
			t.Errorf("MARL model %s has no profile", m)
		}
	}
}

// TestECMP checks that equal-cost paths are spread: the routes from pod 0
// to pod 1 of a fat-tree use several core switches, and every route has the
// shortest length.
func TestECMP(t *testing.T) {
	c := simtest.FatTree(t, 8, "power8")
	tp := c.Topology
	cores := map[int]bool{}
	for a := 0; a < 16; a++ {
		for b := 16; b < 32; b++ {
			p, ok := tp.Route(nil, c.Servers[a].Node, c.Servers[b].Node)
			if !ok || len(p) != 6 {
				t.Fatalf("route %d→%d has %d links, want 6", a, b, len(p))
			}
			for _, l := range p {
				lk := tp.Links[l]
				for _, n := range []int{lk.A, lk.B} {
					if tp.Nodes[n].Tier == 3 {
						cores[n] = true
					}
				}
			}
		}
	}
	// 256 pairs over 16 cores: a fixed hash leaves none unused with
	// overwhelming probability; require at least half.
	if len(cores) < 8 {
		t.Errorf("inter-pod routes use %d of 16 core switches", len(cores))
	}
}
