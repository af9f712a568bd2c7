package dl2

import (
	"math"
	"strings"
	"testing"
)

// TestValidateOneMessagePerKey: each bad key gets its own message naming
// it alone (issue 16: "dl2.learning_rate, max_grad_norm: must be > 0 and
// ≥ 0, got +Inf, 1" named two keys for one bad value).
func TestValidateOneMessagePerKey(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.LR = math.Inf(1) }, "dl2.learning_rate: must be > 0 and finite, got +Inf"},
		{func(c *Config) { c.MaxGradNorm = math.Inf(1) }, "dl2.max_grad_norm: must be ≥ 0 and finite, got +Inf"},
		{func(c *Config) { c.MaxGradNorm = -1 }, "dl2.max_grad_norm: must be ≥ 0 and finite, got -1"},
		{func(c *Config) { c.Jobs = 0 }, "dl2.jobs: must be ≥ 1, got 0"},
		{func(c *Config) { c.Hidden = 0 }, "dl2.hidden: must be ≥ 1, got 0"},
		{func(c *Config) { c.Lambda = math.NaN() }, "dl2.lambda: must be in [0, 1], got NaN"},
		{func(c *Config) { c.Heuristic = "" }, "dl2.heuristic: must name"},
		{func(c *Config) { c.WarmupEpochs = -1 }, "dl2.warmup_epochs: must be ≥ 0, got -1"},
		{func(c *Config) { c.RewardCap = math.Inf(1) }, "dl2.reward_cap: must be > 0 and finite, got +Inf"},
		{func(c *Config) { c.SegmentJobs = 0 }, "dl2.segment_jobs: must be ≥ 1, got 0"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || strings.Count(err.Error(), "dl2.") != 1 {
			t.Errorf("got %v, want one message %q", err, tc.want)
		}
	}
}
