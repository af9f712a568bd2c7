package daspaper

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
)

// Split is a trace prepared for training on one cluster (DAS §5.1.2): the
// Train and Val parts of a datasets.Split (sorted by submission, pruned,
// the first MaxJobs kept, 8:2 by the cut's ValFraction, the evaluated jobs
// already held out), less any job the training cluster cannot hold, each
// with submissions shifted to start at 0.
type Split struct {
	Train, Val []datasets.Job
	Read       int // jobs given
	Pruned     int // jobs that cannot fit the clusters pruned against
	Beyond     int // fitting jobs after the first MaxJobs
	Norm       RewardNorm
}

// ValJobs returns the validation jobs a training run simulates after
// each episode: the first n of Val, all of them when n is 0 (the
// ValJobs setting of every DAS-paper family).
func (s Split) ValJobs(n int) []datasets.Job {
	if n > 0 && n < len(s.Val) {
		return s.Val[:n]
	}
	return s.Val
}

// RewardNorm holds the training-set means that scale JCT and fee in Eq. 3
// so that a finished job's term is O(1). They are the means of the
// standalone duration (the JCT of a job that never waits nor slows down),
// of the standalone fee and of the GPUs per job (which scale the penalty
// term the same way): properties of the trace alone, not of a policy.
type RewardNorm struct {
	JCTS   float64 `json:"jct_s"`
	FeeUSD float64 `json:"fee_usd"`
	GPUs   float64 `json:"gpus"` // GPUs per job, C·n^GPU
}

// PrepareTrace cuts jobs for training on cluster c alone, with nothing
// held out for evaluation: datasets.SplitTrace pruning against c, with
// cut's MaxJobs and ValFraction, then PrepareJobs.
func PrepareTrace(c *sim.Cluster, jobs []datasets.Job, sc sim.Config, cut datasets.TraceSplit) (Split, error) {
	ts, err := datasets.SplitTrace(jobs, sim.Pruner([]*sim.Cluster{c}, sc), cut)
	if err != nil {
		return Split{Read: len(jobs)}, fmt.Errorf("daspaper: prepare jobs on %s: %w", c.Name, err)
	}
	return PrepareJobs(c, ts, sc)
}

// PrepareJobs builds the training split for cluster c under simulator
// configuration sc (its price and speed model) from ts's Train and Val;
// ts.Test is not touched. ts may have been pruned against other clusters
// (an experiment's): jobs that do not fit c are dropped from both parts
// afterwards, rather than before the cut, so that the evaluated jobs stay
// those of the split.
func PrepareJobs(c *sim.Cluster, ts datasets.Split, sc sim.Config) (Split, error) {
	sp := Split{Read: ts.Read, Pruned: ts.Pruned, Beyond: ts.Beyond}
	fits := sim.Pruner([]*sim.Cluster{c}, sc)
	var parts [2][]datasets.Job
	for k, part := range [2][]datasets.Job{ts.Train, ts.Val} {
		if len(part) == 0 {
			continue
		}
		drop, err := fits(part)
		if err != nil {
			return sp, fmt.Errorf("daspaper: prepare jobs: %w", err)
		}
		for i, j := range part {
			if drop[i] {
				sp.Pruned++
			} else {
				parts[k] = append(parts[k], j)
			}
		}
	}
	train, val := parts[0], parts[1]
	if len(train) == 0 || len(val) == 0 {
		return sp, fmt.Errorf("daspaper: %w: %d training and %d validation jobs on %s (of %d; %d pruned): too few for a training and a validation part",
			training.ErrNoTrainingJobs, len(train), len(val), c.Name, ts.Read, sp.Pruned)
	}
	// The training part as a whole starts at 0 first, then each part, as
	// the pipeline's former two-step split did: x − t₀ − (y − t₀) is not
	// always x − y in floating point, and this keeps its models bit for bit.
	pool := rebase(append(slices.Clip(train), val...))
	sp.Train = rebase(pool[:len(train)])
	sp.Val = rebase(pool[len(train):])
	var err error
	sp.Norm, err = normOf(sp.Train, sc)
	return sp, err
}

// NewSplit is the split of training and validation jobs already cut
// (each in submission order, submissions from 0), with the reward scale
// of the training part under sc's price.
func NewSplit(train, val []datasets.Job, sc sim.Config) (Split, error) {
	norm, err := normOf(train, sc)
	return Split{Train: train, Val: val, Read: len(train) + len(val), Norm: norm}, err
}

// normOf is the reward scale of training jobs (RewardNorm).
func normOf(train []datasets.Job, sc sim.Config) (RewardNorm, error) {
	var norm RewardNorm
	for _, j := range train {
		norm.JCTS += j.DurationS
		norm.GPUs += j.TotalGPU()
		norm.FeeUSD += sc.PriceGPUHour * j.TotalGPU() * j.DurationS / 3600
	}
	n := float64(len(train))
	norm.JCTS /= n
	norm.FeeUSD /= n
	norm.GPUs /= n
	if !(norm.JCTS > 0) || !(norm.FeeUSD > 0) || !(norm.GPUs > 0) {
		return norm, fmt.Errorf("daspaper: training jobs have mean duration %g s and mean fee %g $: cannot scale the reward", norm.JCTS, norm.FeeUSD)
	}
	return norm, nil
}

// rebase copies jobs with submissions shifted so that the first is at 0.
func rebase(jobs []datasets.Job) []datasets.Job {
	out := slices.Clone(jobs)
	if len(out) == 0 {
		return out
	}
	t0 := out[0].SubmitS
	for i := range out {
		out[i].SubmitS -= t0
	}
	return out
}

// Eq3 is the reward of the DAS paper's Eq. 3 over the jobs of one
// interval, the objective of DAS and of the RL baselines trained beside
// it: a finished job (ζ = 1) adds 1/(fee·JCT), both scaled by the training
// means and the product floored so that the term is at most rewardCap; a
// job the previous decision left pending (ζ = 0) adds −alpha·C·n^GPU, the
// GPUs scaled by the training mean too; the sum is divided by the number
// of jobs N'.
func Eq3(finished []sim.JobResult, unplaced []*sim.JobState, norm RewardNorm, alpha, rewardCap float64) float64 {
	n := len(finished) + len(unplaced)
	if n == 0 {
		return 0
	}
	r := 0.0
	for _, f := range finished {
		prod := (f.FeeUSD / norm.FeeUSD) * (f.JCTS / norm.JCTS)
		r += 1 / max(prod, 1/rewardCap)
	}
	for _, js := range unplaced {
		r -= alpha * js.Total.GPU / norm.GPUs
	}
	return r / float64(n)
}

// Segment is a random window of n consecutive jobs (all of them when
// there are fewer), submissions shifted to start at 0: one training
// episode of the DAS-paper families.
func Segment(jobs []datasets.Job, n int, rng *rand.Rand) []datasets.Job {
	if n >= len(jobs) {
		return jobs
	}
	lo := rng.IntN(len(jobs) - n + 1)
	return rebase(jobs[lo : lo+n])
}
