package datasets

import (
	"fmt"
	"slices"
)

// TraceSplit configures SplitTrace: how a job trace is cut into the jobs
// learned schedulers train on, those that choose among trained models
// (validation) and those every scheduler is evaluated on (test).
type TraceSplit struct {
	// MaxJobs keeps the first MaxJobs jobs by submission that survive
	// pruning (the DAS paper: 20,000); the rest are Beyond.
	MaxJobs int
	// TestFraction is the share of the kept jobs, the latest by
	// submission, that is evaluated (the DAS paper's 8:2 split: 0.2). When
	// it is above 0 at least one job is evaluated.
	TestFraction float64
	// ValFraction is the share of the kept jobs that are not tested, the
	// latest of them, that validates (the pipeline: 0.2).
	ValFraction float64
}

// Validate reports a configuration SplitTrace cannot use.
func (c TraceSplit) Validate() error {
	switch {
	case c.MaxJobs < 1:
		return fmt.Errorf("datasets: trace split: max_jobs must be >= 1, got %d", c.MaxJobs)
	case !(c.TestFraction >= 0 && c.TestFraction <= 1):
		return fmt.Errorf("datasets: trace split: test fraction must be in [0, 1], got %v", c.TestFraction)
	case !(c.ValFraction >= 0 && c.ValFraction <= 1):
		return fmt.Errorf("datasets: trace split: validation fraction must be in [0, 1], got %v", c.ValFraction)
	}
	return nil
}

// Split is a job trace cut by SplitTrace. Train, Val and Test are in
// submission order, each wholly before the next, and share no job:
// Read = Pruned + Beyond + len(Train) + len(Val) + len(Test).
type Split struct {
	Train, Val, Test []Job
	Read             int // jobs given
	Pruned           int // jobs the prune predicate dropped
	Beyond           int // surviving jobs after the first MaxJobs
}

// SplitTrace sorts jobs by submission (SortBySubmission: ties keep input
// order), drops those prune marks, keeps the first cfg.MaxJobs and cuts
// them in time order into Train, Val and Test: the last
// int(n·TestFraction + 0.5) of the n kept (at least one when TestFraction
// > 0) are Test, and of the m before them the last int(m·ValFraction + 0.5)
// are Val. Training and evaluation both cut a trace here, so that no
// evaluated job can reach training or validation.
//
// prune receives the sorted jobs and returns, for each, whether to drop it
// (the simulator's fit test lives in sim: sim.Pruner); a nil prune drops
// none. Pruning comes before MaxJobs so that the kept jobs do not depend on
// how many ahead of them are dropped. jobs is not modified; the parts do
// not share memory with it.
func SplitTrace(jobs []Job, prune func(sorted []Job) ([]bool, error), cfg TraceSplit) (Split, error) {
	sp := Split{Read: len(jobs)}
	if err := cfg.Validate(); err != nil {
		return sp, err
	}
	sorted := slices.Clone(jobs)
	SortBySubmission(sorted)
	drop := make([]bool, len(sorted))
	if prune != nil {
		var err error
		if drop, err = prune(sorted); err != nil {
			return sp, fmt.Errorf("datasets: trace split: prune: %w", err)
		}
		if len(drop) != len(sorted) {
			return sp, fmt.Errorf("datasets: trace split: prune marked %d jobs, given %d", len(drop), len(sorted))
		}
	}
	kept := make([]Job, 0, min(len(sorted), cfg.MaxJobs))
	for i, j := range sorted {
		switch {
		case drop[i]:
			sp.Pruned++
		case len(kept) < cfg.MaxJobs:
			kept = append(kept, j)
		default:
			sp.Beyond++
		}
	}
	n := len(kept)
	test := int(float64(n)*cfg.TestFraction + 0.5)
	if test == 0 && n > 0 && cfg.TestFraction > 0 {
		test = 1
	}
	rest := n - test
	val := int(float64(rest)*cfg.ValFraction + 0.5)
	// Full slice expressions: appending to one part must not overwrite the
	// next.
	sp.Train = kept[: rest-val : rest-val]
	sp.Val = kept[rest-val : rest : rest]
	sp.Test = kept[rest:n:n]
	return sp, nil
}
