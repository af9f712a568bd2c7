package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A directory whose files are one level down (the Google 2011 trace's
// job_events/) is refused naming the subdirectory to give instead.
func TestExpandInputsNamesSubdirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "job_events"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "job_events", "part-00000-of-00500.csv.gz"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := expandInputs([]string{dir}, []string{"*.csv.gz"})
	if err == nil || !strings.Contains(err.Error(), "subdirectory job_events: --input "+filepath.Join(dir, "job_events")) {
		t.Errorf("got %v, want the subdirectory named", err)
	}
	files, err := expandInputs([]string{filepath.Join(dir, "job_events")}, []string{"*.csv.gz"})
	if err != nil || len(files) != 1 {
		t.Errorf("the subdirectory itself: %v, %v", files, err)
	}
	empty := t.TempDir()
	if _, err := expandInputs([]string{empty}, []string{"*.csv.gz"}); err == nil || strings.Contains(err.Error(), "subdirectory") {
		t.Errorf("an empty directory: %v, want no file and no hint", err)
	}
}
