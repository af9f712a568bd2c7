package daspaper

import (
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

var _ training.Episodic = (*Baseline)(nil)

// Episodes is train.das.episodes for every variant of the baseline.
func (b *Baseline) Episodes(_ schedulers.Name, s training.Sections) int {
	return Section.Get(s).Episodes
}
