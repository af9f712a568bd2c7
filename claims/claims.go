package claims

import (
	"fmt"
	"strings"
	"sync"

	"github.com/schedlab/schedlab/evaluation"
)

// Verdict is what a run says of a claim.
type Verdict string

// The verdicts (doc.go gives the rule that picks one).
const (
	Holds        Verdict = "holds"
	DoesNotHold  Verdict = "does not hold"
	Inconclusive Verdict = "inconclusive"
	NotRun       Verdict = "not run in this preset"
	// Untestable is a margin claim on mean JCT that did not hold where the
	// headroom of the cells it was tested on is below the claimed margin:
	// no scheduler, however good, could have shown it there (the floor,
	// evaluation.Headroom). VerdictText adds the two figures. It is also
	// any claim whose claimed learned row did not measurably learn
	// (Outcome.NotLearned), whatever the data said: the claim is about
	// the learned method, and a model that did not learn is not it.
	Untestable Verdict = "untestable here"
	// NotComparable is a claim of a paper tested on a workload that is not
	// the paper's (a DAS claim on a trace other than PAI): its figures
	// are ours, but they say nothing of the paper's.
	NotComparable Verdict = "not comparable"
)

// tested reports whether a verdict decided the claim (holds, does not
// hold, inconclusive) rather than set it aside.
func (v Verdict) Tested() bool { return v != NotRun && v != NotComparable }

// Claim is one claim of a paper that a run can test, registered once in
// registry.go: where it comes from, what it says, the paper's own figure,
// and how a run's outputs decide it.
type Claim struct {
	// ID names the claim in tables/claims.csv: stable across runs, so that
	// scripts can follow a verdict from night to night.
	ID string
	// Paper is the paper making the claim (evaluation.PaperDAS,
	// evaluation.PaperMARL).
	Paper string
	// Source is the table, figure or section the claim comes from
	// ("DAS Table 1").
	Source string
	// Text is the claim, in a sentence.
	Text string
	// Claimed is the paper's figure as text, shown when the outcome gives
	// none (a claim not run); an outcome may give a sharper one.
	Claimed string
	// Experiment is the experiment whose outputs decide the claim: a run
	// whose eval.experiments lacks it gets NotRun without Evaluate.
	Experiment string
	// Evaluate decides the claim from a run's outputs. An error is a run
	// whose outputs contradict its configuration (a listed experiment with
	// no rows, an unreadable file), never a claim that fails.
	Evaluate func(in *Input) (Outcome, error)
}

// Outcome is a claim's figures and verdict in one run.
type Outcome struct {
	Verdict Verdict
	// Claimed, when set, replaces Claim.Claimed (a figure read from the
	// run's own tables, as the calibration's).
	Claimed string
	// Ours is our figure as people read it.
	Ours string
	// Value is the statistic the verdict tests (NaN: none, as for a
	// combination of orderings), and Threshold the value it must exceed.
	Value, Threshold float64
	// CI is Value's 95 % interval over replicates and seeds; CI.N is the
	// number of samples (0: the figure is not a sample, e.g. a calibration
	// target computed once). With CI.N = 1 the verdict rests on the point
	// value and is marked so.
	CI evaluation.Interval
	// HasCI says whether CI was computed (a p-value has samples but no
	// interval of its own).
	HasCI bool
	// Seeds and Models count the distinct seeds and replicates among the
	// samples: an interval over the seeds of one trained model holds no
	// training noise.
	Seeds, Models int
	// Headroom is, for a margin claim on mean JCT, the largest margin any
	// scheduler could have had over the baseline in the test shown: a
	// scheduler at the floor, (baseline − floor) / baseline in per cent
	// (evaluation.MaxMargin of the cells' headroom). NaN when the claim
	// has none (fee, p-values, calibration) or the run has no floor.
	Headroom float64
	// NotLearned says why the claimed learned row's models did not
	// measurably learn, on the clusters the claim was tested on ("DAS did
	// not learn: unlike FIFO-FirstFit on 51.1 % of validation decisions,
	// the untrained reference 50.5 %"; Run.NotLearned); "" when they
	// learned or their family cannot say. A test resting on such a model
	// is untestable here whatever its verdict; the claim combines its
	// tests as usual (one such test and none failing with a model that
	// learned make it untestable).
	NotLearned string
	// TestedAt says at which scale the run tested the claim (the cluster,
	// the number of jobs), beside the paper's.
	TestedAt string
	// Note says why a claim was not run or how a figure was read.
	Note string
}

// Row is a claim and its outcome: one row of the scoreboard.
type Row struct {
	Claim
	Outcome
}

var registry struct {
	sync.RWMutex
	list []Claim
	byID map[string]bool
}

// papers registers the papers' claims (registry.go) on first use, not in
// an init function: their texts name learned rows by their display names,
// which the families register in their own init functions, and the
// binary (stages, cmd/schedlab) links the families, not this package.
var papers sync.Once

// Register adds a claim, after the papers' own. Claims list in
// registration order. Like evaluation.Register it panics on a programming
// error: an empty or duplicate id, no experiment or no Evaluate.
func Register(c Claim) {
	papers.Do(registerPapers)
	add(c)
}

// add is Register for the papers' claims: registerPapers and what it
// calls must use add, never Register, which would wait on papers, the
// sync.Once it runs under, for ever.
func add(c Claim) {
	registry.Lock()
	defer registry.Unlock()
	switch {
	case c.ID == "" || strings.ContainsAny(c.ID, " ,\"\n"):
		panic(fmt.Sprintf("claims: Register: bad claim id %q", c.ID))
	case registry.byID[c.ID]:
		panic("claims: Register called twice for claim " + c.ID)
	case c.Experiment == "" || c.Evaluate == nil:
		panic("claims: Register: claim " + c.ID + " needs an Experiment and Evaluate")
	}
	if registry.byID == nil {
		registry.byID = map[string]bool{}
	}
	registry.byID[c.ID] = true
	registry.list = append(registry.list, c)
}

// All lists the registered claims in registration order.
func All() []Claim {
	papers.Do(registerPapers)
	registry.RLock()
	defer registry.RUnlock()
	return append([]Claim(nil), registry.list...)
}

// Evaluate decides every registered claim from in: NotRun for a claim
// whose experiment in.Config does not list, else the claim's own
// Evaluate. Claims with a mark (the calibration's) may add rows: a row of
// tables/calibration.csv that no registered claim reads comes out as a
// row of its own, so that no target is lost.
func Evaluate(in *Input) ([]Row, error) {
	var rows []Row
	for _, c := range All() {
		if !in.Listed(c.Experiment) {
			rows = append(rows, Row{c, Outcome{Verdict: NotRun, Value: nanValue(), Threshold: nanValue(), Headroom: nanValue(),
				Note: c.Experiment + " is not in eval.experiments"}})
			continue
		}
		if c.Paper == evaluation.PaperDAS && in.Trace != "" {
			ref := evaluation.Reference{Traces: evaluation.PaperTraces}
			if ok, why := ref.Comparable(in.Trace); !ok {
				rows = append(rows, Row{c, Outcome{Verdict: NotComparable, Value: nanValue(), Threshold: nanValue(), Headroom: nanValue(), Note: why}})
				continue
			}
		}
		o, err := c.Evaluate(in)
		if err != nil {
			return nil, fmt.Errorf("claims: %s: %w", c.ID, err)
		}
		rows = append(rows, Row{c, o})
	}
	if in.Listed(evaluation.Calibration) {
		rows = append(rows, unreadCalibration(in)...)
	}
	return rows, nil
}
