package marl

import (
	"math"
	"testing"
)

// TestValidateOneMessagePerKey: each bad key gets its own message naming
// it alone, and non-finite coefficients are refused (issue 16).
func TestValidateOneMessagePerKey(t *testing.T) {
	for _, tc := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Episodes = -1 }, "episodes: must be >= 0, got -1"},
		{func(c *Config) { c.ValidateEvery = -2 }, "validate_every: must be >= 0, got -2"},
		{func(c *Config) { c.MaxGradNorm = math.Inf(1) }, "max_grad_norm: must be >= 0 and finite, got +Inf"},
		{func(c *Config) { c.EntropyCoef = math.NaN() }, "entropy_coef: must be >= 0 and finite, got NaN"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
