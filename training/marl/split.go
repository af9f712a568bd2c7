package marl

import (
	"math"
	"slices"

	"github.com/schedlab/schedlab/datasets"
)

// SplitJobs holds out, per scheduler (SchedulerOf with parts partitions),
// the last testFrac of its jobs by submission time (MARL paper §VI-A: 90 %
// train, 10 % test per scheduler). Taking the last jobs rather than a
// random tenth keeps the held-out jobs' arrival rate that of training;
// they are shifted back in time by whole intervals so that their
// simulation starts near 0 with the same interval phase. Both results are
// in submission order; the input is not modified.
func SplitJobs(jobs []datasets.Job, parts int, testFrac, intervalS float64) (train, test []datasets.Job) {
	per := make([][]int, max(parts, 1))
	for i := range jobs {
		p := SchedulerOf(&jobs[i], i, parts)
		per[p] = append(per[p], i)
	}
	isTest := make([]bool, len(jobs))
	for _, idx := range per {
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case jobs[a].SubmitS < jobs[b].SubmitS:
				return -1
			case jobs[a].SubmitS > jobs[b].SubmitS:
				return 1
			}
			return a - b
		})
		k := int(math.Ceil(testFrac * float64(len(idx))))
		for _, i := range idx[len(idx)-k:] {
			isTest[i] = true
		}
	}
	shift := math.Inf(1)
	for i, j := range jobs {
		if isTest[i] {
			test = append(test, j)
			shift = min(shift, j.SubmitS)
		} else {
			train = append(train, j)
		}
	}
	if len(test) > 0 && intervalS > 0 {
		shift = math.Floor(shift/intervalS) * intervalS
		for i := range test {
			test[i].SubmitS -= shift
		}
	}
	byTime := func(a, b datasets.Job) int {
		switch {
		case a.SubmitS < b.SubmitS:
			return -1
		case a.SubmitS > b.SubmitS:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(train, byTime)
	slices.SortStableFunc(test, byTime)
	return train, test
}
