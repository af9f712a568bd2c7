package datasets

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/schedlab/schedlab/pipeline"
)

// PAILikeConfig configures the PAI-like synthetic trace generator.
type PAILikeConfig struct {
	// Jobs is the number of jobs to generate.
	Jobs int `mapstructure:"jobs" yaml:"jobs" json:"jobs"`
}

// MaxSyntheticJobs bounds PAILikeConfig.Jobs: ten times the largest real
// trace we read (Google 2011, about 670,000 jobs), and few enough that the
// later stages, which hold the jobs in memory, do not run out of it (a
// trillion ended in an out-of-memory crash).
const MaxSyntheticJobs = 10_000_000

// DefaultPAILikeConfig is 2000 jobs.
func DefaultPAILikeConfig() PAILikeConfig { return PAILikeConfig{Jobs: 2000} }

// Validate names the bad key in full.
func (c PAILikeConfig) Validate() error {
	if c.Jobs <= 0 || c.Jobs > MaxSyntheticJobs {
		return fmt.Errorf("datasets.synthetic.jobs: must be in [1, %d], got %d", MaxSyntheticJobs, c.Jobs)
	}
	return nil
}

// Parameters of the PAI-like generator, measured on the 6,000-job subset of
// Alibaba's PAI simulator input (../shared/data/pai-v2020/
// operate_simulator_jobs_6000.csv) and, for memory, on the 1,000 raw-table
// jobs (operate_jobs_1000.csv). Categorical distributions keep the values
// seen in at least 5 jobs (≥ 99 % of jobs); weights are job counts.
var (
	// paiMeanInterArrivalS is the mean gap between submissions (12.7 s).
	paiMeanInterArrivalS = 12.708
	// paiHourWeights are submissions per hour of day (hour 0 = trace start);
	// the subset spans 21 h, so the last hours borrow the first hours'
	// level rather than being empty.
	paiHourWeights = []float64{379, 495, 320, 211, 260, 310, 193, 242, 264, 436, 367, 313,
		298, 203, 206, 216, 248, 311, 343, 165, 177, 379, 379, 379}
	// Instances per job.
	paiInstances       = []float64{1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 25, 26, 29, 30, 36, 40, 50, 60, 64, 80, 100, 150, 200}
	paiInstanceWeights = []float64{4752, 64, 19, 74, 79, 9, 66, 225, 108, 16, 76, 129, 42, 38, 10, 65, 13, 23, 75, 5, 24, 14, 32, 5, 5}
	// GPUs per instance.
	paiGPU        = []float64{1, 0.25, 0.5, 0.1, 2, 0.05, 0.2, 0.01}
	paiGPUWeights = []float64{2331, 1312, 1220, 860, 120, 62, 51, 24}
	// Cores per instance.
	paiCPU        = []float64{6, 10, 0.2, 18, 1, 8, 2, 4, 0.1, 0.5}
	paiCPUWeights = []float64{4444, 564, 200, 179, 136, 86, 76, 74, 69, 65}
	// paiMemPerCore is the median memory request per core, GiB (29.3 GiB
	// for the common 6-core instance).
	paiMemPerCore = 4.8828125
	// Duration is log-normal: ln(seconds) has this mean and deviation
	// (median 903 s; the subset's median is 846 s, p90 11,501 s).
	paiLogDurMu, paiLogDurSigma = 6.807, 2.013
)

// GeneratePAILike streams cfg.Jobs jobs (source "synthetic-pai") as Arrow
// records of JobsSchema, in batches of at most 1024 rows, in submission
// order. Submissions follow a Poisson process whose rate varies by hour of
// day; instances, GPUs and cores per instance are drawn independently from
// the measured categorical distributions, duration from the log-normal fit.
// The output depends only on cfg and rng. It is a pipeline.Source.
func GeneratePAILike(ctx context.Context, cfg PAILikeConfig, rng *rand.Rand, out chan<- arrow.Record) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	var mean float64
	for _, w := range paiHourWeights {
		mean += w
	}
	mean /= float64(len(paiHourWeights))
	jb := NewJobsBuilder(memory.DefaultAllocator)
	defer jb.Release()
	t := 0.0
	for i := 0; i < cfg.Jobs; i++ {
		// Thinning-free approximation: the gap is exponential at the rate
		// of the hour the previous job fell in.
		rate := paiHourWeights[int(t/3600)%24] / mean / paiMeanInterArrivalS
		t += rng.ExpFloat64() / rate
		inst := pick(rng, paiInstances, paiInstanceWeights)
		cpu := pick(rng, paiCPU, paiCPUWeights)
		j := Job{
			JobID:     fmt.Sprintf("syn-%07d", i),
			Source:    "synthetic-pai",
			SubmitS:   math.Round(t*1000) / 1000,
			DurationS: math.Round(math.Exp(paiLogDurMu + paiLogDurSigma*rng.NormFloat64())),
			User:      fmt.Sprintf("user-%03d", rng.IntN(200)),
			Status:    "Terminated",
			Tasks: []Task{{Role: RoleWorker, Instances: int32(inst), GPU: pick(rng, paiGPU, paiGPUWeights),
				CPU: cpu, MemGiB: math.Round(cpu*paiMemPerCore*100) / 100}},
		}
		if j.DurationS < 1 {
			j.DurationS = 1
		}
		jb.Append(&j)
		if jb.Len() == 1024 || i == cfg.Jobs-1 {
			if err := pipeline.SendRecord(ctx, out, jb.NewRecord()); err != nil {
				return err
			}
		}
	}
	return nil
}

// pick draws one of values with probability proportional to weights.
func pick(rng *rand.Rand, values, weights []float64) float64 {
	var total float64
	for _, w := range weights {
		total += w
	}
	u := rng.Float64() * total
	for i, w := range weights {
		if u < w {
			return values[i]
		}
		u -= w
	}
	return values[len(values)-1]
}

// GeneratePAILikeJobs draws the PAI-like trace of cfg into a slice (for
// callers that hold the whole trace anyway: training, evaluation).
func GeneratePAILikeJobs(ctx context.Context, cfg PAILikeConfig, rng *rand.Rand) ([]Job, error) {
	jobs := make([]Job, 0, cfg.Jobs)
	src := func(ctx context.Context, out chan<- arrow.Record) error {
		return GeneratePAILike(ctx, cfg, rng, out)
	}
	sink := func(ctx context.Context, in <-chan arrow.Record) error {
		for {
			rec, ok, err := pipeline.Recv(ctx, in)
			if err != nil || !ok {
				return err
			}
			jobs, err = JobsFromRecord(jobs, rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
	}
	if err := pipeline.Flow(ctx, src, nil, sink); err != nil {
		return nil, err
	}
	return jobs, nil
}
