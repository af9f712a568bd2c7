package marl

import (
	"fmt"
	"strings"
	"testing"
)

// TestResumeKeyRollouts: a training of one rollout per update without
// lag keeps the resume key it had before Config had Rollouts and Lag (0
// and 1 rollouts alike), so that a state kept then still resumes; more
// rollouts, or a lag, name another training.
func TestResumeKeyRollouts(t *testing.T) {
	c := DefaultConfig()
	if lagged := resumeKey(c); !strings.HasSuffix(lagged, " ValidateEvery:5}@lag=1") {
		t.Errorf("key of the default configuration %q: want the lag after the configuration", lagged)
	}
	c.Lag = 0
	k0 := resumeKey(c)
	if strings.Contains(k0, "Rollouts") || strings.Contains(k0, "Lag") || !strings.HasSuffix(k0, " ValidateEvery:5}") {
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
	c.Lag = 1
	if k3 := resumeKey(c); k3 != k0+"@rollouts=2@lag=1" {
		t.Errorf("Rollouts 2, lag 1 give key %q", k3)
	}
	c.Precision = PrecisionFloat64 // the default, named
	if k4 := resumeKey(c); k4 != k0+"@rollouts=2@lag=1" {
		t.Errorf("Precision float64 gives key %q", k4)
	}
	c.Precision = PrecisionFloat32
	if k5 := resumeKey(c); k5 != k0+"@rollouts=2@lag=1@precision=float32" {
		t.Errorf("Precision float32 gives key %q", k5)
	}
}

// TestValidatePrecision names the key and its values.
func TestValidatePrecision(t *testing.T) {
	c := DefaultConfig()
	c.Precision = "float16"
	if err := c.Validate(); err == nil || err.Error() != `precision: must be float64 or float32, got "float16"` {
		t.Errorf("Precision float16: %v", err)
	}
}

// TestValidateLag names the key and its values.
func TestValidateLag(t *testing.T) {
	for _, n := range []int{-1, 2} {
		c := DefaultConfig()
		c.Lag = n
		if err := c.Validate(); err == nil || err.Error() != fmt.Sprintf("lag: must be 0 or 1, got %d", n) {
			t.Errorf("Lag %d: %v", n, err)
		}
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
