package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIngestCLI(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	stdout, stderr, code := schedlab(t, nil, "ingest", "--source", "pai-sim", "--input", "../../datasets/testdata/pai-sim", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"simulator_jobs.csv", "total (pai-sim)", "jobs", "quarantine", filepath.Join(out, "jobs.parquet")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"jobs.parquet", "quarantine.parquet"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// Accounting line: 3 read, 3 accepted, 0 quarantined.
	if !strings.Contains(strings.Join(strings.Fields(stdout), " "), "total (pai-sim) 3 3 0") {
		t.Errorf("accounting not printed:\n%s", stdout)
	}
}

func TestIngestCLIErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "jobs.csv")
	os.WriteFile(bad, []byte("job_id,submit_time,duration,num_gpu,num_cpu\n1,2,3,4,5\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"unknown source", []string{"--source", "nope", "--input", bad, "--out", dir}, 2, []string{"nope", "pai-sim", "elasticflow", "philly-gavel", "alibaba-v2023"}},
		{"no out", []string{"--source", "pai-sim", "--input", bad}, 2, []string{"--out"}},
		{"missing column", []string{"--source", "pai-sim", "--input", bad, "--out", filepath.Join(dir, "o")}, 1, []string{bad + ":1: field num_inst", "missing column"}},
		{"interval 0", []string{"--source", "google-2011", "--input", bad, "--out", filepath.Join(dir, "o"), "--interval", "0"}, 2, []string{"datasets.interval_s: must be in [1, 604800] seconds, got 0"}},
		{"interval -5", []string{"--source", "google-2011", "--input", bad, "--out", filepath.Join(dir, "o"), "--interval", "-5"}, 2, []string{"datasets.interval_s: must be in [1, 604800] seconds, got -5"}},
		{"interval NaN", []string{"--source", "google-2011", "--input", bad, "--out", filepath.Join(dir, "o"), "--interval", "NaN"}, 2, []string{"datasets.interval_s: must be a finite number, got \"NaN\" (flag --interval)"}},
		{"interval 1e400", []string{"--source", "google-2011", "--input", bad, "--out", filepath.Join(dir, "o"), "--interval", "1e400"}, 2, []string{"out of range"}},
		{"google-2011 not job_events", []string{"--source", "google-2011", "--input", bad, "--out", filepath.Join(dir, "o")}, 1, []string{bad + ":1", "not a Google 2011 job_events part"}},
		{"file named twice", []string{"--source", "pai-sim", "--input", bad, "--input", bad, "--out", filepath.Join(dir, "o")}, 1, []string{"named twice"}},
		{"missing input", []string{"--source", "elasticflow", "--input", filepath.Join(dir, "nope"), "--out", filepath.Join(dir, "o")}, 1, []string{"nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := schedlab(t, nil, append([]string{"ingest"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, stderr)
				}
			}
		})
	}
}

// TestIngestCLICommitsSet: an ingest of another source into a directory
// replaces the earlier set whole (no stale cluster.parquet), a failed one
// leaves it as it was, and a killed writer's temporaries are removed.
func TestIngestCLICommitsSet(t *testing.T) {
	out := t.TempDir()
	ingest := func(source, input string) (string, int) {
		_, stderr, code := schedlab(t, nil, "ingest", "--source", source, "--input", input, "--out", out)
		return stderr, code
	}
	if stderr, code := ingest("alibaba-v2023", "../../datasets/testdata/alibaba-v2023"); code != 0 {
		t.Fatalf("alibaba-v2023: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "cluster.parquet")); err != nil {
		t.Fatal(err)
	}
	killed := filepath.Join(out, ".jobs.parquet.tmp-4242")
	os.WriteFile(killed, []byte("left by SIGKILL"), 0o644)
	if stderr, code := ingest("pai-sim", "../../datasets/testdata/pai-sim"); code != 0 {
		t.Fatalf("pai-sim: exit %d: %s", code, stderr)
	}
	for _, gone := range []string{"cluster.parquet", filepath.Base(killed)} {
		if _, err := os.Stat(filepath.Join(out, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still beside pai-sim's tables (%v)", gone, err)
		}
	}
	before := map[string][]byte{}
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		before[e.Name()], _ = os.ReadFile(filepath.Join(out, e.Name()))
	}
	if len(before) != 3 {
		t.Errorf("files after pai-sim: %v, want jobs, quarantine and ingest.json", keys(before))
	}
	bad := filepath.Join(t.TempDir(), "jobs.csv")
	os.WriteFile(bad, []byte("job_id,submit_time,duration,num_gpu,num_cpu\n1,2,3,4,5\n"), 0o644)
	if _, code := ingest("pai-sim", bad); code != 1 {
		t.Fatalf("bad input: exit %d, want 1", code)
	}
	ents, _ = os.ReadDir(out)
	if len(ents) != len(before) {
		t.Errorf("failed ingest changed the file set: %d files, was %d", len(ents), len(before))
	}
	for name, data := range before {
		if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(got) != string(data) {
			t.Errorf("failed ingest changed %s (%v)", name, err)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestIngestCLIPartitioned writes a partitioned dataset, refreshes it
// without change (nothing read) and after removing an input (its
// partition goes), and refuses a source without per-file partitions.
func TestIngestCLIPartitioned(t *testing.T) {
	t.Parallel()
	src, out := t.TempDir(), t.TempDir()
	for _, f := range []string{"cluster01.csv", "cluster02.csv"} {
		b, err := os.ReadFile(filepath.Join("../../datasets/testdata/elasticflow", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"ingest", "--source", "elasticflow", "--input", src, "--out", out}
	stdout, stderr, code := schedlab(t, nil, append(args, "--partitioned")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "2 partitions of jobs, 2 read, 0 kept, 0 removed") {
		t.Errorf("first ingest:\n%s", stdout)
	}
	for _, f := range []string{"_dataset.json", "jobs/cluster01.parquet", "jobs/cluster02.parquet", "quarantine/cluster01.parquet"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// Into a dataset directory, ingest is partitioned without the flag.
	stdout, stderr, code = schedlab(t, nil, args...)
	if code != 0 || !strings.Contains(stdout, "2 partitions of jobs, 0 read, 2 kept, 0 removed") {
		t.Errorf("unchanged rerun: exit %d\n%s%s", code, stdout, stderr)
	}
	os.Remove(filepath.Join(src, "cluster02.csv"))
	stdout, stderr, code = schedlab(t, nil, args...)
	if code != 0 || !strings.Contains(stdout, "1 partitions of jobs, 0 read, 1 kept, 1 removed") {
		t.Errorf("after removing an input: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "jobs", "cluster02.parquet")); !os.IsNotExist(err) {
		t.Errorf("removed input's partition: %v", err)
	}
	_, stderr, code = schedlab(t, nil, "ingest", "--source", "pai-v2020", "--partitioned", "--input", src, "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "no per-file partitions") {
		t.Errorf("pai-v2020 --partitioned: exit %d, %s", code, stderr)
	}
}

// TestIngestInputNameWithNewline: --input takes a file name holding a
// newline whole, as a positional argument does (issue 31, defect 9: it
// was split CSV-style, at the newline); commas still separate names.
func TestIngestInputNameWithNewline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	name := filepath.Join(dir, "a\nb.csv")
	if err := os.WriteFile(name, []byte("job_id,submission_time,duration,num_gpu\nj1,0,60,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := schedlab(t, nil, "ingest", "--source", "elasticflow", "--input", name, "--out", filepath.Join(dir, "o"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "total (elasticflow)  1  1  0") {
		t.Errorf("the job was not read:\n%s", stdout)
	}
}
