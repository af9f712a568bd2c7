package training

import "github.com/schedlab/schedlab/schedulers"

// FIFOLike is the share of validation decisions below which a learned
// row's final policy counts as FIFO-FirstFit under another name (it
// decides like FIFO-FirstFit on more than 95 % of them). It is also the
// least margin by which that share must exceed the untrained reference's
// (Curve.UntrainedNotFIFO) for the model to count as having learned: a
// network that learned nothing already differs from FIFO-FirstFit by how
// it breaks ties.
const FIFOLike = 0.05

// A Learner family says, from the learning curves of a row's trained
// models, whether they measurably learned to schedule. The claims
// set aside a verdict that rests on a model that did not ("untestable
// here"): it says nothing of the learned method, whichever way it went.
// A family without it makes no such judgement, and its rows' verdicts
// stand as the data give them.
type Learner interface {
	Family
	// NotLearned is why models of variant v did not measurably learn,
	// given the curves.parquet rows of each of its models (replicates,
	// in order), in words that follow "did not learn: " ("unlike
	// FIFO-FirstFit on 51.1 % of validation decisions, the untrained
	// reference 50.5 %"; with several models, which did not); "" when
	// every one learned, or the rows cannot say. One model that did not
	// learn is enough: a verdict over the models mixes it in.
	NotLearned(v schedulers.Name, models [][]Curve) string
}

// NotLearned is the judgement of the learned scheduler name's family on
// its models' curves (Learner), "" where the family makes none or name
// is not a learned scheduler.
func NotLearned(name schedulers.Name, models [][]Curve) string {
	if f, _, ok := VariantOf(name); ok {
		if l, ok := f.(Learner); ok {
			return l.NotLearned(name, models)
		}
	}
	return ""
}

// FinalValidation is the last validation row of a learning curve: the
// final model's. ok is false when the curve has none.
func FinalValidation(rows []Curve) (last Curve, ok bool) {
	for _, r := range rows {
		if r.Split == "validation" {
			last, ok = r, true
		}
	}
	return last, ok
}
