package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
)

func TestVerdictCounts(t *testing.T) {
	f := filepath.Join(t.TempDir(), "claims.csv")
	csv := "id,verdict,note\na,not comparable,x\nb,holds,\"y, z\"\nc,not comparable,\nd,does not hold,\n"
	if err := os.WriteFile(f, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := verdictCounts(f)
	if want := "4 claims: 1 holds, 1 does not hold, 0 inconclusive, 2 not comparable"; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if err := os.WriteFile(f, []byte("id,note\na,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := verdictCounts(f); err == nil {
		t.Errorf("a table without a verdict column was counted")
	}
}

// The stage table pads names to the longest, and an interrupted run's
// unfinished stages read "interrupted".
func TestStageTable(t *testing.T) {
	ss := []pipeline.StageManifest{{Name: "fit", Status: "ran"}, {Name: "eval-marl-vs-single-convergence", Status: "failed"}}
	var b bytes.Buffer
	stageTable(&b, ss, true)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || strings.Index(lines[0], "ran") != strings.Index(lines[1], "interrupted") {
		t.Errorf("columns do not line up:\n%s", b.String())
	}
	if !strings.Contains(lines[1], "interrupted") {
		t.Errorf("an interrupted stage reads:\n%s", lines[1])
	}
	b.Reset()
	stageTable(&b, ss, false)
	if !strings.Contains(b.String(), "failed") {
		t.Errorf("a failed stage of a run not interrupted reads:\n%s", b.String())
	}
}
