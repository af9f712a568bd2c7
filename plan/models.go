package plan

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// ModelDir is the run-directory folder of a learned scheduler's model,
// under the model key the run trains it as (models/<key>/).
func ModelDir(key string) string { return "models/" + key }

// ClusterID names a cluster spec in model directories and stage names:
// fattree-k8-power8, vl2-k4-dgx1, bcube-n4-k2-power8, flat-n8-pai-v100.
func ClusterID(c sim.ClusterSpec) string {
	switch c.Topology {
	case "fattree", "vl2":
		return fmt.Sprintf("%s-k%d-%s", c.Topology, c.K, c.Servers)
	case "bcube":
		return fmt.Sprintf("bcube-n%d-k%d-%s", c.N, c.K, c.Servers)
	}
	return fmt.Sprintf("%s-n%d-%s", c.Topology, c.N, c.Servers)
}

// OpenModel opens the learned scheduler name (canonical) for a cluster
// from modelsDir, a directory laid out as a run's models/: a model per
// cluster in <model>/<cluster id>/, or (trace-source models trained on one
// cluster) one for all in <model>/; replicate r ≥ 1 in that directory's
// replicate-<r>/ (Training.Replica; schedlab train --replicate).
func OpenModel(modelsDir string, name schedulers.Name, cluster sim.ClusterSpec, replicate int, seed uint64) (sim.Scheduler, error) {
	dir, err := modelDir(modelsDir, name, cluster, replicate)
	if err != nil {
		return nil, err
	}
	return schedulers.New(name, schedulers.Options{Model: dir, Seed: seed})
}

// Replicates is how many models of the learned scheduler name for a
// cluster modelsDir holds: replicate 0 and the replicates after it up to
// the first missing one (0: not even replicate 0).
func Replicates(modelsDir string, name schedulers.Name, cluster sim.ClusterSpec) int {
	n := 0
	for n < evaluation.MaxReplicates {
		if _, err := modelDir(modelsDir, name, cluster, n); err != nil {
			break
		}
		n++
	}
	return n
}

// modelDir is where OpenModel finds replicate of name's model for cluster.
func modelDir(modelsDir string, name schedulers.Name, cluster sim.ClusterSpec, replicate int) (string, error) {
	f, v, ok := training.VariantOf(name)
	if !ok {
		return "", fmt.Errorf("%s is not a learned scheduler", name)
	}
	m := string(v.ModelName())
	first := f.Files(v.ModelName())[0]
	rep, which := "", ""
	if replicate > 0 {
		rep, which = fmt.Sprintf("replicate-%d", replicate), fmt.Sprintf(" (replicate %d)", replicate)
	}
	// Replicate 0 says which layout the directory has; the others are
	// in its replicate-<r>/.
	base := filepath.Join(modelsDir, m, ClusterID(cluster))
	if _, err := os.Stat(filepath.Join(base, first)); err != nil && ClusterKey(f) != "" {
		base = filepath.Join(modelsDir, m)
	}
	dir := filepath.Join(base, rep)
	if _, err := os.Stat(filepath.Join(dir, first)); err != nil {
		return "", fmt.Errorf("model of %s for cluster %s%s: %w (train it with schedlab run, whose models/ holds it)", name, ClusterID(cluster), which, err)
	}
	return dir, nil
}
