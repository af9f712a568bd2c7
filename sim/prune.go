package sim

import (
	"fmt"

	"github.com/schedlab/schedlab/datasets"
)

// Pruner returns the prune predicate of datasets.SplitTrace for clusters
// under cfg: a job is dropped when it does not fit at least one of the
// clusters when empty, by the simulator's own fit test (New with
// PruneOversized), so that every cluster of an experiment sees the same
// jobs (DAS §5.1.2). New also validates every job; an invalid one is an
// error, not a pruned job.
func Pruner(clusters []*Cluster, cfg Config) func(jobs []datasets.Job) ([]bool, error) {
	cfg.PruneOversized = true
	return func(jobs []datasets.Job) ([]bool, error) {
		drop := make([]bool, len(jobs))
		for _, c := range clusters {
			s, err := New(c, jobs, cfg, nil)
			if err != nil {
				return nil, fmt.Errorf("prune on %s: %w", c.Name, err)
			}
			for _, p := range s.Pruned() {
				drop[p.Index] = true
			}
		}
		return drop, nil
	}
}
