package dastest

import (
	"testing"

	"github.com/schedlab/schedlab/training"
)

// LogEpisodes is an OnEpisode callback of a DAS-paper baseline's training
// that logs each curve row (episode, split, return, mean JCT) to t.
func LogEpisodes(t testing.TB) func(rows []training.Curve) {
	return func(rows []training.Curve) {
		for _, r := range rows {
			t.Logf("episode %d %-10s return %7.2f mean JCT %6.0f s", r.Episode, r.Split, r.Return, r.MeanJCT)
		}
	}
}
