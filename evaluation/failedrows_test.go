package evaluation

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestFailedRowsFile: the failed rows survive their file, an error with
// commas, quotes and newlines included; no file is no failed row; a file
// with another header is an error naming it.
func TestFailedRowsFile(t *testing.T) {
	dir := t.TempDir()
	rep := &Report{Spec: Spec{Experiment: DASTable1}, Failed: []FailedRow{
		{Scheduler: "external:a", Cell: Cell{Experiment: DASTable1, Cluster: "small", Workload: "pai", Scheduler: "external:a", Seed: 2}, Err: `exited, "badly"` + "\nline two"},
	}}
	path := filepath.Join(dir, FailedRowsFile)
	if err := writeFailedRows(path, rep); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFailedRows(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []FailedRowRecord{{Experiment: DASTable1, Scheduler: "external:a", Cell: "das-table1/small/pai/external:a/2", Err: `exited, "badly"` + "\nline two"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v, want %+v", got, want)
	}
	if got, err := ReadFailedRows(filepath.Join(dir, "none.csv")); got != nil || err != nil {
		t.Errorf("no file: %v, %v; want nothing", got, err)
	}
	empty := &Report{Spec: Spec{Experiment: DASTable1}}
	if err := writeFailedRows(path, empty); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFailedRows(path); got != nil || err != nil {
		t.Errorf("no failed row: %v, %v", got, err)
	}
	os.WriteFile(path, []byte("a,b,c,d\n"), 0o644)
	if _, err := ReadFailedRows(path); err == nil || !strings.Contains(err.Error(), path+": line 1: header") {
		t.Errorf("another header: %v", err)
	}
}
