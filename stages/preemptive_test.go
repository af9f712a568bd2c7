package stages

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// TestPreemptiveReadsIngestedTraces: each workload of the preemptive
// experiment reads its own source's ingested jobs table, which is an
// input of its stage; a source the run does not ingest leaves its
// workloads without a file (skipped), never on the run's own trace.
func TestPreemptiveReadsIngestedTraces(t *testing.T) {
	cfg := quickConfig()
	cfg.Datasets.Ingest = []IngestSpec{{Source: datasets.SourceElasticFlow, Inputs: []string{"elasticflow"}}, {Source: datasets.SourcePhillyGavel, Inputs: []string{"philly-gavel"}}}
	evaluation.PreemptiveSection.Set(&cfg.Eval, evaluation.PreemptiveConfig{Schedulers: []string{"fifo-firstfit", "tiresias-las"}, Traces: evaluation.PreemptiveTraces,
		MaxJobs: 100, RestartS: []float64{0, 30}, Clusters: []evaluation.Cluster{{Name: "small", Spec: sim.ClusterSpec{Topology: "flat", N: 8, Servers: "pai-v100"}}}})
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

// TestPreemptiveSchedulerData: the Gittins policy's samples file under
// the data directory is an input of the experiment's stage (its cache key
// covers it) and the path its cells read; without it the row is left out
// and a note says so, as a trace the run does not ingest is. Gavel's
// throughputs are optional: their rows stay either way.
func TestPreemptiveSchedulerData(t *testing.T) {
	dir := t.TempDir()
	samples := filepath.Join(dir, filepath.FromSlash(schedulers.GittinsSamplesFile))
	if err := os.MkdirAll(filepath.Dir(samples), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(samples, []byte("duration\n10\n300\n5000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		dataDir string
		gittins bool
	}{{"with samples", dir, true}, {"empty data dir", t.TempDir(), false}, {"no data dir", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := quickConfig()
			cfg.DataDir = tc.dataDir
			evaluation.PreemptiveSection.Set(&cfg.Eval, evaluation.PreemptiveConfig{Schedulers: []string{"tiresias-las", "dlas-gpu-gittins", "gavel-las"}, Traces: evaluation.PreemptiveTraces,
				MaxJobs: 100, RestartS: []float64{0}, Clusters: []evaluation.Cluster{{Name: "small", Spec: sim.ClusterSpec{Topology: "flat", N: 8, Servers: "pai-v100"}}}})
			p := cfg.Plan()
			if tc.dataDir == "" {
				p.DataDir = "" // ../shared/data may exist
			}
			x, err := p.Experiment(evaluation.Preemptive, "")
			if err != nil {
				t.Fatal(err)
			}
			has := slices.Contains(x.Spec.Schedulers, "dlas-gpu-gittins")
			noted := slices.ContainsFunc(x.Spec.Notes, func(n string) bool {
				return strings.Contains(n, "2D-Gittins") && strings.Contains(n, schedulers.GittinsSamplesFile)
			})
			if has != tc.gittins || noted == tc.gittins || !slices.Contains(x.Spec.Schedulers, "gavel-las") {
				t.Errorf("schedulers %v, notes %q: want the Gittins row %v and a note on it %v", x.Spec.Schedulers, x.Spec.Notes, tc.gittins, !tc.gittins)
			}
			if got := x.Data[schedulers.GittinsSamplesFile]; tc.gittins && (got != samples || !slices.Contains(x.Inputs, samples)) {
				t.Errorf("data %v, inputs %v: want %s as the samples and an input", x.Data, x.Inputs, samples)
			}
			if n := len(x.Spec.Notes); n != map[bool]int{true: 1, false: 2}[tc.gittins] {
				t.Errorf("notes %q: want the learned rows' once, and the Gittins row's where it is left out", x.Spec.Notes)
			}
			if !tc.gittins && len(x.Data) != 0 {
				t.Errorf("data %v: want none", x.Data)
			}
		})
	}
}
