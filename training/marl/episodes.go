package marl

import (
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

var _ training.Episodic = family{}

// Episodes is EpisodesFor: train.marl.episodes, or v's default when 0.
func (family) Episodes(v schedulers.Name, s training.Sections) int { return EpisodesFor(v, s) }

var _ training.Arrivals = family{}

// TrainingArrivals is train.marl.arrivals in words: "Google-pattern" for
// ArrivalsGoogle, "uniform" otherwise.
func (family) TrainingArrivals(_ schedulers.Name, s training.Sections) string {
	if Section.Get(s).Arrivals == ArrivalsGoogle {
		return "Google-pattern"
	}
	return "uniform"
}
