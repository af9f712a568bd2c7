package sim_test

import (
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestClusterSpecSizeBound: specs of more than sim.MaxServers servers are
// refused before anything is built, without overflow on huge parameters
// (issue 16: sizes have upper bounds).
func TestClusterSpecSizeBound(t *testing.T) {
	for _, tc := range []struct {
		spec sim.ClusterSpec
		ok   bool
	}{
		{sim.ClusterSpec{Topology: "fattree", K: 160, Servers: "power8"}, true}, // 160·80² = 1,024,000
		{sim.ClusterSpec{Topology: "fattree", K: 162, Servers: "power8"}, false},
		{sim.ClusterSpec{Topology: "fattree", K: 1 << 62, Servers: "power8"}, false},
		{sim.ClusterSpec{Topology: "vl2", K: 456, Servers: "power8"}, true}, // 456·114·20 = 1,039,680
		{sim.ClusterSpec{Topology: "vl2", K: 460, Servers: "power8"}, false},
		{sim.ClusterSpec{Topology: "bcube", N: 1 << 20, K: 0, Servers: "power8"}, true},
		{sim.ClusterSpec{Topology: "bcube", N: 1<<20 + 1, K: 0, Servers: "power8"}, false},
		{sim.ClusterSpec{Topology: "bcube", N: 1 << 30, K: 1 << 30, Servers: "power8"}, false},
		{sim.ClusterSpec{Topology: "flat", N: 1<<20 + 1, Servers: "pai-v100"}, false},
	} {
		if err := tc.spec.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: Validate = %v, want ok=%v", tc.spec, err, tc.ok)
		}
	}
}
