package plan

import (
	"testing"

	"github.com/schedlab/schedlab/sim"
)

// TestClusterID pins the names of model directories and stage names: a
// run's models/ is laid out by them, so a change strands trained models.
func TestClusterID(t *testing.T) {
	for _, c := range []struct {
		spec sim.ClusterSpec
		want string
	}{
		{sim.ClusterSpec{Topology: "fattree", K: 8, Servers: "power8"}, "fattree-k8-power8"},
		{sim.ClusterSpec{Topology: "vl2", K: 4, Servers: "dgx1"}, "vl2-k4-dgx1"},
		{sim.ClusterSpec{Topology: "bcube", N: 4, K: 2, Servers: "power8"}, "bcube-n4-k2-power8"},
		{sim.ClusterSpec{Topology: "flat", N: 8, Servers: "pai-v100"}, "flat-n8-pai-v100"},
	} {
		if got := ClusterID(c.spec); got != c.want {
			t.Errorf("ClusterID(%+v) = %q, want %q", c.spec, got, c.want)
		}
	}
	if got := ModelDir("marl-device/fattree-k8-power8"); got != "models/marl-device/fattree-k8-power8" {
		t.Errorf("ModelDir = %q", got)
	}
}

func TestOpenModelRefuses(t *testing.T) {
	cluster := sim.ClusterSpec{Topology: "flat", N: 8, Servers: "pai-v100"}
	if _, err := OpenModel(t.TempDir(), "fifo-firstfit", cluster, 1); err == nil {
		t.Error("a heuristic opened as a learned model")
	}
}
