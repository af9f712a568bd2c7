package das

import (
	"fmt"
	"strings"

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

// NotLearned judges each DAS model by its final validation: the zero
// ranking heads of an untrained network make it FIFO-FirstFit but for
// how it breaks ties, so a model learned only if its share of decisions
// unlike FIFO-FirstFit exceeds its untrained reference's on the same jobs
// by training.FIFOLike or more (das-table1-training's notes flag the same
// models). A curve without both shares (one from before they were
// measured) cannot say.
func (family) NotLearned(_ schedulers.Name, models [][]training.Curve) string {
	var which []string
	var shares, refs []string
	for i, rows := range models {
		v, ok := training.FinalValidation(rows)
		if !ok || v.NotFIFO == nil || v.UntrainedNotFIFO == nil || *v.NotFIFO-*v.UntrainedNotFIFO >= training.FIFOLike {
			continue
		}
		which = append(which, fmt.Sprint(i+1))
		shares, refs = append(shares, fmt.Sprintf("%.1f", 100**v.NotFIFO)), append(refs, fmt.Sprintf("%.1f", 100**v.UntrainedNotFIFO))
	}
	switch {
	case len(which) == 0:
		return ""
	case len(models) == 1:
		return fmt.Sprintf("unlike FIFO-FirstFit on %s %% of validation decisions, the untrained reference %s %%", shares[0], refs[0])
	case len(which) == 1:
		return fmt.Sprintf("model %s of %d, unlike FIFO-FirstFit on %s %% of validation decisions, its untrained reference %s %%", which[0], len(models), shares[0], refs[0])
	}
	return fmt.Sprintf("models %s of %d, unlike FIFO-FirstFit on %s %% of validation decisions, their untrained references %s %%",
		and(which), len(models), and(shares), and(refs))
}

// and lists words as people do: "1, 2 and 3".
func and(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
