package evaluation

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

// WorkloadInfo accounts for the jobs of one workload on one cluster and
// seed: where they came from and how many were read, pruned, set aside for
// training and evaluated. Read = Pruned + Beyond + Train + Test for a trace.
type WorkloadInfo struct {
	Cluster  string `parquet:"cluster" json:"cluster"`
	Workload string `parquet:"workload" json:"workload"`
	Seed     int    `parquet:"seed" json:"seed"`
	Source   string `parquet:"source" json:"source"`
	// Read is the number of jobs in the source (file or generator).
	Read int `parquet:"read" json:"read"`
	// Pruned jobs do not fit at least one cluster of the spec when it is
	// empty; they are dropped before the first MaxJobs are taken, so that
	// every cluster sees the same jobs (DAS §5.1.2).
	Pruned int `parquet:"pruned" json:"pruned"`
	// Beyond are fitting jobs after the first MaxJobs, not used.
	Beyond int `parquet:"beyond" json:"beyond"`
	// Train jobs precede the evaluated ones by submission (the learned
	// schedulers' training and validation parts, datasets.Split's Train
	// and Val); Test jobs are simulated.
	Train int `parquet:"train" json:"train"`
	Test  int `parquet:"test" json:"test"`
	// Skipped says why the workload's cells did not run ("" when they did).
	Skipped string `parquet:"skipped" json:"skipped"`
}

// loadTrace reads a trace workload's jobs: the file, or the PAI-like
// generator seeded from (run seed, experiment, workload, replicate).
func loadTrace(ctx context.Context, w Workload, seed uint64, experiment string, rep int) ([]datasets.Job, string, error) {
	if w.JobsFile != "" {
		jobs, err := datasets.ReadParquet[datasets.Job](w.JobsFile)
		if err != nil {
			return nil, "", fmt.Errorf("workload %s: %w", w.Name, err)
		}
		return jobs, traceSource(w.JobsFile), nil
	}
	cfg := datasets.PAILikeConfig{Jobs: w.SyntheticJobs}
	rng := pipeline.Rand(seed, StreamEval, pipeline.Key(experiment), keyWorkload, pipeline.Key(w.Name), pipeline.Index(rep))
	jobs, err := datasets.GeneratePAILikeJobs(ctx, cfg, rng)
	if err != nil {
		return nil, "", fmt.Errorf("workload %s: %w", w.Name, err)
	}
	return jobs, "synthetic-pai", nil
}

// traceSource names the trace a jobs table holds: its schedlab.source
// metadata (pai-sim, elasticflow, synthetic-pai, ...), else the file's
// name.
func traceSource(file string) string {
	if info, err := datasets.InspectTable(file); err == nil && info.Source != "" {
		return info.Source
	}
	return filepath.Base(file)
}

// splitTrace cuts a trace as training does (datasets.SplitTrace), pruning
// the jobs that do not fit every cluster of the spec when empty, and
// returns the Test part: the last TestFraction of the first MaxJobs.
func splitTrace(jobs []datasets.Job, clusters []*sim.Cluster, cfg sim.Config, w Workload) ([]datasets.Job, WorkloadInfo, error) {
	info := WorkloadInfo{Workload: w.Name, Read: len(jobs)}
	sp, err := datasets.SplitTrace(jobs, sim.Pruner(clusters, cfg), datasets.TraceSplit{MaxJobs: w.MaxJobs, TestFraction: w.TestFraction})
	if err != nil {
		return nil, info, fmt.Errorf("workload %s: %w", w.Name, err)
	}
	info.Pruned, info.Beyond = sp.Pruned, sp.Beyond
	info.Train, info.Test = len(sp.Train)+len(sp.Val), len(sp.Test)
	if len(sp.Test) == 0 {
		// Metrics of no job are tables of 0.000 beside the paper's rows.
		return nil, info, fmt.Errorf("workload %s: no job to evaluate: of %d jobs read, %d do not fit every cluster, %d are beyond max_jobs and %d go to training",
			w.Name, info.Read, info.Pruned, info.Beyond, info.Train)
	}
	return sp.Test, info, nil
}

// scaleArrivals returns jobs (sorted by submission) arriving rate times as
// fast: each submission time, measured from the first, divided by rate.
// Rate 0 or 1 returns jobs unchanged.
func scaleArrivals(jobs []datasets.Job, rate float64) []datasets.Job {
	if rate == 0 || rate == 1 || len(jobs) == 0 {
		return jobs
	}
	out := slices.Clone(jobs)
	t0 := jobs[0].SubmitS
	for i := range out {
		out[i].SubmitS = t0 + (out[i].SubmitS-t0)/rate
	}
	return out
}
