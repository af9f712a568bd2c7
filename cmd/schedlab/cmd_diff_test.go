package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiff builds four small runs once (the quick preset cut to one
// experiment and 500 jobs, about a second each) and compares them: the
// same configuration twice, another speed model (the same jobs, so paired
// tests) and another seed (other jobs, one seed each: single samples).
func TestDiff(t *testing.T) {
	if raceEnabled {
		t.Skip("four quick runs of its own: make test-norace runs it whole (the shared quick run covers the pipeline under the race detector)")
	}
	base := t.TempDir()
	small := []string{"SCHEDLAB_EVAL_EXPERIMENTS=das-table1", "SCHEDLAB_DATASETS_SYNTHETIC_JOBS=500"}
	runs := map[string][]string{"a": nil, "again": nil, "standalone": {"SCHEDLAB_SIM_SPEED=standalone"}, "seed2": {"SCHEDLAB_SEED=2"}}
	dir := func(name string) string { return filepath.Join(base, name) }
	for _, name := range []string{"a", "again", "standalone", "seed2"} {
		_, errs, code := schedlab(t, append(small, runs[name]...), "run", "--preset", "quick", "--out", dir(name), "--log-level", "warn")
		if code != 0 {
			t.Fatalf("run %s: exit %d: %s", name, code, errs)
		}
	}
	empty := t.TempDir()
	corrupt := t.TempDir()
	b, err := os.ReadFile(filepath.Join(dir("a"), "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(corrupt, "manifest.json"), b[:len(b)/3], 0o644)
	page := filepath.Join(t.TempDir(), "diff.html")

	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		stdout     []string
		stderr     string
		notStdout  string
		htmlNeeded bool
	}{
		{"identical", []string{dir("a"), dir("again")}, 0,
			[]string{"**No difference**", "| `out` |", "No stage changed", "`eval/das-table1/timings.parquet`"}, "", "| `seed` |", false},
		{"config key", []string{dir("a"), dir("standalone"), "--html", page}, 3,
			[]string{"**Significant difference**", "| `sim.speed` | `\"model\"` | `\"standalone\"` |",
				"| eval-das-table1 | configuration: `sim.speed` |", "| das-table1 | large / pai / fifo-firstfit | mean_jct_s |", "paired Wilcoxon"},
			"differ beyond the thresholds", "| synthetic-jobs |", true},
		{"seed", []string{dir("a"), dir("seed2")}, 3,
			[]string{"| `seed` | `1` | `2` |", "| synthetic-jobs | run seed |", "single sample", "**Differs, untested (single samples)**", "**differs, untested (single sample)**"}, "", "| paired, ", false},
		{"seed, untested allowed", []string{dir("a"), dir("seed2"), "--allow-untested"}, 0,
			[]string{"**No difference beyond the thresholds**"}, "", "", false},
		{"missing manifest", []string{dir("a"), empty}, 1, nil, filepath.Join(empty, "manifest.json"), "", false},
		{"corrupt manifest", []string{corrupt, dir("a")}, 1, nil, filepath.Join(corrupt, "manifest.json") + ": line ", "", false},
		{"one run", []string{dir("a")}, 2, nil, "want two run directories", "", false},
		{"bad alpha", []string{dir("a"), dir("again"), "--alpha", "2"}, 2, nil, "alpha: must be in (0, 1)", "", false},
		{"bad min-delta", []string{dir("a"), dir("again"), "--min-delta", "lots"}, 2, nil, "--min-delta", "", false},
		{"help", []string{"--help"}, 0, []string{"Exit status: 0 no difference", "--min-delta", "schedlab diff a b --alpha 0.05"}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := schedlab(t, nil, append([]string{"diff"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s\n%s", code, tc.code, errs, out)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if tc.notStdout != "" && strings.Contains(out, tc.notStdout) {
				t.Errorf("stdout holds %q:\n%s", tc.notStdout, out)
			}
			if !strings.Contains(errs, tc.stderr) {
				t.Errorf("stderr %q lacks %q", errs, tc.stderr)
			}
			if tc.htmlNeeded {
				b, err := os.ReadFile(page)
				if err != nil || !strings.Contains(string(b), "<table>") || !strings.Contains(string(b), "sim.speed") {
					t.Errorf("--html page: %v", err)
				}
			}
		})
	}
}

func TestParseFraction(t *testing.T) {
	for in, want := range map[string]float64{"1%": 0.01, " 0.5 % ": 0.005, "0.02": 0.02, "0": 0} {
		if got, err := parseFraction(in); err != nil || got != want {
			t.Errorf("parseFraction(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "%", "1%%", "one"} {
		if _, err := parseFraction(in); err == nil {
			t.Errorf("parseFraction(%q): no error", in)
		}
	}
}
