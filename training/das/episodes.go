package das

import (
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
)

var _ training.Episodic = family{}

// Episodes is train.das.episodes (per learning rate) for every variant.
func (family) Episodes(_ schedulers.Name, s training.Sections) int { return s.DAS.Episodes }
