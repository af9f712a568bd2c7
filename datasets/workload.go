package datasets

import (
	"cmp"
	"slices"
)

// SortBySubmission sorts jobs by submission time in place. The sort is
// stable: jobs submitted at the same time keep their input order, so that
// a trace's file order decides ties everywhere alike (the splits, the
// simulator's arrival order, the generators). Submission times must not
// be NaN.
func SortBySubmission(jobs []Job) {
	slices.SortStableFunc(jobs, func(a, b Job) int { return cmp.Compare(a.SubmitS, b.SubmitS) })
}

// SubmissionOrder returns the indices of jobs in the order SortBySubmission
// would put them (ties by index), leaving jobs as they are: for callers
// that must remember where each job came from.
func SubmissionOrder(jobs []Job) []int {
	idx := make([]int, len(jobs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(jobs[a].SubmitS, jobs[b].SubmitS) })
	return idx
}
