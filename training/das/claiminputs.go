package das

import (
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

// What the claims say a DAS row was tested at: its episodes and trainer.
var (
	_ training.Episodic  = family{}
	_ training.TrainedBy = family{}
)

// Episodes is train.das.episodes (per learning rate) for every variant.
func (family) Episodes(_ schedulers.Name, s training.Sections) int {
	return daspaper.Section.Get(s).Episodes
}

// TrainedBy is TrainerOf.
func (family) TrainedBy(v schedulers.Name) string { return TrainerOf(v) }
