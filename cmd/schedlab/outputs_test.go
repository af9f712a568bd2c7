package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/stages"
)

// No command's output replaces one of its inputs, a file with more than
// one link, a device or a symbolic link (pipeline.CreateAtomic, with the
// inputs each command protects): each is refused with exit 1 naming the
// output, and what was there keeps its bytes.
//
// The run, profile samples and fitted model given as inputs are a copy of
// the shared quick run's (quickCopy: a refusal that failed would write
// into it), not a run, profile and fit of the test's own.
func TestOutputsNeverClobber(t *testing.T) {
	if raceEnabled {
		t.Skip("refusals before any work; make test-norace runs it")
	}
	t.Parallel()
	run := quickCopy(t)
	samples, model := filepath.Join(run, stages.ProfileSamples), filepath.Join(run, stages.FitModel)
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	os.WriteFile(at("c.yaml"), []byte("seed: 1\n"), 0o644)
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	os.MkdirAll(at("ingest"), 0o755)
	if err := os.Link(victim, at("ingest/jobs.parquet")); err != nil {
		t.Skip("no hard links:", err)
	}
	os.MkdirAll(at("locked"), 0o755)
	os.Link(victim, filepath.Join(at("locked"), pipeline.LockFile))
	os.Symlink("/proc/self/fd/1", at("stdout"))
	trace := filepath.Join("..", "..", "datasets", "testdata", "pai-sim", "simulator_jobs.csv")

	for _, tc := range []struct {
		name  string
		args  []string
		keep  string // a file that must keep its bytes
		error string
	}{
		// profile's --out is a directory: a file there is refused, unchanged.
		{"profile synth --config C --out C", []string{"profile", "synth", "--samples", "10", "--config", at("c.yaml"), "--out", at("c.yaml")}, at("c.yaml"), "not a directory"},
		{"fit --predict F --out F", []string{"fit", "--predict", samples, "--model", model, "--out", samples}, samples, "inputs"},
		{"diff A B --html A/manifest.json", []string{"diff", run, run, "--html", filepath.Join(run, "manifest.json")}, filepath.Join(run, "manifest.json"), "inputs"},
		{"diff --html /dev/full", []string{"diff", run, run, "--html", "/dev/full"}, "", "device"},
		{"diff --html a link to /proc/self/fd/1", []string{"diff", run, run, "--html", at("stdout")}, "", "symbolic link"},
		{"ingest into a hard-linked jobs.parquet", []string{"ingest", "--source", "pai-sim", "--input", trace, "--out", at("ingest")}, victim, "links"},
		{"ingest under a hard-linked lock", []string{"ingest", "--source", "pai-sim", "--input", trace, "--out", at("locked")}, victim, "links"},
		{"run under a hard-linked lock", []string{"run", "--preset", "quick", "--out", at("locked")}, victim, "links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before []byte
			if tc.keep != "" {
				var err error
				if before, err = os.ReadFile(tc.keep); err != nil {
					t.Fatal(err) // the input is not there: nothing to protect
				}
			}
			_, errs, code := schedlab(t, nil, tc.args...)
			if code != 1 || !strings.Contains(errs, tc.error) {
				t.Errorf("exit %d, stderr %q; want exit 1 saying %q", code, errs, tc.error)
			}
			if tc.keep != "" {
				if after, _ := os.ReadFile(tc.keep); !bytes.Equal(before, after) {
					t.Errorf("%s changed", tc.keep)
				}
			}
		})
	}
}

// An experiment named twice is refused when the configuration is
// resolved, with exit 2 naming the key, by every command that resolves
// it (it once passed config show and failed plan and run later with
// "two stages named").
func TestRepeatedExperimentRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"config", "show", "--set", "eval.experiments=das-table1,das-table1"},
		{"plan", "--only", "das-table1,das-table1"},
	} {
		_, errs, code := schedlab(t, nil, args...)
		if code != 2 || !strings.Contains(errs, `eval.experiments[1]: "das-table1" repeated`) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming eval.experiments[1]", args, code, errs)
		}
	}
}
