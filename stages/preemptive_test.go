package stages

import (
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/sim"
)

// TestPreemptiveReadsIngestedTraces: each workload of the preemptive
// experiment reads its own source's ingested jobs table, which is an
// input of its stage; a source the run does not ingest leaves its
// workloads without a file (skipped), never on the run's own trace.
func TestPreemptiveReadsIngestedTraces(t *testing.T) {
	cfg := quickConfig()
	cfg.Datasets.Ingest = []IngestSpec{{Source: datasets.SourceElasticFlow, Inputs: []string{"elasticflow"}}, {Source: datasets.SourcePhillyGavel, Inputs: []string{"philly-gavel"}}}
	cfg.Eval.Preemptive = evaluation.PreemptiveConfig{Schedulers: []string{"fifo-firstfit", "tiresias-las"}, Traces: evaluation.PreemptiveTraces,
		MaxJobs: 100, RestartS: []float64{0, 30}, Clusters: []evaluation.Cluster{{Name: "small", Spec: sim.ClusterSpec{Topology: "flat", N: 8, Servers: "pai-v100"}}}}
	x, err := cfg.Plan().Experiment(evaluation.Preemptive, "")
	if err != nil {
		t.Fatal(err)
	}
	spec, inputs := x.Spec, x.Inputs
	ef, philly := "datasets/elasticflow/jobs.parquet", "datasets/philly-gavel/jobs.parquet"
	for _, w := range spec.Workloads {
		want := map[string]string{datasets.SourceElasticFlow: ef, datasets.SourcePhillyGavel: philly}[w.Source]
		if w.JobsFile != want || w.SyntheticJobs != 0 {
			t.Errorf("%s: jobs file %q (synthetic %d), want %q", w.Name, w.JobsFile, w.SyntheticJobs, want)
		}
	}
	if !slices.Contains(inputs, ef) || !slices.Contains(inputs, philly) || slices.Contains(inputs, cfg.JobsArtifact()) {
		t.Errorf("inputs %v: want the two ingested tables and not the run's trace", inputs)
	}
	if len(spec.Workloads) != 6 {
		t.Errorf("%d workloads, want 3 traces × 2 restart costs", len(spec.Workloads))
	}
}
