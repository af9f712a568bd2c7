package families_test

import (
	"testing"

	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/marl"
)

// TestEpisodes: every variant of the Episodic families reports the
// episodes its section gives it (train.marl.episodes, else the variant's
// default; train.das.episodes), and a family without it (deepsys) none.
func TestEpisodes(t *testing.T) {
	for _, s := range []training.Sections{
		{DAS: training.DASSection{Episodes: 7}},
		{DAS: training.DASSection{Episodes: 2}, MARL: training.MARLSection{Episodes: 5}},
	} {
		got := training.Episodes(s)
		for name, want := range map[string]int{
			"das": s.DAS.Episodes, "da+rwgp": s.DAS.Episodes, "dl2": s.DAS.Episodes, "dl2-das": s.DAS.Episodes,
			"rifling": s.DAS.Episodes, "rifling-ppo": s.DAS.Episodes,
			"marl-device": marl.EpisodesFor("marl-device", s), "marl-single": marl.EpisodesFor("marl-single", s),
		} {
			if n, ok := got[name]; !ok || n != want {
				t.Errorf("%+v: %s trains %d episodes (reported: %v), want %d", s, name, n, ok, want)
			}
		}
		if s.MARL.Episodes > 0 && got["marl-device"] != s.MARL.Episodes {
			t.Errorf("train.marl.episodes %d: marl-device reports %d", s.MARL.Episodes, got["marl-device"])
		}
		for _, name := range []string{"deepsys", "atte"} {
			if n, ok := got[name]; ok {
				t.Errorf("%s is not Episodic but reports %d episodes", name, n)
			}
		}
	}
}
