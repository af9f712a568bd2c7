// Package pythontest finds the Python interpreter for tests that start
// Python policies or Python's own tests.
//
// Interpreter resolves python3 on PATH once per process to the
// interpreter it runs (sys.executable). Where python3 is a wrapper
// (pyenv's shims are shell scripts), each start of the wrapper costs more
// processor time than a replay's whole exchange with a policy; tests that
// start the interpreter itself pay it once. A test without Python skips,
// unless SL_TEST_REQUIRE_PYTHON=1 (CI) makes that a failure.
package pythontest

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Interpreter returns the path of the Python interpreter that python3 on
// PATH runs, or python3's own path when it cannot say; it skips the test
// when there is no python3, or fails it under SL_TEST_REQUIRE_PYTHON=1.
func Interpreter(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("SL_TEST_REQUIRE_PYTHON") == "1" {
			t.Fatalf("python3 is required (SL_TEST_REQUIRE_PYTHON=1): %v", err)
		}
		t.Skip("no python3:", err)
	}
	resolved.once.Do(func() {
		out, err := exec.Command(p, "-c", "import sys; print(sys.executable)").Output()
		if err == nil {
			resolved.path = strings.TrimSpace(string(out))
		}
	})
	if resolved.path != "" {
		return resolved.path
	}
	return p
}

// resolved is python3's sys.executable, asked once per process.
var resolved struct {
	once sync.Once
	path string
}
