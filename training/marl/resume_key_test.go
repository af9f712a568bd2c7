package marl

import (
	"strings"
	"testing"
)

// TestResumeKeyRollouts: a training of one rollout per update keeps the
// resume key it had before Config had Rollouts (0 and 1 alike), so that a
// state kept then still resumes; more rollouts name another training.
func TestResumeKeyRollouts(t *testing.T) {
	c := DefaultConfig()
	k0 := resumeKey(c)
	if strings.Contains(k0, "Rollouts") || !strings.HasSuffix(k0, " ValidateEvery:5}") {
		t.Errorf("key of one rollout %q: want the configuration as before Rollouts", k0)
	}
	c.Rollouts = 1
	if k1 := resumeKey(c); k1 != k0 {
		t.Errorf("Rollouts 1 gives key %q, 0 gives %q", k1, k0)
	}
	c.Rollouts = 2
	if k2 := resumeKey(c); k2 != k0+"@rollouts=2" {
		t.Errorf("Rollouts 2 gives key %q", k2)
	}
}

// TestValidateRollouts names the key and its bound.
func TestValidateRollouts(t *testing.T) {
	for _, n := range []int{-1, MaxRollouts + 1} {
		c := DefaultConfig()
		c.Rollouts = n
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), "rollouts: must be in [0, 64]") {
			t.Errorf("Rollouts %d: %v", n, err)
		}
	}
}
