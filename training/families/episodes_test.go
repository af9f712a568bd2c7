package families_test

import (
	"testing"

	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/marl"
)

// TestEpisodes: every variant of the Episodic families reports the
// episodes its section gives it (train.marl.episodes, else the variant's
// default; train.das.episodes), and a family without it (deepsys) none.
func TestEpisodes(t *testing.T) {
	for _, s := range []training.Sections{
		daspaper.Section.With(training.Sections{}, daspaper.Settings{Episodes: 7}),
		marl.Section.With(daspaper.Section.With(training.Sections{}, daspaper.Settings{Episodes: 2}), marl.Settings{Episodes: 5}),
	} {
		got := training.Episodes(s)
		das, m := daspaper.Section.Get(s), marl.Section.Get(s)
		for name, want := range map[string]int{
			"das": das.Episodes, "da+rwgp": das.Episodes, "dl2": das.Episodes, "dl2-das": das.Episodes,
			"rifling": das.Episodes, "rifling-ppo": das.Episodes,
			"marl-device": marl.EpisodesFor("marl-device", s), "marl-single": marl.EpisodesFor("marl-single", s),
		} {
			if n, ok := got[name]; !ok || n != want {
				t.Errorf("%+v: %s trains %d episodes (reported: %v), want %d", s, name, n, ok, want)
			}
		}
		if m.Episodes > 0 && got["marl-device"] != m.Episodes {
			t.Errorf("train.marl.episodes %d: marl-device reports %d", m.Episodes, got["marl-device"])
		}
		for _, name := range []string{"deepsys", "atte"} {
			if n, ok := got[name]; ok {
				t.Errorf("%s is not Episodic but reports %d episodes", name, n)
			}
		}
	}
}
