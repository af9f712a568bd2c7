package external_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPythonUnittest runs the Python client's own tests (python/tests,
// standard library unittest), so that `make test` covers them; the
// environment's test needs a schedlab binary and runs from cmd/schedlab
// (TestPolicyEnvPython).
func TestPythonUnittest(t *testing.T) {
	py := python3(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "python"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-t", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest in %s: %v\n%s", dir, err, out)
	}
	t.Logf("%s", out)
}
