package pipeline_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/schedlab/schedlab/pipeline"
)

// TestStampedRevision: a binary built without Go's VCS stamping (test
// binaries have none) reports the revision the Makefile stamps, with
// "-dirty" read as modified.
func TestStampedRevision(t *testing.T) {
	if v := pipeline.BuildVersions(); v.VCSRevision != "" {
		t.Skipf("this binary carries Go's VCS stamp %s", v.VCSRevision)
	}
	old := pipeline.Revision
	defer func() { pipeline.Revision = old }()
	pipeline.Revision = ""
	if got, d := pipeline.BuildVersions().Revision(), pipeline.BuildVersions().Describe(); got != "unknown" || d != "unknown" {
		t.Errorf("no stamp: revision %q, described %q, want unknown", got, d)
	}
	pipeline.Revision = "a2ae0ed-dirty"
	if v := pipeline.BuildVersions(); v.VCSRevision != "a2ae0ed" || !v.VCSModified || v.Revision() != "a2ae0ed (modified)" || v.Describe() != "a2ae0ed-dirty" {
		t.Errorf("stamped a2ae0ed-dirty: %+v, %q", v, v.Revision())
	}
	pipeline.Revision = "a2ae0ed"
	if v := pipeline.BuildVersions(); v.Revision() != "a2ae0ed" || v.Describe() != "a2ae0ed" {
		t.Errorf("stamped a2ae0ed: %+v", v)
	}
}

// TestManifestDate: a written manifest is dated by the writer's clock, in
// UTC to the second, unless it already carries a date, which is kept (a
// rewritten manifest does not move its run).
func TestManifestDate(t *testing.T) {
	dir := t.TempDir()
	before := time.Now().UTC().Truncate(time.Second)
	m := &pipeline.Manifest{Status: "ok", ConfigHash: "h"}
	if err := m.WriteFile(filepath.Join(dir, pipeline.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	after := time.Now().UTC()
	got, err := pipeline.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := time.Parse(time.RFC3339, got.Date)
	if err != nil || d.Location() != time.UTC || d.Before(before) || d.After(after) {
		t.Errorf("date %q (%v): want UTC RFC 3339 in [%v, %v]", got.Date, err, before, after)
	}
	m.Date = "2020-01-02T03:04:05Z"
	if err := m.WriteFile(filepath.Join(dir, pipeline.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if got, err := pipeline.ReadManifest(dir); err != nil || got.Date != m.Date {
		t.Errorf("rewritten with a date: %q (%v), want %q", got.Date, err, m.Date)
	}
}
