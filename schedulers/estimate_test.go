package schedulers_test

import (
	"container/heap"
	"math"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/internal/jobheap"
	"github.com/schedlab/schedlab/schedulers"
)

// estimateError replays jobs in submission order, each finishing at its
// trace end (submit + duration), and estimates every job at its submission
// from the jobs finished by then, keyed by keyOf. It returns the mean
// absolute error (s), the median of |estimate − d| / d, and the share of
// estimates within a factor of two.
func estimateError(jobs []datasets.Job, keyOf func(datasets.Job) string) (mae, medRel, within2 float64) {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(jobs[a].SubmitS, jobs[b].SubmitS) })
	h := schedulers.NewHistoryEstimator()
	var running jobheap.Heap // by finish time
	rel := make([]float64, 0, len(jobs))
	for _, i := range order {
		j := jobs[i]
		for running.Len() > 0 && running[0].Key <= j.SubmitS {
			f := heap.Pop(&running).(jobheap.Item)
			h.Finish(keyOf(jobs[f.Job]), jobs[f.Job].DurationS)
		}
		e := h.Estimate(keyOf(j))
		mae += math.Abs(e - j.DurationS)
		if j.DurationS > 0 {
			rel = append(rel, math.Abs(e-j.DurationS)/j.DurationS)
			if e <= 2*j.DurationS && j.DurationS <= 2*e {
				within2++
			}
		}
		heap.Push(&running, jobheap.Item{Key: j.SubmitS + j.DurationS, Job: i})
	}
	slices.Sort(rel)
	return mae / float64(len(jobs)), rel[len(rel)/2], within2 / float64(len(rel))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestEstimatorOnPAI measures HistoryEstimator on the 6,000-job PAI subset
// (the figures go to docs/measurements.md) and checks that the same user's
// history predicts better than the global running mean, the estimator's
// fallback: the per-user key must carry information or it is not worth
// having.
func TestEstimatorOnPAI(t *testing.T) {
	jobs := paiSubset(t)
	uMAE, uRel, uIn := estimateError(jobs, func(j datasets.Job) string { return j.User })
	gMAE, gRel, gIn := estimateError(jobs, func(datasets.Job) string { return "" })
	t.Logf("per user: MAE %.1f min, median relative error %.2f, within 2x %.1f %%", uMAE/60, uRel, 100*uIn)
	t.Logf("global:   MAE %.1f min, median relative error %.2f, within 2x %.1f %%", gMAE/60, gRel, 100*gIn)
	if !(uMAE < gMAE) || !(uIn > gIn) {
		t.Errorf("the user's history (MAE %.0f s, %.3f within 2x) is no better than the global mean (%.0f s, %.3f)", uMAE, uIn, gMAE, gIn)
	}
}

// TestHistoryEstimator: the fallbacks in order (prior, global mean, user
// mean).
func TestHistoryEstimator(t *testing.T) {
	h := schedulers.NewHistoryEstimator()
	if got := h.Estimate("a"); got != schedulers.DurationPrior {
		t.Errorf("nothing seen: %g, want the prior %g", got, schedulers.DurationPrior)
	}
	h.Finish("a", 100)
	h.Finish("a", 300)
	h.Finish("b", 1000)
	for _, c := range []struct {
		user string
		want float64
	}{{"a", 200}, {"b", 1000}, {"c", 1400.0 / 3}} {
		if got := h.Estimate(c.user); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %g, want %g", c.user, got, c.want)
		}
	}
}
