package claims

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/evaluation"
)

// paperTiresias is Gu et al., "Tiresias: A GPU Cluster Manager for
// Distributed Deep Learning", NSDI 2019: the claims the preemptive
// experiment tests.
const paperTiresias = "tiresias"

// registerPreemptive registers the preemptive experiment's claims: that
// discretised 2D-LAS, knowing no job's duration, beats FIFO on mean JCT
// (Tiresias §6 against YARN-CS, whose queue is the reference simulator's
// fifo: strict submission order), and what knowing durations is worth
// over it (SRTF, an oracle, against 2D-LAS; Tiresias reports its policies
// comparable to those that assume perfect knowledge). Each is tested in
// every column (trace × restart cost) and the least margin reported.
func registerPreemptive() {
	register(paperTiresias, "tiresias-las-vs-fifo", "Tiresias (NSDI '19) §6",
		"2D-LAS, which knows no job's duration, has a lower mean JCT than FIFO (strict submission order) on every trace and restart cost",
		"lower (up to 5.5× over YARN-CS on its testbed, the paper's abstract)",
		comparison{experiment: evaluation.Preemptive, claimed: []string{"tiresias-las"}, against: []string{"fifo-strict"}, metrics: []metric{jct}, scale: preemptiveScale})
	srtf := comparison{experiment: evaluation.Preemptive, claimed: []string{"srtf"}, against: []string{"tiresias-las"}, metrics: []metric{jct}, scale: preemptiveScale}
	decide := srtf.evaluate("tiresias-srtf-vs-las")
	add(Claim{ID: "tiresias-srtf-vs-las", Paper: paperTiresias, Source: "Tiresias (NSDI '19) §6",
		Text:       "SRTF, which knows every job's duration (an oracle), has a lower mean JCT than 2D-LAS: the margin is what that knowledge is worth",
		Claimed:    "comparable: 2D-LAS close to policies with perfect knowledge (the paper's abstract)",
		Experiment: srtf.experiment,
		Evaluate: func(in *Input) (Outcome, error) {
			out, err := decide(in)
			if err == nil && out.Verdict == DoesNotHold {
				out.Note = strings.Join(slices.DeleteFunc([]string{out.Note, srtfLosesNote}, func(s string) bool { return s == "" }), "; ")
			}
			return out, err
		}})
}

// srtfLosesNote says where SRTF's loss to 2D-LAS comes from, as measured
// on PAI and DAS Large (docs/measurements.md, "Why SRTF loses to 2D-LAS
// on PAI/Large"): not the restart cost (it loses at 0 s) nor a lease
// (both act at every arrival and completion), but GPU counts.
const srtfLosesNote = "where SRTF loses (PAI on Large at the nightly's size) it loses on the one-GPU jobs: it orders by remaining time alone, " +
	"so short jobs of many GPUs go first and preempt long jobs of one GPU, which are most of PAI's; 2D-LAS counts attained GPU-time and SRSF remaining GPU-time, " +
	"and both beat SRTF there. It loses at restart cost 0 as at 30 s, and every row acts at every event (no lease)"

// preemptiveScale is the preemptive experiment's jobs per column and
// clusters, as the run configured them.
func preemptiveScale(in *Input, c comparison) string {
	var names []string
	for _, cl := range evaluation.PreemptiveSection.Get(in.Config).Clusters {
		names = append(names, cl.Name)
	}
	return fmt.Sprintf("%d jobs per trace on %s", in.jobCount(c.experiment, firstRow(in, c)), strings.Join(names, ", "))
}
