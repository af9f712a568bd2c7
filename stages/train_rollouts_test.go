package stages

import (
	"strings"
	"testing"

	"github.com/schedlab/schedlab/training/marl"
)

// TestMARLRolloutsKey: train.marl.rollouts is bounded with a message
// naming the key, and reaches the MARL family's config (plan.Config.Training).
func TestMARLRolloutsKey(t *testing.T) {
	cfg := quickConfig()
	for _, n := range []int{-1, marl.MaxRollouts + 1} {
		tc := cfg.Train
		marl.Section.Edit(&tc.Sections, func(m *marl.Settings) { m.Rollouts = n })
		err := tc.Validate()
		if err == nil || !strings.Contains(err.Error(), "train.marl.rollouts: must be in [0, 64]") {
			t.Errorf("rollouts %d: %v, want the key's bound", n, err)
		}
	}
	marl.Section.Edit(&cfg.Train.Sections, func(m *marl.Settings) { m.Rollouts = 3 })
	if err := cfg.Train.Validate(); err != nil {
		t.Fatal(err)
	}
	mt, err := cfg.Plan().Training("marl-device", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := mt.Config.(*marl.FamilyConfig).Rollouts; got != 3 {
		t.Errorf("marl's family config has rollouts %d, want 3", got)
	}
}
