package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/pythontest"
)

// TestRowFailedExitStatus: a run whose external row fails alone (on_error:
// row) writes every output and exits with status 4, naming the row, the
// cell and the error, in-process and through the local executor; rerun
// into the same directory (every stage cached) it says so again.
func TestRowFailedExitStatus(t *testing.T) {
	if raceEnabled {
		t.Skip("three runs of a second of processor time each, many under the race detector; make test-norace runs it")
	}
	py := pythontest.Interpreter(t)
	cfg := filepath.Join(t.TempDir(), "failing.yaml")
	os.WriteFile(cfg, []byte(`external:
  - name: exits
    command: `+py+` -c 'import sys; sys.exit(3)'
    on_error: row
eval:
  experiments: [das-table1]
  das_table1:
    schedulers: [fifo-firstfit, external:exits]
`), 0o644)
	small := []string{"SCHEDLAB_DATASETS_SYNTHETIC_JOBS=200"}
	for _, executor := range []string{"", "local"} {
		dir := filepath.Join(t.TempDir(), "run")
		args := []string{"run", "--preset", "quick", "--config", cfg, "--out", dir, "--log-level", "error"}
		if executor != "" {
			args = append(args, "--executor", executor)
		}
		for _, pass := range []string{"first", "cached"} {
			_, errs, code := schedlab(t, small, args...)
			if code != 4 {
				t.Fatalf("executor %q, %s run: exit %d, want 4: %s", executor, pass, code, errs)
			}
			for _, want := range []string{"1 row(s) failed", "row exits of das-table1 failed at cell das-table1/small/pai/external:exits/", "exit status 3", "report: "} {
				if !strings.Contains(errs, want) {
					t.Errorf("executor %q, %s run: stderr lacks %q:\n%s", executor, pass, want, errs)
				}
			}
			md, err := os.ReadFile(filepath.Join(dir, "tables", "das-table1.md"))
			if err != nil || !strings.Contains(string(md), "Row exits failed at cell das-table1/small/pai/external:exits/") {
				t.Errorf("executor %q: the table's notes lack the failed row (%v)", executor, err)
			}
			if executor != "" {
				break // the cached rerun reads the same file whoever wrote it
			}
		}
	}
}
