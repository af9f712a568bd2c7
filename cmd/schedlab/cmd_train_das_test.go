package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/das"
)

// tinyJobs writes n small jobs (1–2 instances of 1–4 GPUs, arriving
// every 60 s) as a jobs Parquet file.
func tinyJobs(t *testing.T, dir string, n int) string {
	t.Helper()
	jobs := make([]datasets.Job, n)
	for i := range jobs {
		jobs[i] = datasets.Job{JobID: "j" + string(rune('A'+i%26)) + string(rune('a'+i/26)), Source: "test",
			SubmitS: 60 * float64(i), DurationS: 600 + 300*float64(i%7),
			Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: int32(1 + i%2), GPU: float64(1 + i%4), CPU: 6, MemGiB: 30}}}
	}
	p := filepath.Join(dir, "jobs.parquet")
	if err := datasets.WriteParquet(p, datasets.FileMeta{Source: "test"}, jobs); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTrainDASCommand(t *testing.T) {
	dir := t.TempDir()
	jobs := tinyJobs(t, dir, 120)
	out := filepath.Join(dir, "out")
	stdout, stderr, code := schedlab(t, nil, "train", "--family", "das", "--variant", "da+mc", "--cluster", "small",
		"--jobs", jobs, "--episodes", "2", "--lr", "1e-3", "--segment-jobs", "40", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"das/da+mc on small: 96 training and 24 validation jobs", "untrained → trained", "wrote da+mc.ckpt"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	if !strings.Contains(stderr, "episode") {
		t.Errorf("no per-episode progress on stderr:\n%s", stderr)
	}
	for _, f := range []string{"da+mc.ckpt", "da+mc.json", "curves.parquet", "curves.svg", "curves.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	rows, err := datasets.ReadParquet[training.Curve](filepath.Join(out, "curves.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || rows[0].Family != "das" || rows[0].Variant != "da+mc" || rows[1].Split != "validation" {
		t.Errorf("curves: %+v", rows)
	}
	s, err := das.Open(filepath.Join(out, "da+mc.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "da+mc" {
		t.Errorf("loaded scheduler %q", s.Name())
	}
}

func TestTrainBaselinesCommand(t *testing.T) {
	dir := t.TempDir()
	jobs := tinyJobs(t, dir, 120)
	for _, tc := range []struct {
		family string
		files  []string
		want   string
	}{
		{"dl2", []string{"dl2.ckpt", "dl2.json"}, "after warm-up from drf-firstfit"},
		{"rifling", []string{"rifling.json"}, "state groups"},
	} {
		t.Run(tc.family, func(t *testing.T) {
			out := filepath.Join(dir, tc.family)
			stdout, stderr, code := schedlab(t, nil, "train", "--family", tc.family, "--cluster", "small",
				"--jobs", jobs, "--episodes", "2", "--segment-jobs", "40", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, tc.want) {
				t.Errorf("stdout lacks %q:\n%s", tc.want, stdout)
			}
			for _, f := range append(tc.files, "curves.parquet", "curves.svg", "curves.png") {
				if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}

func TestTrainDASUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", "huge"}, `--cluster "huge"`},
		{[]string{"--variant", "dax"}, `--variant "dax"`},
		{[]string{"--lr", "fast"}, `--lr "fast"`},
		{[]string{"--jobs", filepath.Join(dir, "none.parquet")}, "none.parquet"},
	} {
		args := append([]string{"train", "--family", "das", "--out", dir}, tc.args...)
		_, stderr, code := schedlab(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
