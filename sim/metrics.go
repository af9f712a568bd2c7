package sim

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/internal/stats"
)

// JobResult is one finished job (a row of DESIGN.md §2's results table,
// without the evaluation cell keys).
type JobResult struct {
	Index     int     `parquet:"index" json:"index"` // position in the jobs given to New
	JobID     string  `parquet:"job_id" json:"job_id"`
	SubmitS   float64 `parquet:"submit_s" json:"submit_s"`
	StartS    float64 `parquet:"start_s" json:"start_s"`
	FinishS   float64 `parquet:"finish_s" json:"finish_s"`
	JCTS      float64 `parquet:"jct_s" json:"jct_s"`           // finish − submit
	QueueS    float64 `parquet:"queue_s" json:"queue_s"`       // start − submit
	RunS      float64 `parquet:"run_s" json:"run_s"`           // finish − start
	DurationS float64 `parquet:"duration_s" json:"duration_s"` // standalone duration
	Slowdown  float64 `parquet:"slowdown" json:"slowdown"`     // run / standalone (1 when standalone is 0)
	GPUs      float64 `parquet:"gpus" json:"gpus"`
	FeeUSD    float64 `parquet:"fee_usd" json:"fee_usd"` // price × GPUs × run hours
	Machines  int     `parquet:"machines" json:"machines"`
}

// Metrics summarise a run (DESIGN.md §2's metrics table).
type Metrics struct {
	Jobs         int     `parquet:"jobs" json:"jobs"`
	Pruned       int     `parquet:"pruned" json:"pruned"`
	MeanJCTS     float64 `parquet:"mean_jct_s" json:"mean_jct_s"`
	P50JCTS      float64 `parquet:"p50_jct_s" json:"p50_jct_s"`
	P95JCTS      float64 `parquet:"p95_jct_s" json:"p95_jct_s"`
	MeanFeeUSD   float64 `parquet:"mean_fee_usd" json:"mean_fee_usd"`
	MeanQueueS   float64 `parquet:"mean_queue_s" json:"mean_queue_s"`
	MeanSlowdown float64 `parquet:"mean_slowdown" json:"mean_slowdown"`
	MakespanS    float64 `parquet:"makespan_s" json:"makespan_s"` // last finish − first submit
	GPUUtil      float64 `parquet:"gpu_util" json:"gpu_util"`     // GPU-seconds used / (GPUs × makespan)
	// CPUUtil is core-seconds booked / (cores × makespan); like FloorJCTS
	// a run's Result fills it, ComputeMetrics does not.
	CPUUtil float64 `parquet:"cpu_util" json:"cpu_util"`
	// FloorJCTS is the floor of the jobs (Floor.MeanJCTS): no scheduler's
	// MeanJCTS on them is below it. ComputeMetrics leaves it 0 (it sees
	// results, not the engine); a run's Result fills it.
	FloorJCTS float64 `parquet:"floor_jct_s" json:"floor_jct_s"`
	// FloorBound names the bound that gives FloorJCTS (Floor.Name):
	// "standalone", or a relaxation and its resource ("mean-busy/gpu").
	FloorBound string `parquet:"floor_bound" json:"floor_bound"`
}

// Timing holds the wall-clock figures of a run. They vary from run to run
// and belong in the timings table only, never in results or metrics.
type Timing struct {
	Decisions    int
	JobsPlaced   int
	DecisionS    float64 // total wall time inside Scheduler.Schedule
	MaxDecisionS float64
	WallS        float64 // whole run
}

// Result is everything a run produced.
type Result struct {
	Scheduler string
	Cluster   string
	Jobs      []JobResult // by job index
	Pruned    []PrunedJob
	Metrics   Metrics
	Floor     Floor // the bound behind Metrics.FloorJCTS
	Decisions int
	// Preempted lists, in job index order, the finished jobs that were
	// preempted at least once (none under a non-preemptive scheduler).
	Preempted []Preempted `json:",omitempty"`
	Timing    Timing      // wall clock: not deterministic
}

// Preempted counts how often a job was preempted and resumed.
type Preempted struct {
	Index       int
	Preemptions int
	Resumptions int
}

// ComputeMetrics summarises jobs on a cluster of totalGPU GPUs. Percentiles
// interpolate linearly between order statistics (Hyndman–Fan type 7, as
// numpy's default). Jobs may be any subset of a run (e.g. the test split).
func ComputeMetrics(jobs []JobResult, totalGPU float64) Metrics {
	m := Metrics{Jobs: len(jobs)}
	if len(jobs) == 0 {
		return m
	}
	jct := make([]float64, len(jobs))
	first, last := math.Inf(1), math.Inf(-1)
	var gpuS float64
	for i, j := range jobs {
		jct[i] = j.JCTS
		m.MeanJCTS += j.JCTS
		m.MeanFeeUSD += j.FeeUSD
		m.MeanQueueS += j.QueueS
		m.MeanSlowdown += j.Slowdown
		first = min(first, j.SubmitS)
		last = max(last, j.FinishS)
		gpuS += j.GPUs * j.RunS
	}
	n := float64(len(jobs))
	m.MeanJCTS /= n
	m.MeanFeeUSD /= n
	m.MeanQueueS /= n
	m.MeanSlowdown /= n
	slices.Sort(jct)
	m.P50JCTS = stats.Quantile(jct, 0.5)
	m.P95JCTS = stats.Quantile(jct, 0.95)
	m.MakespanS = last - first
	if m.MakespanS > 0 && totalGPU > 0 {
		m.GPUUtil = gpuS / (totalGPU * m.MakespanS)
	}
	return m
}
