package main

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/evaluation"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

// TestListCommand: each listing names every registered thing of its kind
// at the start of a line; an unknown kind is a usage error.
func TestListCommand(t *testing.T) {
	t.Parallel()
	var experiments, names []string
	for _, e := range evaluation.Experiments() {
		experiments = append(experiments, e.ID)
	}
	for _, n := range schedulers.Names() {
		names = append(names, string(n))
	}
	for kind, want := range map[string][]string{
		"experiments": experiments,
		"schedulers":  names,
		"families":    training.Families(),
		"sources":     datasets.Sources(),
		"presets":     {"quick", "nightly", "paper"},
	} {
		stdout, stderr, code := schedlab(t, nil, "list", kind)
		if code != 0 {
			t.Errorf("list %s: exit %d: %s", kind, code, stderr)
			continue
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		for _, w := range want {
			found := false
			for _, l := range lines {
				if f := strings.Fields(l); len(f) > 0 && f[0] == w {
					found = true
				}
			}
			if !found {
				t.Errorf("list %s lacks a line for %s:\n%s", kind, w, stdout)
			}
		}
		if len(lines) < len(want) {
			t.Errorf("list %s: %d lines for %d things", kind, len(lines), len(want))
		}
	}
	if stdout, _, _ := schedlab(t, nil, "list", "experiments"); !strings.Contains(stdout, "eval.das_table1") {
		t.Errorf("list experiments does not name das-table1's section:\n%s", stdout)
	}
	if _, stderr, code := schedlab(t, nil, "list", "nothing"); code != 2 {
		t.Errorf("list nothing: exit %d, want 2 (%s)", code, stderr)
	}
}
