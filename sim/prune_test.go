package sim_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/sim/simtest"
)

// gpuJob asks for workers × 8 GPUs: 10 workers fit Large (32 servers of 8
// GPUs) but not Small (8 servers).
func gpuJob(id string, workers int32) datasets.Job {
	return datasets.Job{JobID: id, SubmitS: 1, DurationS: 600,
		Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: workers, GPU: 8, CPU: 8, MemGiB: 32}}}
}

func TestPruner(t *testing.T) {
	small, large := simtest.Preset(t, "small"), simtest.Preset(t, "large")
	jobs := []datasets.Job{gpuJob("fits", 1), gpuJob("large-only", 10), gpuJob("none", 100)}
	for _, tc := range []struct {
		name     string
		clusters []*sim.Cluster
		want     []bool
	}{
		{"small", []*sim.Cluster{small}, []bool{false, true, true}},
		{"large", []*sim.Cluster{large}, []bool{false, false, true}},
		{"both: must fit every cluster", []*sim.Cluster{large, small}, []bool{false, true, true}},
		{"no cluster", nil, []bool{false, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sim.Pruner(tc.clusters, sim.DefaultConfig())(jobs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("drop %v, want %v", got, tc.want)
			}
		})
	}
	bad := append(slices.Clone(jobs), gpuJob("bad", 1))
	bad[3].SubmitS = math.NaN()
	if _, err := sim.Pruner([]*sim.Cluster{small}, sim.DefaultConfig())(bad); err == nil || !strings.Contains(err.Error(), "small") {
		t.Errorf("invalid job: got %v, want an error naming the cluster", err)
	}
}
