package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/internal/pythontest"
)

// TestPolicyEnvPython runs the Python environment's test (python/tests/
// test_env.py) against this test binary as schedlab: SchedlabEnv starts
// `policy-env` episodes, takes random feasible actions, and checks that an
// episode's return is minus its summed JCT and that it replays identically.
func TestPolicyEnvPython(t *testing.T) {
	t.Parallel()
	py := pythontest.Interpreter(t)
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "-v", "tests.test_env")
	cmd.Dir = filepath.Join("..", "..", "python")
	cmd.Env = append(cleanEnv(), execVar+"=1", raceOptions(), "SCHEDLAB_BIN="+self)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !testing.Verbose() {
		return
	}
	t.Logf("%s", out)
}
