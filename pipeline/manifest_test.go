package pipeline_test

import (
	"testing"

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
	if got := pipeline.BuildVersions().Revision(); got != "unknown" {
		t.Errorf("no stamp: revision %q, want unknown", got)
	}
	pipeline.Revision = "a2ae0ed-dirty"
	if v := pipeline.BuildVersions(); v.VCSRevision != "a2ae0ed" || !v.VCSModified || v.Revision() != "a2ae0ed (modified)" {
		t.Errorf("stamped a2ae0ed-dirty: %+v, %q", v, v.Revision())
	}
	pipeline.Revision = "a2ae0ed"
	if v := pipeline.BuildVersions(); v.Revision() != "a2ae0ed" {
		t.Errorf("stamped a2ae0ed: %+v", v)
	}
}
