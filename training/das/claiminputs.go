package das

import (
	"fmt"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
)

// What the claims say a DAS row was tested at (its episodes and trainer),
// and whether its model learned.
var (
	_ training.Episodic  = family{}
	_ training.TrainedBy = family{}
	_ training.Learner   = family{}
)

// Episodes is train.das.episodes (per learning rate) for every variant.
func (family) Episodes(_ schedulers.Name, s training.Sections) int {
	return daspaper.Section.Get(s).Episodes
}

// TrainedBy is TrainerOf.
func (family) TrainedBy(v schedulers.Name) string { return TrainerOf(v) }

// NotLearned judges a DAS model by its final validation: the zero
// ranking heads of an untrained network make it FIFO-FirstFit but for
// how it breaks ties, so a model learned only if its share of decisions
// unlike FIFO-FirstFit exceeds its untrained reference's on the same jobs
// by training.FIFOLike or more (das-table1-training's notes flag the same
// models). A curve without both shares (one from before they were
// measured) cannot say.
func (family) NotLearned(_ schedulers.Name, rows []training.Curve) string {
	v, ok := training.FinalValidation(rows)
	if !ok || v.NotFIFO == nil || v.UntrainedNotFIFO == nil {
		return ""
	}
	share, ref := *v.NotFIFO, *v.UntrainedNotFIFO
	if share-ref >= training.FIFOLike {
		return ""
	}
	return fmt.Sprintf("unlike FIFO-FirstFit on %.1f %% of validation decisions, the untrained reference %.1f %%", 100*share, 100*ref)
}
