package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistory: a run with history.dir set adds itself; `history add` of
// the same run again changes nothing and says so; `history plot` draws
// it; bad usage exits 2 and a directory that is not a run exits 1 naming
// its manifest.
func TestHistory(t *testing.T) {
	if raceEnabled {
		t.Skip("a run and the history commands of its own; make test-norace runs it")
	}
	t.Parallel()
	run, hist := filepath.Join(t.TempDir(), "run"), filepath.Join(t.TempDir(), "history")
	// quick's das-table1: nine rows (five heuristics, MALO, MOSA and
	// their oracle rows) on three clusters, 27 metric rows, whatever the
	// number of jobs (200, as the eval tests', is 20 % less CPU than 500).
	small := []string{"SCHEDLAB_EVAL_EXPERIMENTS=das-table1", "SCHEDLAB_DATASETS_SYNTHETIC_JOBS=200", "SCHEDLAB_HISTORY_DIR=" + hist}
	_, errs, code := schedlab(t, small, "run", "--preset", "quick", "--out", run, "--log-level", "warn")
	if code != 0 || !strings.Contains(errs, "history: run (preset quick, revision ") || !strings.Contains(errs, ") added: 27 rows in "+hist+"/preset=quick/revision=") {
		t.Fatalf("run: exit %d, stderr does not say the run was added to the history:\n%s", code, errs)
	}
	files, err := filepath.Glob(filepath.Join(hist, "preset=quick", "revision=*", "metrics.parquet"))
	if err != nil || len(files) != 1 {
		t.Fatalf("history files %v (%v), want one", files, err)
	}
	before, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	plots := t.TempDir()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"again", []string{"add", run, "--to", hist}, 0, "with the same 27 rows: nothing changed", ""},
		{"plot", []string{"plot", hist, "--out", plots}, 0, "history: 1 plots; index: " + filepath.Join(plots, "index.md"), ""},
		{"no subcommand", nil, 2, "", "name a subcommand"},
		{"no --to", []string{"add", run}, 2, "", "--to DIR is required"},
		{"bad date", []string{"add", run, "--to", hist, "--date", "yesterday"}, 2, "", "want RFC 3339"},
		{"not a run", []string{"add", plots, "--to", hist}, 1, "", filepath.Join(plots, "manifest.json") + ": not a schedlab run directory"},
		{"empty history", []string{"plot", plots}, 1, "", "no history"},
		{"help", []string{"--help"}, 0, "hive_partitioning=true", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := schedlab(t, nil, append([]string{"history"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errs, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout (want %q):\n%s\nstderr (want %q):\n%s", code, tc.code, tc.stdout, out, tc.stderr, errs)
			}
		})
	}
	after, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Error("adding the run again changed the history's file")
	}
	if _, err := os.Stat(filepath.Join(plots, "quick-das-table1.svg")); err != nil {
		t.Error(err)
	}
}
