package das

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/training/trainingtest"
)

// TestValidateOneMessagePerKey: each bad key gets its own message naming
// it alone, and non-finite numbers are refused (issue 16).
func TestValidateOneMessagePerKey(t *testing.T) {
	trainingtest.CheckRefusals(t, DefaultConfig, []trainingtest.Refusal[Config]{
		{Set: func(c *Config) { c.MaxGradNorm = math.Inf(1) }, Want: "das.max_grad_norm: must be ≥ 0 and finite, got +Inf"},
		{Set: func(c *Config) { c.LearningRates = []float64{1e-4, math.NaN()} }, Want: "das.learning_rates[1]: must be > 0 and finite, got NaN"},
		{Set: func(c *Config) { c.SegmentJobs = 0 }, Want: "das.segment_jobs: must be ≥ 1, got 0"},
		{Set: func(c *Config) { c.MaxJobs = 1 }, Want: "das.max_jobs: must be ≥ 2, got 1"},
		{Set: func(c *Config) { c.ValJobs = -1 }, Want: "das.val_jobs: must be ≥ 0, got -1"},
		{Set: func(c *Config) { c.ValidateEvery = 0 }, Want: "das.validate_every: must be ≥ 1, got 0"},
		{Set: func(c *Config) { c.Heads = 0 }, Want: "das.heads: must be ≥ 1, got 0"},
		{Set: func(c *Config) { c.Hidden = 10 }, Want: "das.hidden: must be a positive multiple of heads (4), got 10"},
	})
}
