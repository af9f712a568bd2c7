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
	// Shape is every job's demands and duration range; the zero value
	// means DefaultMARLShape, the paper's.
	Shape MARLShape
}

// MARLShape is the shape of a MARL job: what each worker and parameter
// server requests and how long a job runs standalone (uniform in
// [MinDurationS, MaxDurationS]). docs/marl-operating-point.md gives the
// source of every default.
type MARLShape struct {
	WorkerGPU    float64 `mapstructure:"worker_gpu" yaml:"worker_gpu" json:"worker_gpu"`
	WorkerCPU    float64 `mapstructure:"worker_cpu" yaml:"worker_cpu" json:"worker_cpu"`
	PSCPU        float64 `mapstructure:"ps_cpu" yaml:"ps_cpu" json:"ps_cpu"`
	MemGiB       float64 `mapstructure:"mem_gib" yaml:"mem_gib" json:"mem_gib"`
	MinDurationS float64 `mapstructure:"min_duration_s" yaml:"min_duration_s" json:"min_duration_s"`
	MaxDurationS float64 `mapstructure:"max_duration_s" yaml:"max_duration_s" json:"max_duration_s"`
}

// DefaultMARLShape is the paper's job shape (MARL §II: "Each job demands
// 6 CPU cores and 1 GPU", per worker), with what the paper does not give
// chosen and said: a parameter server 1 core (as the calibration's §II
// jobs, so that the environment is fitted on the shape it runs), 8 GiB per
// instance, 10 to 130 minutes standalone. On power8 servers (2 × 8 cores,
// 4 GPUs) two workers fill most of a server's cores: the paper's "heavy
// workloads" (§III), where CPU, not GPUs, is the scarce resource.
func DefaultMARLShape() MARLShape {
	return MARLShape{WorkerGPU: 1, WorkerCPU: 6, PSCPU: 1, MemGiB: 8, MinDurationS: 600, MaxDurationS: 7800}
}

// LegacyMARLShape is the shape schedlab used before the paper's: workers
// of one GPU and 2 cores, parameter servers of 2 cores, "moderate load"
// (GPUs about 18 % busy at the paper's arrival rate, almost no queueing).
func LegacyMARLShape() MARLShape {
	return MARLShape{WorkerGPU: 1, WorkerCPU: 2, PSCPU: 2, MemGiB: 8, MinDurationS: 600, MaxDurationS: 7800}
}

// Validate names the bad field.
func (s MARLShape) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"worker_gpu", s.WorkerGPU}, {"worker_cpu", s.WorkerCPU}, {"ps_cpu", s.PSCPU}, {"mem_gib", s.MemGiB}, {"min_duration_s", s.MinDurationS}, {"max_duration_s", s.MaxDurationS}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("job_shape.%s: must be >= 0 and finite, got %v", f.name, f.v)
		}
	}
	if s.MaxDurationS < s.MinDurationS {
		return fmt.Errorf("job_shape.max_duration_s: %v is below min_duration_s %v", s.MaxDurationS, s.MinDurationS)
	}
	if s.WorkerGPU == 0 && s.WorkerCPU == 0 {
		return errors.New("job_shape: a worker requests neither GPUs nor cores")
	}
	return nil
}

// GenerateMARL draws a MARL workload from rng: jobs sorted by submission
// time (ties by pod), with ids "<kind>-NNNNNN" in that order. The result
// depends only on w and the stream of rng. A google workload whose
// Arrivals table is shorter than Intervals uses the rows it has.
func GenerateMARL(w MARLWorkload, rng *rand.Rand) ([]Job, error) {
	if w.Pods < 1 || w.Intervals < 1 || !(w.IntervalS > 0) || !(w.JobsPerPod > 0) {
		return nil, fmt.Errorf("datasets: MARL workload needs pods, intervals, interval_s and jobs_per_pod > 0, got %+v", w)
	}
	shape := w.Shape
	if shape == (MARLShape{}) {
		shape = DefaultMARLShape()
	}
	if err := shape.Validate(); err != nil {
		return nil, fmt.Errorf("datasets: MARL workload: %w", err)
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
					DurationS: math.Round(shape.MinDurationS + rng.Float64()*(shape.MaxDurationS-shape.MinDurationS)),
					User:      fmt.Sprintf("pod-%02d", p),
					Status:    "Terminated",
					Model:     MARLModels[rng.IntN(len(MARLModels))],
					Tasks: []Task{
						{Role: RoleWorker, Instances: int32(1 + rng.IntN(4)), GPU: shape.WorkerGPU, CPU: shape.WorkerCPU, MemGiB: shape.MemGiB},
						{Role: RolePS, Instances: int32(1 + rng.IntN(4)), CPU: shape.PSCPU, MemGiB: shape.MemGiB},
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
