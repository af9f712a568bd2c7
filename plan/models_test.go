package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	_ "github.com/schedlab/schedlab/training/families"
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
	if _, err := OpenModel(t.TempDir(), "fifo-firstfit", cluster, 0, 1); err == nil {
		t.Error("a heuristic opened as a learned model")
	}
}

// TestReplicates: a models directory holds replicate 0 of a model in
// <model>/<cluster id>/ (or <model>/ for a model trained once for every
// cluster) and replicate r in its replicate-<r>/; Replicates counts them
// up to the first gap, and OpenModel's error names a missing replicate.
func TestReplicates(t *testing.T) {
	small := sim.ClusterSpec{Topology: "flat", N: 8, Servers: "pai-v100"}
	large := sim.ClusterSpec{Topology: "flat", N: 32, Servers: "pai-v100"}
	dir := t.TempDir()
	f, v, ok := training.VariantOf("das")
	if !ok {
		t.Fatal("das is not registered")
	}
	first := f.Files(v.ModelName())[0]
	put := func(parts ...string) {
		p := filepath.Join(append([]string{dir}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, first), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := Replicates(dir, "das", small); n != 0 {
		t.Errorf("empty directory: %d replicates", n)
	}
	put("das", ClusterID(small))
	put("das", ClusterID(small), "replicate-1")
	put("das", ClusterID(small), "replicate-3") // after a gap: not counted
	put("das")                                  // one model for every cluster: large's
	put("das", "replicate-1")
	put("das", "replicate-2")
	if n := Replicates(dir, "das", small); n != 2 {
		t.Errorf("small: %d replicates, want 2", n)
	}
	if n := Replicates(dir, "das", large); n != 3 {
		t.Errorf("large: %d replicates (from das/), want 3", n)
	}
	if _, err := OpenModel(dir, "das", small, 2, 1); err == nil || !strings.Contains(err.Error(), "replicate 2") {
		t.Errorf("opening a missing replicate: %v", err)
	}
}
