package das

import (
	"math"
	"testing"
)

// TestValidateOneMessagePerKey: each bad key gets its own message naming
// it alone, and non-finite numbers are refused (issue 16).
func TestValidateOneMessagePerKey(t *testing.T) {
	for _, tc := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.MaxGradNorm = math.Inf(1) }, "das.max_grad_norm: must be ≥ 0 and finite, got +Inf"},
		{func(c *Config) { c.LearningRates = []float64{1e-4, math.NaN()} }, "das.learning_rates[1]: must be > 0 and finite, got NaN"},
		{func(c *Config) { c.SegmentJobs = 0 }, "das.segment_jobs: must be ≥ 1, got 0"},
		{func(c *Config) { c.MaxJobs = 1 }, "das.max_jobs: must be ≥ 2, got 1"},
		{func(c *Config) { c.ValJobs = -1 }, "das.val_jobs: must be ≥ 0, got -1"},
		{func(c *Config) { c.ValidateEvery = 0 }, "das.validate_every: must be ≥ 1, got 0"},
		{func(c *Config) { c.Heads = 0 }, "das.heads: must be ≥ 1, got 0"},
		{func(c *Config) { c.Hidden = 10 }, "das.hidden: must be a positive multiple of heads (4), got 10"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
