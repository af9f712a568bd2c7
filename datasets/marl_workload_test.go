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
			jobs, err := datasets.GenerateMARL(w, pipeline.Rand(1, "test", pipeline.Key(tc.kind)))
			if err != nil {
				t.Fatal(err)
			}
			again, _ := datasets.GenerateMARL(w, pipeline.Rand(1, "test", pipeline.Key(tc.kind)))
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

// TestMARLShape: a zero shape is the paper's, job for job; a shape names
// only what it changes; a model's entry changes that model's jobs and no
// draw of the others.
func TestMARLShape(t *testing.T) {
	gen := func(s datasets.MARLShape) []datasets.Job {
		t.Helper()
		w := datasets.MARLWorkload{Kind: datasets.MARLUniform, Pods: 3, JobsPerPod: 10, Intervals: 4, IntervalS: 1800, Shape: s}
		jobs, err := datasets.GenerateMARL(w, pipeline.Rand(7, "test", "shape"))
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	paper := gen(datasets.MARLShape{})
	if !slices.EqualFunc(paper, gen(datasets.DefaultMARLShape()), jobEqual) {
		t.Error("the zero shape and DefaultMARLShape draw different jobs")
	}
	ctc := datasets.MARLShape{MinWorkers: 2, Models: []datasets.MARLModelShape{{Model: "ctc", Shape: datasets.MARLShape{WorkerCPU: 3, MinDurationS: 60, MaxDurationS: 120}}}}
	got := gen(ctc)
	if len(got) != len(paper) {
		t.Fatalf("%d jobs, want %d", len(got), len(paper))
	}
	var nctc int
	for i, j := range got {
		p := paper[i]
		if j.Model != p.Model || j.SubmitS != p.SubmitS {
			t.Fatalf("job %d: model %s at %v, want %s at %v (the draws moved)", i, j.Model, j.SubmitS, p.Model, p.SubmitS)
		}
		w, ps := j.Tasks[0], j.Tasks[1]
		if w.Instances < 2 || w.Instances > 4 || ps.Instances != p.Tasks[1].Instances {
			t.Errorf("job %d: %d workers, %d PSs, want 2–4 and %d", i, w.Instances, ps.Instances, p.Tasks[1].Instances)
		}
		if j.Model == "ctc" {
			nctc++
			if w.CPU != 3 || w.GPU != 1 || j.DurationS < 60 || j.DurationS > 120 {
				t.Errorf("ctc job %d: worker %v GPU + %v cores, %v s, want 1 + 3, 60–120 s", i, w.GPU, w.CPU, j.DurationS)
			}
		} else if w.CPU != 6 || j.DurationS != p.DurationS {
			t.Errorf("%s job %d: worker %v cores, %v s, want 6 and %v s", j.Model, i, w.CPU, j.DurationS, p.DurationS)
		}
	}
	if nctc == 0 {
		t.Fatal("no ctc job drawn: the test tests nothing")
	}
	for _, tc := range []struct {
		s    datasets.MARLShape
		want string
	}{
		{datasets.MARLShape{MinPS: 3, MaxPS: 2}, "job_shape.min_ps, max_ps"},
		{datasets.MARLShape{MaxDurationS: 100}, "job_shape.max_duration_s"},
		{datasets.MARLShape{Models: []datasets.MARLModelShape{{Model: "ctx"}}}, `job_shape.models[0].model: unknown model "ctx"`},
		{datasets.MARLShape{Models: []datasets.MARLModelShape{{Model: "ctc"}, {Model: "ctc"}}}, "job_shape.models[1].model: ctc given twice"},
		{datasets.MARLShape{Models: []datasets.MARLModelShape{{Model: "ctc", Shape: datasets.MARLShape{WorkerCPU: -1}}}}, "job_shape.models[0].shape.worker_cpu"},
	} {
		if err := tc.s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.s, err, tc.want)
		}
	}
}

func jobEqual(a, b datasets.Job) bool {
	return a.JobID == b.JobID && a.SubmitS == b.SubmitS && a.DurationS == b.DurationS && a.Model == b.Model && slices.Equal(a.Tasks, b.Tasks)
}
