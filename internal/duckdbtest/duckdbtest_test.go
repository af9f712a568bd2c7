package duckdbtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuery installs the client where it is missing (.ci/run runs this
// test first, with RequireEnv=1, so that every read-back check after it
// finds DuckDB) and checks a query's columns, rows and value types, and
// Literal's quoting through DuckDB itself.
func TestQuery(t *testing.T) {
	r := Query(t, "SELECT 42::BIGINT AS n, 0.5::DOUBLE AS x, "+Literal("it's")+" AS s")
	if len(r.Columns) != 3 || r.Columns[0] != "n" || r.Columns[2] != "s" || len(r.Rows) != 1 {
		t.Fatalf("result %+v", r)
	}
	row := r.Rows[0]
	if Float(t, row[0]) != 42 || Float(t, row[1]) != 0.5 || row[2] != "it's" {
		t.Errorf("row %v, want 42, 0.5, it's", row)
	}
}

// TestRequired: where RequireEnv is 1, a missing node is a failure, not a
// skip (run in a subprocess, whose PATH has no node).
func TestRequired(t *testing.T) {
	if os.Getenv("DUCKDBTEST_CHILD") == "1" {
		Query(t, "SELECT 1")
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		require string
		want    string
	}{{"1", "--- FAIL: TestRequired"}, {"", "--- SKIP: TestRequired"}} {
		cmd := exec.Command(exe, "-test.run", "^TestRequired$", "-test.v")
		cmd.Env = append(os.Environ(), "DUCKDBTEST_CHILD=1", "PATH="+t.TempDir(), RequireEnv+"="+tc.require,
			"XDG_CACHE_HOME="+filepath.Join(t.TempDir(), "cache"))
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s=%q without node: want %q in\n%s", RequireEnv, tc.require, tc.want, out)
		}
	}
}
