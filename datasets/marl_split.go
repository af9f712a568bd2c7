package datasets

import (
	"math"
	"strconv"
	"strings"
)

// PodOf is the partition of a cluster with parts partitions that receives
// job j (index in its workload), and so the MARL scheduler (agent) that
// places it: the pod named by the job's user field "pod-NN" (as
// GenerateMARL writes it) modulo parts, or else index modulo parts.
func PodOf(j *Job, index, parts int) int {
	if parts <= 1 {
		return 0
	}
	if rest, ok := strings.CutPrefix(j.User, "pod-"); ok {
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
			return n % parts
		}
	}
	return index % parts
}

// SplitMARL holds out, per partition (PodOf with parts partitions), the
// last ⌈testFrac·n⌉ of its n jobs by submission time (MARL paper §VI-A:
// 90 % train, 10 % test per scheduler). Taking the last jobs rather than a
// random tenth keeps the held-out jobs' arrival rate that of training;
// they are shifted back in time by whole intervals of intervalS so that
// their simulation starts near 0 with the same interval phase. Both
// results are in submission order (SortBySubmission); jobs is not
// modified.
func SplitMARL(jobs []Job, parts int, testFrac, intervalS float64) (train, test []Job) {
	per := make([][]int, max(parts, 1))
	// Appending in submission order gives each partition its jobs in
	// submission order, ties by index.
	for _, i := range SubmissionOrder(jobs) {
		p := PodOf(&jobs[i], i, parts)
		per[p] = append(per[p], i)
	}
	isTest := make([]bool, len(jobs))
	for _, idx := range per {
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
	SortBySubmission(train)
	SortBySubmission(test)
	return train, test
}
