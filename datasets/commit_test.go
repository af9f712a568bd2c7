package datasets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
)

// scripted is a Reader whose Ingest is a test's function.
type scripted func(ctx context.Context, req Request) (*Report, error)

func (s scripted) Source() string   { return "scripted" }
func (s scripted) Describe() string { return "test reader" }
func (s scripted) Ingest(ctx context.Context, req Request) (*Report, error) {
	return s(ctx, req)
}

// snapshot is every file of dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func sameFiles(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s: %s is gone", what, name)
		} else if got[name] != want[name] {
			t.Errorf("%s: %s changed", what, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s appeared", what, name)
		}
	}
}

func ingestPAISim(t *testing.T, dir string) *Report {
	t.Helper()
	r, err := Lookup(SourcePAISim)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := IngestInto(context.Background(), r, Request{Inputs: []string{"testdata/pai-sim"}, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// jobsThen is a reader that accepts n jobs through IngestJobs, so that
// jobs.parquet and quarantine.parquet are written, and then fails with err
// (after: true) or fails midway through the jobs (after: false).
func jobsThen(n int, after bool, err error) scripted {
	return func(ctx context.Context, req Request) (*Report, error) {
		rep, ierr := IngestJobs(ctx, req, "scripted", nil, func(ji *JobsIngest) error {
			for i := range n {
				row := CSVRow{Line: int64(i + 2), Raw: fmt.Sprint(i)}
				if _, e := ji.AcceptRow("f", row, &Job{JobID: fmt.Sprint(i), DurationS: 60, Tasks: []Task{{Role: RoleWorker, Instances: 1, GPU: 1}}}); e != nil {
					return e
				}
				if !after && i == n/2 {
					return err
				}
			}
			return nil
		})
		if ierr != nil {
			return nil, ierr
		}
		return rep, err
	}
}

// A failed ingest leaves the previous set exactly as it was and no
// temporaries: a reader failing midway, and one failing after two of its
// tables were complete (as a disk filling up while the third is written).
func TestIngestIntoFailureKeepsPreviousSet(t *testing.T) {
	enospc := &os.PathError{Op: "write", Path: ClusterFile, Err: syscall.ENOSPC}
	for _, tc := range []struct {
		name string
		r    Reader
		want error
	}{
		{"parse error midway", jobsThen(3*JobsBatchRows, false, os.ErrInvalid), os.ErrInvalid},
		{"disk full after two tables", jobsThen(3*JobsBatchRows, true, enospc), syscall.ENOSPC},
		{"cancelled", scripted(func(ctx context.Context, req Request) (*Report, error) {
			return nil, context.Canceled
		}), context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ingestPAISim(t, dir)
			before := snapshot(t, dir)
			_, err := IngestInto(context.Background(), tc.r, Request{OutDir: dir})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			sameFiles(t, "after a failed ingest", snapshot(t, dir), before)
		})
	}
}

// A later ingest of another source replaces the whole set: no
// cluster.parquet of the earlier source stays beside it, and ingest.json
// lists exactly the tables present, with their sums.
func TestIngestIntoReplacesWholeSet(t *testing.T) {
	dir := t.TempDir()
	ali, err := Lookup(SourceAlibabaV2023)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := IngestInto(context.Background(), ali, Request{Inputs: []string{"testdata/alibaba-v2023"}, OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ClusterFile)); err != nil {
		t.Fatalf("alibaba-v2023 with a node list wrote no cluster table: %v", err)
	}
	rep := ingestPAISim(t, dir)
	for _, o := range rep.Outputs {
		if filepath.Dir(o.Path) != dir {
			t.Errorf("report names %s, not a file of %s", o.Path, dir)
		}
	}
	files := snapshot(t, dir)
	man, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if man.Source != SourcePAISim {
		t.Errorf("manifest source %q", man.Source)
	}
	listed := map[string]bool{ManifestFile: true}
	for _, tab := range man.Tables {
		listed[tab.File] = true
		sum, _, err := pipeline.HashFile(filepath.Join(dir, tab.File))
		if err != nil || sum != tab.SHA256 {
			t.Errorf("%s: sha256 %s, manifest %s (%v)", tab.File, sum, tab.SHA256, err)
		}
	}
	for name := range files {
		if !listed[name] {
			t.Errorf("%s is in the directory but not in %s", name, ManifestFile)
		}
	}
	if len(listed) != 3 {
		t.Errorf("manifest lists %v, want jobs and quarantine", man.Tables)
	}
}

// What a SIGKILLed ingest left is dealt with by the next one: temporaries
// and an incomplete staging directory are removed, a complete one (its
// manifest written, the renames cut short) is committed.
func TestIngestIntoRecoversKilledIngest(t *testing.T) {
	done := t.TempDir()
	ingestPAISim(t, done)
	want := snapshot(t, done)

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ClusterFile), []byte("old set"), 0o644)
	os.WriteFile(filepath.Join(dir, JobsFile), []byte("old set"), 0o644)
	os.WriteFile(filepath.Join(dir, ".quarantine.parquet.tmp-123"), []byte("half"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("user's"), 0o644)
	half := filepath.Join(dir, ".ingest.tmp-1")
	os.MkdirAll(half, 0o755)
	os.WriteFile(filepath.Join(half, JobsFile), []byte("half"), 0o644)
	// Killed after the renames began: jobs.parquet already moved in.
	complete := filepath.Join(dir, ".ingest.tmp-2")
	os.MkdirAll(complete, 0o755)
	for name, data := range want {
		dst := filepath.Join(complete, name)
		if name == JobsFile {
			dst = filepath.Join(dir, name)
		}
		os.WriteFile(dst, []byte(data), 0o644)
	}
	_, err := IngestInto(context.Background(), jobsThen(10, false, os.ErrInvalid), Request{OutDir: dir})
	if !errors.Is(err, os.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
	want["notes.txt"] = "user's"
	sameFiles(t, "after recovery", snapshot(t, dir), want)
	var m Manifest
	if err := json.Unmarshal([]byte(want[ManifestFile]), &m); err != nil || len(m.Tables) != 2 {
		t.Fatalf("manifest %v: %v", m, err)
	}
}

// A second ingest into a directory being written is refused.
func TestIngestIntoLocksDir(t *testing.T) {
	dir := t.TempDir()
	l, err := pipeline.LockDir(dir, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	_, err = IngestInto(context.Background(), jobsThen(1, true, nil), Request{OutDir: dir})
	if !errors.Is(err, pipeline.ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
}
