package evaluation

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"gonum.org/v1/gonum/stat/distuv"
)

// ReadArrivals reads an arrivals table: a Parquet file (name ending in
// .parquet) of datasets.Arrival rows, as `schedlab ingest --source
// google-2011` writes, or a CSV file whose header names the columns
// interval, start_s and jobs (in any order, other columns ignored). Rows
// are returned in interval order. Errors name the file, line and column.
func ReadArrivals(path string) ([]datasets.Arrival, error) {
	var rows []datasets.Arrival
	if strings.HasSuffix(strings.ToLower(path), ".parquet") {
		var err error
		if rows, err = datasets.ReadParquet[datasets.Arrival](path); err != nil {
			return nil, err
		}
	} else {
		var err error
		if rows, err = readArrivalsCSV(path); err != nil {
			return nil, err
		}
	}
	for i, r := range rows {
		if r.Jobs < 0 {
			return nil, fmt.Errorf("%s: row %d (interval %d): jobs = %d, want >= 0", path, i+1, r.Interval, r.Jobs)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no arrivals rows", path)
	}
	slices.SortStableFunc(rows, func(a, b datasets.Arrival) int { return cmp.Compare(a.Interval, b.Interval) })
	return rows, nil
}

func readArrivalsCSV(path string) ([]datasets.Arrival, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.ToLower(h))] = i
	}
	for _, want := range []string{"interval", "start_s", "jobs"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("%s:1: header lacks column %q (have %s)", path, want, strings.Join(head, ","))
		}
	}
	var rows []datasets.Arrival
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		var a datasets.Arrival
		for _, c := range []struct {
			name string
			dst  any
		}{{"interval", &a.Interval}, {"start_s", &a.StartS}, {"jobs", &a.Jobs}} {
			s := strings.TrimSpace(rec[col[c.name]])
			switch d := c.dst.(type) {
			case *int64:
				*d, err = strconv.ParseInt(s, 10, 64)
			case *float64:
				*d, err = strconv.ParseFloat(s, 64)
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", path, line, c.name, err)
			}
		}
		rows = append(rows, a)
	}
}

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
	Arrivals []datasets.Arrival
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
func GenerateMARL(w MARLWorkload, rng *rand.Rand) ([]datasets.Job, error) {
	if w.Pods < 1 || w.Intervals < 1 || !(w.IntervalS > 0) || !(w.JobsPerPod > 0) {
		return nil, fmt.Errorf("evaluation: MARL workload needs pods, intervals, interval_s and jobs_per_pod > 0, got %+v", w)
	}
	intervals := w.Intervals
	var scale float64
	switch w.Kind {
	case KindUniform, KindPoisson:
	case KindGoogle:
		intervals = min(intervals, len(w.Arrivals))
		if intervals == 0 {
			return nil, errors.New("evaluation: google workload without an arrivals table")
		}
		var sum float64
		for _, a := range w.Arrivals[:intervals] {
			sum += float64(a.Jobs)
		}
		if sum == 0 {
			return nil, errors.New("evaluation: arrivals table has no jobs in the intervals used")
		}
		scale = w.JobsPerPod / (sum / float64(intervals))
	default:
		return nil, fmt.Errorf("evaluation: unknown MARL workload kind %q", w.Kind)
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
		job datasets.Job
		pod int
	}
	var drafts []draft
	for i := 0; i < intervals; i++ {
		for p := 0; p < w.Pods; p++ {
			var n int
			switch w.Kind {
			case KindUniform:
				n = stochRound(w.JobsPerPod)
			case KindPoisson:
				n = int(pois.Rand())
			case KindGoogle:
				n = stochRound(float64(w.Arrivals[i].Jobs) * scale)
			}
			for k := 0; k < n; k++ {
				j := datasets.Job{
					Source:    "synthetic-marl-" + w.Kind,
					SubmitS:   math.Round((float64(i)+rng.Float64())*w.IntervalS*1000) / 1000,
					DurationS: math.Round(marlMinDurationS + rng.Float64()*(marlMaxDurationS-marlMinDurationS)),
					User:      fmt.Sprintf("pod-%02d", p),
					Status:    "Terminated",
					Model:     sim.MARLModels[rng.IntN(len(sim.MARLModels))],
					Tasks: []datasets.Task{
						{Role: datasets.RoleWorker, Instances: int32(1 + rng.IntN(4)), GPU: marlWorkerGPU, CPU: marlTaskCPU, MemGiB: marlTaskMemGiB},
						{Role: datasets.RolePS, Instances: int32(1 + rng.IntN(4)), CPU: marlTaskCPU, MemGiB: marlTaskMemGiB},
					},
				}
				drafts = append(drafts, draft{j, p})
			}
		}
	}
	slices.SortStableFunc(drafts, func(a, b draft) int {
		if c := compareFloat(a.job.SubmitS, b.job.SubmitS); c != 0 {
			return c
		}
		return a.pod - b.pod
	})
	jobs := make([]datasets.Job, len(drafts))
	for i, d := range drafts {
		jobs[i] = d.job
		jobs[i].JobID = fmt.Sprintf("%s-%06d", w.Kind, i)
	}
	return jobs, nil
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
