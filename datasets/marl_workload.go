package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Arrival patterns of the MARL workloads (MARLWorkload.Kind).
const (
	// MARLUniform submits JobsPerPod jobs per pod in every interval.
	MARLUniform = "uniform"
	// MARLPoisson submits Poisson(JobsPerPod) jobs per pod per interval.
	MARLPoisson = "poisson"
	// MARLGoogle follows an arrivals table (interval, start_s, jobs), e.g.
	// the Google 2011 trace's (ReadArrivals).
	MARLGoogle = "google"
)

// MARLModels are the eight model types of the MARL paper's Table I, in the
// table's order; GenerateMARL draws from them by index, so the order is
// part of every generated workload. sim.MARLModels is this list; the
// simulator profiles these names.
var MARLModels = []string{"resnet-50", "vgg-16", "inception-bn", "resnext-110", "dssm", "seq2seq", "ctc", "wlm"}

// MARLWorkload configures GenerateMARL: jobs of the MARL paper's kind
// (§V-A): the model uniform over the eight of Table I, workers and
// parameter servers each uniform in [1, 4], arriving at every pod of the
// cluster interval by interval.
type MARLWorkload struct {
	// Kind is uniform (JobsPerPod jobs per pod per interval), poisson
	// (Poisson(JobsPerPod)) or google (the arrivals pattern).
	Kind string
	// Pods receive jobs independently (one scheduler per pod in the MARL
	// framework); the pod is recorded in Job.User as "pod-NN".
	Pods       int
	JobsPerPod float64
	Intervals  int
	IntervalS  float64
	// Arrivals (google) is the pattern: its first Intervals rows, scaled so
	// that their mean is JobsPerPod per pod. Each pod's count in interval i
	// is Arrivals[i].Jobs × scale rounded stochastically (floor, plus one
	// with the fractional part as probability), keeping the expectation.
	Arrivals []Arrival
}

// Job shape of the MARL workloads. The paper takes resource demands "from
// representative implementations" without giving numbers; these are ours:
// a worker holds one GPU, two cores and 8 GiB, a parameter server two cores
// and 8 GiB, and a job needs 10 to 130 minutes standalone (uniform), so
// that at 15 jobs per pod per interval a pod of the paper's fat-tree
// (k=20, 100 power8 servers) runs at moderate load.
const (
	marlWorkerGPU, marlTaskCPU, marlTaskMemGiB = 1, 2, 8
	marlMinDurationS, marlMaxDurationS         = 600, 7800
)

// GenerateMARL draws a MARL workload from rng: jobs sorted by submission
// time (ties by pod), with ids "<kind>-NNNNNN" in that order. The result
// depends only on w and the stream of rng. A google workload whose
// Arrivals table is shorter than Intervals uses the rows it has.
func GenerateMARL(w MARLWorkload, rng *rand.Rand) ([]Job, error) {
	if w.Pods < 1 || w.Intervals < 1 || !(w.IntervalS > 0) || !(w.JobsPerPod > 0) {
		return nil, fmt.Errorf("datasets: MARL workload needs pods, intervals, interval_s and jobs_per_pod > 0, got %+v", w)
	}
	intervals := w.Intervals
	var scale float64
	switch w.Kind {
	case MARLUniform, MARLPoisson:
	case MARLGoogle:
		intervals = min(intervals, len(w.Arrivals))
		if intervals == 0 {
			return nil, errors.New("datasets: google workload without an arrivals table")
		}
		var sum float64
		for _, a := range w.Arrivals[:intervals] {
			sum += float64(a.Jobs)
		}
		if sum == 0 {
			return nil, errors.New("datasets: arrivals table has no jobs in the intervals used")
		}
		scale = w.JobsPerPod / (sum / float64(intervals))
	default:
		return nil, fmt.Errorf("datasets: unknown MARL workload kind %q", w.Kind)
	}
	pois := distuv.Poisson{Lambda: w.JobsPerPod, Src: rng}
	stochRound := func(x float64) int {
		n := math.Floor(x)
		if rng.Float64() < x-n {
			n++
		}
		return int(n)
	}
	type draft struct {
		job Job
		pod int
	}
	var drafts []draft
	for i := 0; i < intervals; i++ {
		for p := 0; p < w.Pods; p++ {
			var n int
			switch w.Kind {
			case MARLUniform:
				n = stochRound(w.JobsPerPod)
			case MARLPoisson:
				n = int(pois.Rand())
			case MARLGoogle:
				n = stochRound(float64(w.Arrivals[i].Jobs) * scale)
			}
			for k := 0; k < n; k++ {
				j := Job{
					Source:    "synthetic-marl-" + w.Kind,
					SubmitS:   math.Round((float64(i)+rng.Float64())*w.IntervalS*1000) / 1000,
					DurationS: math.Round(marlMinDurationS + rng.Float64()*(marlMaxDurationS-marlMinDurationS)),
					User:      fmt.Sprintf("pod-%02d", p),
					Status:    "Terminated",
					Model:     MARLModels[rng.IntN(len(MARLModels))],
					Tasks: []Task{
						{Role: RoleWorker, Instances: int32(1 + rng.IntN(4)), GPU: marlWorkerGPU, CPU: marlTaskCPU, MemGiB: marlTaskMemGiB},
						{Role: RolePS, Instances: int32(1 + rng.IntN(4)), CPU: marlTaskCPU, MemGiB: marlTaskMemGiB},
					},
				}
				drafts = append(drafts, draft{j, p})
			}
		}
	}
	// Not SortBySubmission: equal times (rounded to the millisecond) from
	// two intervals are ordered by pod, as they always have been.
	slices.SortStableFunc(drafts, func(a, b draft) int {
		if c := cmp.Compare(a.job.SubmitS, b.job.SubmitS); c != 0 {
			return c
		}
		return a.pod - b.pod
	})
	jobs := make([]Job, len(drafts))
	for i, d := range drafts {
		jobs[i] = d.job
		jobs[i].JobID = fmt.Sprintf("%s-%06d", w.Kind, i)
	}
	return jobs, nil
}
