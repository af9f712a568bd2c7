package marl

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/training/trainingtest"
)

// TestValidateOneMessagePerKey: each bad key gets its own message naming
// it alone, and non-finite coefficients are refused (issue 16).
func TestValidateOneMessagePerKey(t *testing.T) {
	trainingtest.CheckRefusals(t, DefaultConfig, []trainingtest.Refusal[Config]{
		{Set: func(c *Config) { c.Episodes = -1 }, Want: "episodes: must be >= 0, got -1"},
		{Set: func(c *Config) { c.ValidateEvery = -2 }, Want: "validate_every: must be >= 0, got -2"},
		{Set: func(c *Config) { c.MaxGradNorm = math.Inf(1) }, Want: "max_grad_norm: must be >= 0 and finite, got +Inf"},
		{Set: func(c *Config) { c.EntropyCoef = math.NaN() }, Want: "entropy_coef: must be >= 0 and finite, got NaN"},
	})
}
