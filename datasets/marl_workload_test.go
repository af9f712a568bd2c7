package datasets_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
)

func TestGenerateMARL(t *testing.T) {
	arr := []datasets.Arrival{{Interval: 0, StartS: 0, Jobs: 100}, {Interval: 1, StartS: 1800, Jobs: 300}, {Interval: 2, StartS: 3600, Jobs: 200}}
	for _, tc := range []struct {
		kind      string
		want      int // exact count, or 0 when random
		lo, hi    int
		intervals int
	}{
		{datasets.MARLUniform, 4 * 15 * 5, 0, 0, 5},
		{datasets.MARLPoisson, 0, 4 * 15 * 5 * 8 / 10, 4 * 15 * 5 * 12 / 10, 5},
		{datasets.MARLGoogle, 0, 4 * 15 * 3 * 8 / 10, 4 * 15 * 3 * 12 / 10, 5}, // the table has 3 rows
	} {
		t.Run(tc.kind, func(t *testing.T) {
			w := datasets.MARLWorkload{Kind: tc.kind, Pods: 4, JobsPerPod: 15, Intervals: tc.intervals, IntervalS: 1800, Arrivals: arr}
			jobs, err := datasets.GenerateMARL(w, pipeline.Rand(1, "test", tc.kind))
			if err != nil {
				t.Fatal(err)
			}
			again, _ := datasets.GenerateMARL(w, pipeline.Rand(1, "test", tc.kind))
			if len(again) != len(jobs) || again[len(jobs)-1].SubmitS != jobs[len(jobs)-1].SubmitS {
				t.Error("same stream gave different jobs")
			}
			if tc.want != 0 && len(jobs) != tc.want || tc.want == 0 && (len(jobs) < tc.lo || len(jobs) > tc.hi) {
				t.Errorf("%d jobs, want %d or in [%d, %d]", len(jobs), tc.want, tc.lo, tc.hi)
			}
			perInterval := map[int]int{}
			for i, j := range jobs {
				if i > 0 && j.SubmitS < jobs[i-1].SubmitS {
					t.Fatalf("job %d submitted before job %d", i, i-1)
				}
				perInterval[int(j.SubmitS/1800)]++
				w, ps := j.Tasks[0].Instances, j.Tasks[1].Instances
				if w < 1 || w > 4 || ps < 1 || ps > 4 || j.Model == "" || !strings.HasPrefix(j.User, "pod-") {
					t.Fatalf("job %+v", j)
				}
			}
			if tc.kind == datasets.MARLGoogle && !(perInterval[1] > perInterval[2] && perInterval[2] > perInterval[0]) {
				t.Errorf("google jobs per interval %v do not follow the pattern 100, 300, 200", perInterval)
			}
		})
	}
	if _, err := datasets.GenerateMARL(datasets.MARLWorkload{Kind: datasets.MARLGoogle, Pods: 1, JobsPerPod: 1, Intervals: 1, IntervalS: 1}, pipeline.Rand(1, "x")); err == nil {
		t.Error("google without arrivals: no error")
	}
}

// TestMARLModelsMatchSim: the generator's models are the simulator's
// Table I list, in order (the generator draws by index), and each has a
// measured profile.
func TestMARLModelsMatchSim(t *testing.T) {
	if !slices.Equal(datasets.MARLModels, sim.MARLModels) {
		t.Fatalf("datasets.MARLModels %v, sim.MARLModels %v", datasets.MARLModels, sim.MARLModels)
	}
	for _, m := range datasets.MARLModels {
		if !sim.ProfileOf(m).Known {
			t.Errorf("model %q has no profile", m)
		}
	}
}
