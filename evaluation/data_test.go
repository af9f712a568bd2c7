package evaluation

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// TestSplitTraceRefusesEmptyEvaluatedSet: a trace none of whose jobs fits
// the clusters (or an empty one) used to be evaluated as no job at all,
// giving tables of 0.000 beside the paper's rows.
func TestSplitTraceRefusesEmptyEvaluatedSet(t *testing.T) {
	c, err := sim.ClusterSpec{Topology: "flat", N: 2, Servers: "pai-v100"}.Build()
	if err != nil {
		t.Fatal(err)
	}
	job := func(id string, gpus int32) datasets.Job {
		return datasets.Job{JobID: id, SubmitS: 1, DurationS: 60, Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: gpus, GPU: 1}}}
	}
	w := Workload{Name: "w", MaxJobs: 10, TestFraction: 0.5}
	cfg := sim.DefaultConfig()
	// Asks for more GPUs than the cluster holds: pruned.
	huge := []datasets.Job{job("a", 10000), job("b", 10000)}
	for name, jobs := range map[string][]datasets.Job{"all pruned": huge, "empty trace": nil} {
		if _, _, err := splitTrace(jobs, []*sim.Cluster{c}, cfg, w); err == nil || !strings.Contains(err.Error(), "no job to evaluate") {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
	test, info, err := splitTrace([]datasets.Job{job("a", 1), job("b", 1)}, []*sim.Cluster{c}, cfg, w)
	if err != nil || len(test) != 1 || info.Test != 1 {
		t.Errorf("two fitting jobs: %d evaluated (%+v), %v", len(test), info, err)
	}
}
