package datasets

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
)

func TestPodOf(t *testing.T) {
	for _, tc := range []struct {
		user         string
		index, parts int
		want         int
	}{
		{"pod-03", 0, 4, 3},
		{"pod-05", 0, 4, 1}, // modulo parts
		{"pod-03", 7, 1, 0}, // one partition
		{"alice", 7, 4, 3},  // no pod: the index
		{"pod-x", 6, 4, 2},
		{"pod--1", 5, 4, 1},
	} {
		if got := PodOf(&Job{User: tc.user}, tc.index, tc.parts); got != tc.want {
			t.Errorf("PodOf(%q, %d, %d) = %d, want %d", tc.user, tc.index, tc.parts, got, tc.want)
		}
	}
}

// TestSplitMARL: per pod, the last ⌈10 %⌉ by submission are held out,
// ties by input order; the held-out jobs move back by whole intervals;
// both parts are in submission order and the input is untouched.
func TestSplitMARL(t *testing.T) {
	// Pod 0: 12 jobs at 1000, 1100, ...; pod 1: 5 jobs, the last two tied
	// at 5000 (input order decides which is held out).
	var jobs []Job
	for i := range 12 {
		jobs = append(jobs, Job{JobID: fmt.Sprintf("p0-%d", i), User: "pod-00", SubmitS: 1000 + 100*float64(i)})
	}
	for i, s := range []float64{4000, 1500, 3000, 5000, 5000} {
		jobs = append(jobs, Job{JobID: fmt.Sprintf("p1-%d", i), User: "pod-01", SubmitS: s})
	}
	in := slices.Clone(jobs)
	train, test := SplitMARL(jobs, 2, 0.1, 1000)
	// ⌈1.2⌉ = 2 of pod 0 (p0-10 at 2000, p0-11 at 2100), ⌈0.5⌉ = 1 of pod 1
	// (p1-4, the later of the tie); shifted by floor(2000/1000)·1000.
	if got, want := ids(test), []string{"p0-10", "p0-11", "p1-4"}; !slices.Equal(got, want) {
		t.Errorf("test %v, want %v", got, want)
	}
	if got := []float64{test[0].SubmitS, test[1].SubmitS, test[2].SubmitS}; !slices.Equal(got, []float64{0, 100, 3000}) {
		t.Errorf("test submissions %v, want 0, 100, 3000", got)
	}
	if len(train) != len(jobs)-3 || train[0].JobID != "p0-0" || train[len(train)-1].JobID != "p1-3" {
		t.Errorf("train %v", ids(train))
	}
	for _, part := range [][]Job{train, test} {
		if !slices.IsSortedFunc(part, func(a, b Job) int { return cmp.Compare(a.SubmitS, b.SubmitS) }) {
			t.Errorf("%v not in submission order", ids(part))
		}
	}
	if !slices.EqualFunc(in, jobs, func(a, b Job) bool { return a.JobID == b.JobID && a.SubmitS == b.SubmitS }) {
		t.Error("input modified")
	}
}
