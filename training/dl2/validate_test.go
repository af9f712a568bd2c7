package dl2

import (
	"math"
	"testing"

	"github.com/schedlab/schedlab/training/trainingtest"
)

// TestValidateOneMessagePerKey: each bad key gets its own message naming
// it alone (issue 16: "dl2.learning_rate, max_grad_norm: must be > 0 and
// ≥ 0, got +Inf, 1" named two keys for one bad value).
func TestValidateOneMessagePerKey(t *testing.T) {
	trainingtest.CheckRefusals(t, DefaultConfig, []trainingtest.Refusal[Config]{
		{Set: func(c *Config) { c.LR = math.Inf(1) }, Want: "dl2.learning_rate: must be > 0 and finite, got +Inf"},
		{Set: func(c *Config) { c.MaxGradNorm = math.Inf(1) }, Want: "dl2.max_grad_norm: must be ≥ 0 and finite, got +Inf"},
		{Set: func(c *Config) { c.MaxGradNorm = -1 }, Want: "dl2.max_grad_norm: must be ≥ 0 and finite, got -1"},
		{Set: func(c *Config) { c.Jobs = 0 }, Want: "dl2.jobs: must be ≥ 1, got 0"},
		{Set: func(c *Config) { c.Hidden = 0 }, Want: "dl2.hidden: must be ≥ 1, got 0"},
		{Set: func(c *Config) { c.Lambda = math.NaN() }, Want: "dl2.lambda: must be in [0, 1], got NaN"},
		{Set: func(c *Config) { c.Heuristic = "" }, Want: "dl2.heuristic: must name the warm-up teacher, a heuristic scheduler"},
		{Set: func(c *Config) { c.WarmupEpochs = -1 }, Want: "dl2.warmup_epochs: must be ≥ 0, got -1"},
		{Set: func(c *Config) { c.RewardCap = math.Inf(1) }, Want: "dl2.reward_cap: must be > 0 and finite, got +Inf"},
		{Set: func(c *Config) { c.SegmentJobs = 0 }, Want: "dl2.segment_jobs: must be ≥ 1, got 0"},
	})
}
