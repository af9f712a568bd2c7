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
// server requests, how many of each a job has (uniform in [MinWorkers,
// MaxWorkers] and [MinPS, MaxPS]) and how long a job runs standalone
// (uniform in [MinDurationS, MaxDurationS]); Models overrides any of these
// for one model of MARLModels. A zero field keeps the default's
// (DefaultMARLShape for the shape, the shape's for a model's entry), so a
// configuration names only what it changes. docs/marl-operating-point.md
// gives the source of every default.
type MARLShape struct {
	WorkerGPU    float64 `mapstructure:"worker_gpu" yaml:"worker_gpu" json:"worker_gpu,omitzero"`
	WorkerCPU    float64 `mapstructure:"worker_cpu" yaml:"worker_cpu" json:"worker_cpu,omitzero"`
	PSCPU        float64 `mapstructure:"ps_cpu" yaml:"ps_cpu" json:"ps_cpu,omitzero"`
	MemGiB       float64 `mapstructure:"mem_gib" yaml:"mem_gib" json:"mem_gib,omitzero"`
	MinWorkers   int     `mapstructure:"min_workers" yaml:"min_workers" json:"min_workers,omitzero"`
	MaxWorkers   int     `mapstructure:"max_workers" yaml:"max_workers" json:"max_workers,omitzero"`
	MinPS        int     `mapstructure:"min_ps" yaml:"min_ps" json:"min_ps,omitzero"`
	MaxPS        int     `mapstructure:"max_ps" yaml:"max_ps" json:"max_ps,omitzero"`
	MinDurationS float64 `mapstructure:"min_duration_s" yaml:"min_duration_s" json:"min_duration_s,omitzero"`
	MaxDurationS float64 `mapstructure:"max_duration_s" yaml:"max_duration_s" json:"max_duration_s,omitzero"`
	// Models overrides the shape for some of MARLModels, each at most once.
	Models []MARLModelShape `mapstructure:"models" yaml:"models,omitempty" json:"models,omitempty"`
}

// MARLModelShape is one model's shape (MARLShape.Models): its zero fields
// keep the shape's; it has no Models of its own.
type MARLModelShape struct {
	Model string    `mapstructure:"model" yaml:"model" json:"model"`
	Shape MARLShape `mapstructure:"shape" yaml:"shape" json:"shape"`
}

// DefaultMARLShape is the paper's job shape (MARL §II: "Each job demands
// 6 CPU cores and 1 GPU", per worker; §VI-A: workers and parameter servers
// each "randomly set in [1, 4]"), with what the paper does not give chosen
// and said: a parameter server 1 core (as the calibration's §II jobs, so
// that the environment is fitted on the shape it runs), 8 GiB per
// instance, 10 to 130 minutes standalone, every model alike. On power8
// servers (2 × 8 cores, 4 GPUs) two workers fill most of a server's cores:
// the paper's "heavy workloads" (§III), where CPU, not GPUs, is the scarce
// resource. The model type acts through its profile (sim.Profiles: C_J,
// P_J, gradient size), not its shape.
func DefaultMARLShape() MARLShape {
	return MARLShape{WorkerGPU: 1, WorkerCPU: 6, PSCPU: 1, MemGiB: 8, MinWorkers: 1, MaxWorkers: 4, MinPS: 1, MaxPS: 4, MinDurationS: 600, MaxDurationS: 7800}
}

// LegacyMARLShape is the shape schedlab used before the paper's: workers
// of one GPU and 2 cores, parameter servers of 2 cores, "moderate load"
// (GPUs about 18 % busy at the paper's arrival rate, almost no queueing).
func LegacyMARLShape() MARLShape {
	s := DefaultMARLShape()
	s.WorkerCPU, s.PSCPU = 2, 2
	return s
}

// IsZero reports whether s sets nothing (the paper's shape).
func (s MARLShape) IsZero() bool {
	return len(s.Models) == 0 && s.WorkerGPU == 0 && s.WorkerCPU == 0 && s.PSCPU == 0 && s.MemGiB == 0 &&
		s.MinWorkers == 0 && s.MaxWorkers == 0 && s.MinPS == 0 && s.MaxPS == 0 && s.MinDurationS == 0 && s.MaxDurationS == 0
}

// over is s with each zero field taken from d.
func (s MARLShape) over(d MARLShape) MARLShape {
	pick := func(v, dv float64) float64 {
		if v == 0 {
			return dv
		}
		return v
	}
	pickN := func(v, dv int) int {
		if v == 0 {
			return dv
		}
		return v
	}
	return MARLShape{
		WorkerGPU: pick(s.WorkerGPU, d.WorkerGPU), WorkerCPU: pick(s.WorkerCPU, d.WorkerCPU), PSCPU: pick(s.PSCPU, d.PSCPU), MemGiB: pick(s.MemGiB, d.MemGiB),
		MinWorkers: pickN(s.MinWorkers, d.MinWorkers), MaxWorkers: pickN(s.MaxWorkers, d.MaxWorkers), MinPS: pickN(s.MinPS, d.MinPS), MaxPS: pickN(s.MaxPS, d.MaxPS),
		MinDurationS: pick(s.MinDurationS, d.MinDurationS), MaxDurationS: pick(s.MaxDurationS, d.MaxDurationS),
	}
}

// Resolved is s with every zero field taken from DefaultMARLShape, and
// every model's entry completed from the resolved shape.
func (s MARLShape) Resolved() MARLShape {
	r := s.over(DefaultMARLShape())
	for _, m := range s.Models {
		r.Models = append(r.Models, MARLModelShape{m.Model, m.Shape.over(r)})
	}
	return r
}

// For is the shape of a job of model: its entry in Models, else s without
// Models. Call it on a Resolved shape.
func (s MARLShape) For(model string) MARLShape {
	for _, m := range s.Models {
		if m.Model == model {
			return m.Shape
		}
	}
	s.Models = nil
	return s
}

// Validate names the bad field of the resolved shape and of every model's
// entry.
func (s MARLShape) Validate() error {
	r := s.Resolved()
	if err := r.validateOne("job_shape"); err != nil {
		return err
	}
	for i, m := range s.Models {
		key := fmt.Sprintf("job_shape.models[%d]", i)
		switch {
		case !slices.Contains(MARLModels, m.Model):
			return fmt.Errorf("%s.model: unknown model %q (the models are %v)", key, m.Model, MARLModels)
		case slices.IndexFunc(s.Models, func(o MARLModelShape) bool { return o.Model == m.Model }) < i:
			return fmt.Errorf("%s.model: %s given twice", key, m.Model)
		case len(m.Shape.Models) > 0:
			return fmt.Errorf("%s.shape.models: a model's shape has no models", key)
		}
		if err := r.Models[i].Shape.validateOne(key + ".shape"); err != nil {
			return err
		}
	}
	return nil
}

func (s MARLShape) validateOne(key string) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"worker_gpu", s.WorkerGPU}, {"worker_cpu", s.WorkerCPU}, {"ps_cpu", s.PSCPU}, {"mem_gib", s.MemGiB}, {"min_duration_s", s.MinDurationS}, {"max_duration_s", s.MaxDurationS}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s.%s: must be >= 0 and finite, got %v", key, f.name, f.v)
		}
	}
	if s.MaxDurationS < s.MinDurationS {
		return fmt.Errorf("%s.max_duration_s: %v is below min_duration_s %v", key, s.MaxDurationS, s.MinDurationS)
	}
	for _, n := range []struct {
		name     string
		min, max int
	}{{"workers", s.MinWorkers, s.MaxWorkers}, {"ps", s.MinPS, s.MaxPS}} {
		if n.min < 1 || n.max < n.min || n.max > MaxMARLInstances {
			return fmt.Errorf("%s.min_%s, max_%s: want 1 <= min <= max <= %d, got %d, %d", key, n.name, n.name, MaxMARLInstances, n.min, n.max)
		}
	}
	if s.WorkerGPU == 0 && s.WorkerCPU == 0 {
		return fmt.Errorf("%s: a worker requests neither GPUs nor cores", key)
	}
	return nil
}

// MaxMARLInstances bounds the workers (and the parameter servers) of a
// MARL job: §VI-A's jobs have at most 4 of each; 64 leaves room to
// explore and keeps a job within a pod of the k = 20 fat-tree.
const MaxMARLInstances = 64

// GenerateMARL draws a MARL workload from rng: jobs sorted by submission
// time (ties by pod), with ids "<kind>-NNNNNN" in that order. The result
// depends only on w and the stream of rng. A google workload whose
// Arrivals table is shorter than Intervals uses the rows it has.
func GenerateMARL(w MARLWorkload, rng *rand.Rand) ([]Job, error) {
	if w.Pods < 1 || w.Intervals < 1 || !(w.IntervalS > 0) || !(w.JobsPerPod > 0) {
		return nil, fmt.Errorf("datasets: MARL workload needs pods, intervals, interval_s and jobs_per_pod > 0, got %+v", w)
	}
	if err := w.Shape.Validate(); err != nil {
		return nil, fmt.Errorf("datasets: MARL workload: %w", err)
	}
	shape := w.Shape.Resolved()
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
				// The draws keep the order they had before shapes per model
				// (submission, duration, model, workers, PSs), so that a
				// workload of the default shape is the same job for job.
				submit := math.Round((float64(i)+rng.Float64())*w.IntervalS*1000) / 1000
				u := rng.Float64()
				model := MARLModels[rng.IntN(len(MARLModels))]
				ms := shape.For(model)
				j := Job{
					Source:    "synthetic-marl-" + w.Kind,
					SubmitS:   submit,
					DurationS: math.Round(ms.MinDurationS + u*(ms.MaxDurationS-ms.MinDurationS)),
					User:      fmt.Sprintf("pod-%02d", p),
					Status:    "Terminated",
					Model:     model,
					Tasks: []Task{
						{Role: RoleWorker, Instances: int32(ms.MinWorkers + rng.IntN(ms.MaxWorkers-ms.MinWorkers+1)), GPU: ms.WorkerGPU, CPU: ms.WorkerCPU, MemGiB: ms.MemGiB},
						{Role: RolePS, Instances: int32(ms.MinPS + rng.IntN(ms.MaxPS-ms.MinPS+1)), CPU: ms.PSCPU, MemGiB: ms.MemGiB},
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
