package marl

import (
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

var _ training.Episodic = family{}

// Episodes is EpisodesFor: train.marl.episodes, or v's default when 0.
func (family) Episodes(v schedulers.Name, s training.Sections) int { return EpisodesFor(v, s) }
