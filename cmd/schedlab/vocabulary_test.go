package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inProcess runs the CLI in this process and returns what it printed and
// its error: for commands that fail or finish before doing any work.
func inProcess(args ...string) (string, error) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// listed is the first word of each line of schedlab list kind, and for
// families the variants (the line's last field, comma-separated).
func listed(t *testing.T, kind string) (names []string, variants map[string][]string) {
	t.Helper()
	out, err := inProcess("list", kind)
	if err != nil {
		t.Fatalf("list %s: %v", kind, err)
	}
	variants = map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		names = append(names, f[0])
		if kind == "families" {
			for _, v := range f[2:] {
				variants[f[0]] = append(variants[f[0]], strings.TrimSuffix(v, ","))
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("list %s lists nothing", kind)
	}
	return names, variants
}

// TestListedNamesAccepted walks schedlab list against every command that
// takes a name (issue 51): each name it lists is accepted wherever a name
// of its kind is asked for, so that one vocabulary holds across commands.
// A command is run to the point where it has checked its names and stops
// for a flag left out (--out, --input), so that nothing runs; what it must
// not say is that the name is unknown. And a mistyped name is answered
// with the closest one.
func TestListedNamesAccepted(t *testing.T) {
	unknown := func(t *testing.T, args []string, err error) {
		t.Helper()
		if err != nil && (strings.Contains(err.Error(), "unknown") || strings.Contains(err.Error(), "not one of")) {
			t.Errorf("schedlab %s: %v", strings.Join(args, " "), err)
		}
	}
	out := filepath.Join(t.TempDir(), "run")
	experiments, _ := listed(t, "experiments")
	for _, id := range experiments {
		// plan checks the configuration run would use: --only is eval.experiments.
		args := []string{"plan", "--only", id, "--out", out}
		if _, err := inProcess(args...); err != nil {
			t.Errorf("schedlab %s: %v", strings.Join(args, " "), err)
		}
		args = []string{"eval", "--experiment", id}
		_, err := inProcess(args...)
		unknown(t, args, err)
	}
	scheds, _ := listed(t, "schedulers")
	for _, s := range scheds {
		args := []string{"eval", "--experiment", "das-table1", "--schedulers", s}
		_, err := inProcess(args...)
		unknown(t, args, err)
	}
	families, variants := listed(t, "families")
	for _, f := range families {
		if len(variants[f]) == 0 {
			t.Errorf("list families gives %s no variant", f)
		}
		for _, v := range variants[f] {
			args := []string{"train", "--family", f, "--variant", v}
			_, err := inProcess(args...)
			unknown(t, args, err)
		}
	}
	sources, _ := listed(t, "sources")
	for _, s := range sources[1:] { // the first is the generator, datasets.source only
		args := []string{"ingest", "--source", s}
		_, err := inProcess(args...)
		unknown(t, args, err)
	}
	presets, _ := listed(t, "presets")
	for _, p := range presets {
		if _, err := inProcess("config", "show", "--preset", p); err != nil {
			t.Errorf("config show --preset %s: %v", p, err)
		}
	}

	// A mistyped name: the closest one, and the layer it came from.
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"plan", "--only", "das-tabel1", "--out", out}, []string{"did you mean das-table1?", "from flag --only", "das-wilcoxon"}},
		{[]string{"eval", "--experiment", "das-tabel1"}, []string{"did you mean das-table1?"}},
		{[]string{"eval", "--experiment", "das-table1", "--schedulers", "tetrs"}, []string{"did you mean tetris?"}},
		{[]string{"train", "--family", "mral"}, []string{"did you mean marl?"}},
		{[]string{"ingest", "--source", "google-2012"}, []string{"did you mean google-2011?"}},
		{[]string{"list", "experiment"}, []string{"did you mean experiments?"}},
		{[]string{"plan", "--preset", "nigthly", "--out", out}, []string{"did you mean nightly?", "from flag --preset"}},
		{[]string{"plan", "--set", "eval.seed=3", "--out", out}, []string{"did you mean eval.seeds", "--set eval.seed=3"}},
		{[]string{"plan", "--workers", "0", "--out", out}, []string{"workers: must be", "from flag --workers"}},
		{[]string{"plan", "--set", "eval.seeds=100000", "--out", out}, []string{"eval.seeds: must be", "from --set eval.seeds=100000"}},
	} {
		_, err := inProcess(tc.args...)
		if err == nil {
			t.Errorf("schedlab %s: no error", strings.Join(tc.args, " "))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("schedlab %s: %v\nwant %q in it", strings.Join(tc.args, " "), err, w)
			}
		}
		if len(err.Error()) > 1000 {
			t.Errorf("schedlab %s: a %d-character error", strings.Join(tc.args, " "), len(err.Error()))
		}
	}
	t.Setenv("SCHEDLAB_SEDE", "3")
	if _, err := inProcess("plan", "--out", out); err == nil || !strings.Contains(err.Error(), "did you mean SCHEDLAB_SEED?") {
		t.Errorf("SCHEDLAB_SEDE=3 schedlab plan: %v, want SCHEDLAB_SEED suggested", err)
	}
}

// TestProfileOutIsDirectory: profile's --out names a directory, as every
// other --out does, so that the documented pair works as written; the
// older file form still writes the file, with a deprecation warning.
func TestProfileOutIsDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	samples := filepath.Join(dir, "samples")
	if _, errs, code := schedlab(t, nil, "profile", "synth", "--samples", "60", "--out", samples); code != 0 {
		t.Fatalf("profile synth --out DIR: exit %d: %s", code, errs)
	}
	if _, errs, code := schedlab(t, nil, "fit", "--samples", filepath.Join(samples, samplesFile), "--out", filepath.Join(dir, "fit")); code != 0 {
		t.Fatalf("fit --samples DIR/%s: exit %d: %s", samplesFile, code, errs)
	}
	old := filepath.Join(dir, "old.parquet")
	_, errs, code := schedlab(t, nil, "profile", "synth", "--samples", "60", "--out", old)
	if code != 0 || !strings.Contains(errs, "deprecated") {
		t.Fatalf("profile synth --out FILE.parquet: exit %d, want 0 and a deprecation warning: %s", code, errs)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the file form wrote no file: %v", err)
	}
}
