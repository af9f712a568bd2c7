package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// trace returns jobs "j0", "j1", ... submitted at the given times.
func trace(submits ...float64) []Job {
	jobs := make([]Job, len(submits))
	for i, s := range submits {
		jobs[i] = Job{JobID: fmt.Sprintf("j%d", i), SubmitS: s}
	}
	return jobs
}

// upTo is submissions 0, 1, ..., n-1.
func upTo(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i)
	}
	return s
}

// pruneIDs drops the jobs with the given ids.
func pruneIDs(ids ...string) func([]Job) ([]bool, error) {
	return func(sorted []Job) ([]bool, error) {
		drop := make([]bool, len(sorted))
		for i, j := range sorted {
			drop[i] = slices.Contains(ids, j.JobID)
		}
		return drop, nil
	}
}

func ids(jobs []Job) []string {
	out := []string{}
	for _, j := range jobs {
		out = append(out, j.JobID)
	}
	return out
}

func TestSplitTrace(t *testing.T) {
	for _, tc := range []struct {
		name             string
		jobs             []Job
		prune            func([]Job) ([]bool, error)
		cfg              TraceSplit
		train, val, test []string
		pruned, beyond   int
	}{
		{name: "8:2 then 8:2", jobs: trace(upTo(10)...), cfg: TraceSplit{MaxJobs: 100, TestFraction: 0.2, ValFraction: 0.2},
			// test int(10·0.2+0.5) = 2; val int(8·0.2+0.5) = 2.
			train: []string{"j0", "j1", "j2", "j3", "j4", "j5"}, val: []string{"j6", "j7"}, test: []string{"j8", "j9"}},
		{name: "halves round up", jobs: trace(upTo(5)...), cfg: TraceSplit{MaxJobs: 5, TestFraction: 0.1, ValFraction: 0.125},
			// test int(0.5+0.5) = 1; val int(4·0.125+0.5) = 1.
			train: []string{"j0", "j1", "j2"}, val: []string{"j3"}, test: []string{"j4"}},
		{name: "at least one test job", jobs: trace(upTo(3)...), cfg: TraceSplit{MaxJobs: 5, TestFraction: 0.1, ValFraction: 0.2},
			// test int(0.3+0.5) = 0, raised to 1; val int(0.4+0.5) = 0 is not raised.
			train: []string{"j0", "j1"}, val: []string{}, test: []string{"j2"}},
		{name: "no test fraction, no test job", jobs: trace(upTo(4)...), cfg: TraceSplit{MaxJobs: 5, ValFraction: 0.5},
			train: []string{"j0", "j1"}, val: []string{"j2", "j3"}, test: []string{}},
		{name: "all tested", jobs: trace(upTo(3)...), cfg: TraceSplit{MaxJobs: 5, TestFraction: 1, ValFraction: 0.5},
			train: []string{}, val: []string{}, test: []string{"j0", "j1", "j2"}},
		{name: "pruned before max jobs", jobs: trace(upTo(10)...), prune: pruneIDs("j1", "j3"),
			cfg:   TraceSplit{MaxJobs: 5, TestFraction: 0.2, ValFraction: 0.25},
			train: []string{"j0", "j2", "j4"}, val: []string{"j5"}, test: []string{"j6"}, pruned: 2, beyond: 3},
		{name: "pruned after max jobs count as pruned", jobs: trace(upTo(6)...), prune: pruneIDs("j5"),
			cfg:   TraceSplit{MaxJobs: 2, TestFraction: 0.5},
			train: []string{"j0"}, val: []string{}, test: []string{"j1"}, pruned: 1, beyond: 3},
		{name: "sorted by submission, ties in input order", jobs: trace(5, 1, 3, 1, 0, 3), cfg: TraceSplit{MaxJobs: 10, TestFraction: 0.4, ValFraction: 0.25},
			// sorted: j4 (0), j1, j3 (1), j2, j5 (3), j0 (5); test int(2.4+0.5) = 2, val int(1+0.5) = 1.
			train: []string{"j4", "j1", "j3"}, val: []string{"j2"}, test: []string{"j5", "j0"}},
		{name: "empty", jobs: nil, cfg: TraceSplit{MaxJobs: 1, TestFraction: 0.2, ValFraction: 0.2},
			train: []string{}, val: []string{}, test: []string{}},
		{name: "one job", jobs: trace(7), cfg: TraceSplit{MaxJobs: 1, TestFraction: 0.2, ValFraction: 0.2},
			train: []string{}, val: []string{}, test: []string{"j0"}},
		{name: "all pruned", jobs: trace(upTo(3)...), prune: pruneIDs("j0", "j1", "j2"), cfg: TraceSplit{MaxJobs: 3, TestFraction: 0.2},
			train: []string{}, val: []string{}, test: []string{}, pruned: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.jobs)
			sp, err := SplitTrace(tc.jobs, tc.prune, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(sp.Train); !slices.Equal(got, tc.train) {
				t.Errorf("train %v, want %v", got, tc.train)
			}
			if got := ids(sp.Val); !slices.Equal(got, tc.val) {
				t.Errorf("val %v, want %v", got, tc.val)
			}
			if got := ids(sp.Test); !slices.Equal(got, tc.test) {
				t.Errorf("test %v, want %v", got, tc.test)
			}
			if sp.Read != len(tc.jobs) || sp.Pruned != tc.pruned || sp.Beyond != tc.beyond {
				t.Errorf("read %d, pruned %d, beyond %d; want %d, %d, %d", sp.Read, sp.Pruned, sp.Beyond, len(tc.jobs), tc.pruned, tc.beyond)
			}
			if !slices.EqualFunc(in, tc.jobs, func(a, b Job) bool { return a.JobID == b.JobID && a.SubmitS == b.SubmitS }) {
				t.Error("input modified")
			}
		})
	}
}

func TestSplitTraceErrors(t *testing.T) {
	errPrune := errors.New("no such cluster")
	ok := TraceSplit{MaxJobs: 10, TestFraction: 0.2, ValFraction: 0.2}
	for _, tc := range []struct {
		name  string
		prune func([]Job) ([]bool, error)
		cfg   TraceSplit
	}{
		{"max jobs 0", nil, TraceSplit{TestFraction: 0.2}},
		{"negative test fraction", nil, TraceSplit{MaxJobs: 1, TestFraction: -0.1}},
		{"test fraction above 1", nil, TraceSplit{MaxJobs: 1, TestFraction: 1.5}},
		{"NaN test fraction", nil, TraceSplit{MaxJobs: 1, TestFraction: math.NaN()}},
		{"NaN validation fraction", nil, TraceSplit{MaxJobs: 1, ValFraction: math.NaN()}},
		{"prune fails", func([]Job) ([]bool, error) { return nil, errPrune }, ok},
		{"prune marks too few", func(s []Job) ([]bool, error) { return make([]bool, len(s)-1), nil }, ok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := SplitTrace(trace(upTo(4)...), tc.prune, tc.cfg)
			if err == nil {
				t.Fatalf("no error; split %+v", sp)
			}
			if tc.name == "prune fails" && !errors.Is(err, errPrune) {
				t.Errorf("%v does not wrap the prune error", err)
			}
		})
	}
}

// TestSplitTraceDisjoint: on random traces (ties frequent), random pruning
// and random fractions, no job is in two parts, each part is in submission
// order and wholly before the next, the parts are the first MaxJobs
// survivors in stable submission order, and growing one part cannot
// overwrite the next.
func TestSplitTraceDisjoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 500 {
		n := rng.IntN(60)
		jobs := make([]Job, n)
		for i := range jobs {
			jobs[i] = Job{JobID: fmt.Sprintf("j%d", i), SubmitS: float64(rng.IntN(20))}
		}
		dropped := map[string]bool{}
		for _, j := range jobs {
			dropped[j.JobID] = rng.Float64() < 0.2
		}
		prune := func(sorted []Job) ([]bool, error) {
			drop := make([]bool, len(sorted))
			for i, j := range sorted {
				drop[i] = dropped[j.JobID]
			}
			return drop, nil
		}
		cfg := TraceSplit{MaxJobs: 1 + rng.IntN(60), TestFraction: rng.Float64(), ValFraction: rng.Float64()}
		sp, err := SplitTrace(jobs, prune, cfg)
		if err != nil {
			t.Fatal(err)
		}
		where := map[string]string{}
		for _, part := range []struct {
			name string
			jobs []Job
		}{{"train", sp.Train}, {"val", sp.Val}, {"test", sp.Test}} {
			for _, j := range part.jobs {
				if w, ok := where[j.JobID]; ok {
					t.Fatalf("iteration %d: job %s in %s and %s", it, j.JobID, w, part.name)
				}
				where[j.JobID] = part.name
			}
		}
		all := slices.Concat(sp.Train, sp.Val, sp.Test)
		want := slices.Clone(jobs)
		SortBySubmission(want)
		want = slices.DeleteFunc(want, func(j Job) bool { return dropped[j.JobID] })
		want = want[:min(len(want), cfg.MaxJobs)]
		if !slices.Equal(ids(all), ids(want)) {
			t.Fatalf("iteration %d: parts %v, want the first survivors %v", it, ids(all), ids(want))
		}
		if !slices.IsSortedFunc(all, func(a, b Job) int { return cmp.Compare(a.SubmitS, b.SubmitS) }) {
			t.Fatalf("iteration %d: parts not in submission order", it)
		}
		if sp.Read != n || sp.Pruned+sp.Beyond+len(all) != n {
			t.Fatalf("iteration %d: read %d = pruned %d + beyond %d + kept %d?", it, sp.Read, sp.Pruned, sp.Beyond, len(all))
		}
		if len(sp.Val) > 0 {
			first := sp.Val[0].JobID
			_ = append(sp.Train, Job{JobID: "x"})
			if sp.Val[0].JobID != first {
				t.Fatalf("iteration %d: appending to Train overwrote Val", it)
			}
		}
	}
}

func TestSortBySubmission(t *testing.T) {
	jobs := trace(3, 1, 2, 1, 0, 3, 1)
	order := SubmissionOrder(jobs)
	if want := []int{4, 1, 3, 6, 2, 0, 5}; !slices.Equal(order, want) {
		t.Errorf("SubmissionOrder %v, want %v", order, want)
	}
	if got := ids(jobs); !slices.Equal(got, []string{"j0", "j1", "j2", "j3", "j4", "j5", "j6"}) {
		t.Errorf("SubmissionOrder moved jobs: %v", got)
	}
	SortBySubmission(jobs)
	if got, want := ids(jobs), []string{"j4", "j1", "j3", "j6", "j2", "j0", "j5"}; !slices.Equal(got, want) {
		t.Errorf("SortBySubmission %v, want %v (ties in input order)", got, want)
	}
}
