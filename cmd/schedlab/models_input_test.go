package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalKeepsModelsDir: every file beneath eval's --models directory is
// an input, so an eval whose --out is that directory refuses to replace
// one of them (issue 50: files read inside a command are protected like
// those its flags name).
func TestEvalKeepsModelsDir(t *testing.T) {
	t.Parallel()
	models := t.TempDir()
	table := filepath.Join(models, "tables", "marl-arrivals.md")
	if err := os.MkdirAll(filepath.Dir(table), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(table, []byte("a model's notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := schedlab(t, nil, "eval", "--experiment", "marl-arrivals", "--schedulers", "tetris-pack", "--intervals", "1",
		"--set", "eval.marl_arrivals.fitted_interference=false", "--models", models, "--out", models)
	if code == 0 {
		t.Errorf("eval replaced a file of its --models directory and exited 0")
	} else if !strings.Contains(stderr, "input") {
		t.Errorf("exit %d, but the error does not say an input is in the way:\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(table); string(b) != "a model's notes\n" {
		t.Errorf("the models directory's file now holds %q", b)
	}
}
