// Package duckdbtest lets tests query files with DuckDB, an independent
// Parquet reader, through its Node.js client (npm package @duckdb/node-api).
// The client is installed with npm on first use into the user's cache
// directory and reused; a test is skipped, with the reason, when node or npm
// is missing or the install fails, and fails instead where the environment
// sets SL_TEST_REQUIRE_DUCKDB=1 (CI: .ci/run installs the client first, so
// that the read-back checks run rather than skip).
package duckdbtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Version is the pinned @duckdb/node-api release.
const Version = "1.5.6-r.1"

// RequireEnv is the environment variable that, set to 1, turns a skip for
// want of DuckDB into a failure.
const RequireEnv = "SL_TEST_REQUIRE_DUCKDB"

// unavailable skips t, or fails it where RequireEnv is 1.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf(format+" ("+RequireEnv+"=1: DuckDB is required)", args...)
	}
	t.Skipf(format, args...)
}

const script = `import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();
const reader = await conn.runAndReadAll(process.argv[2]);
process.stdout.write(JSON.stringify({columns: reader.columnNames(), rows: reader.getRowsJson()}));
`

// Result is what a query returned. Values are as DuckDB's JSON conversion
// gives them: numbers for DOUBLE, strings for BIGINT and HUGEINT.
type Result struct {
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
}

// Query runs sql in a fresh in-memory DuckDB and returns its result; it
// fails the test on an SQL error and skips it when DuckDB is unavailable
// (fails it where RequireEnv is 1).
func Query(t testing.TB, sql string) Result {
	t.Helper()
	dir := install(t)
	cmd := exec.Command("node", filepath.Join(dir, "query.mjs"), sql)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("duckdb: %v\nsql: %s\n%s", err, sql, errb.String())
	}
	var r Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("duckdb output: %v: %s", err, out.String())
	}
	return r
}

// install returns a directory holding node_modules/@duckdb/node-api and the
// query script, installing them once (under a file lock, so that test
// binaries of several packages running at once do not race).
func install(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable(t, "duckdb: %s not found; skipping the independent-reader check", tool)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "schedlab", "duckdb-node-"+Version)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		unavailable(t, "duckdb: %v", err)
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		unavailable(t, "duckdb: %v", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		unavailable(t, "duckdb: lock: %v", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(filepath.Join(dir, "query.mjs")); err == nil {
		return dir
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		unavailable(t, "duckdb: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"private": true, "type": "module"}`), 0o644); err != nil {
		unavailable(t, "duckdb: %v", err)
	}
	npm := exec.Command("npm", "install", "--silent", "--no-audit", "--no-fund", "@duckdb/node-api@"+Version)
	npm.Dir = tmp
	if out, err := npm.CombinedOutput(); err != nil {
		unavailable(t, "duckdb: npm install @duckdb/node-api@%s failed (%v); skipping:\n%s", Version, err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, "query.mjs"), []byte(script), 0o644); err != nil {
		unavailable(t, "duckdb: %v", err)
	}
	os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatalf("duckdb: %v", err)
	}
	return dir
}

// Literal quotes s as an SQL string literal.
func Literal(s string) string {
	return "'" + string(bytes.ReplaceAll([]byte(s), []byte("'"), []byte("''"))) + "'"
}

// Float converts a JSON value of a numeric column to float64.
func Float(t testing.TB, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case string:
		var f float64
		if _, err := fmt.Sscan(x, &f); err != nil {
			t.Fatalf("duckdb value %q is not a number", x)
		}
		return f
	}
	t.Fatalf("duckdb value %v (%T) is not a number", v, v)
	return 0
}
