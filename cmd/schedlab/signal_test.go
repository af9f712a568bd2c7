package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/pipeline"
)

// Every command exits 130 on SIGINT and 143 on SIGTERM, after cleaning up:
// ingest, plain and partitioned, leaves its output directory as it was,
// without a lock or a staging directory.
func TestSignalExitStatus(t *testing.T) {
	src := t.TempDir()
	head, err := os.ReadFile("../../datasets/testdata/pai-sim/simulator_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "a.csv"), head, 0o644)
	for _, tc := range []struct {
		sig  string
		code int
	}{{"INT", 130}, {"TERM", 143}} {
		for _, args := range [][]string{
			{"ingest", "--source", "pai-sim", "--input", filepath.Join(src, "a.csv")},
			{"ingest", "--source", "pai-sim", "--partitioned", "--input", src},
		} {
			out := t.TempDir()
			os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
			_, errs, code := schedlab(t, []string{signalVar + "=" + tc.sig}, append(args, "--out", out)...)
			if code != tc.code || !strings.Contains(errs, "interrupted") {
				t.Errorf("SIG%s during %s: exit %d, want %d; stderr %q", tc.sig, strings.Join(args[:4], " "), code, tc.code, errs)
			}
			ents, _ := os.ReadDir(out)
			if len(ents) != 1 || ents[0].Name() != "notes.txt" {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("SIG%s during %s left %v (want notes.txt alone, no %s, no staging)", tc.sig, args[0], names, pipeline.LockFile)
			}
		}
	}
	// A command that finishes before looking at its context exits with the
	// signal's status too.
	if _, _, code := schedlab(t, []string{signalVar + "=TERM"}, "version"); code != 143 {
		t.Errorf("SIGTERM during version: exit %d, want 143", code)
	}
}
