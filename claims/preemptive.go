package claims

import (
	"fmt"
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
	register(paperTiresias, "tiresias-srtf-vs-las", "Tiresias (NSDI '19) §6",
		"SRTF, which knows every job's duration (an oracle), has a lower mean JCT than 2D-LAS: the margin is what that knowledge is worth",
		"comparable: 2D-LAS close to policies with perfect knowledge (the paper's abstract)",
		comparison{experiment: evaluation.Preemptive, claimed: []string{"srtf"}, against: []string{"tiresias-las"}, metrics: []metric{jct}, scale: preemptiveScale})
}

// preemptiveScale is the preemptive experiment's jobs per column and
// clusters, as the run configured them.
func preemptiveScale(in *Input, c comparison) string {
	var names []string
	for _, cl := range in.Config.Preemptive.Clusters {
		names = append(names, cl.Name)
	}
	return fmt.Sprintf("%d jobs per trace on %s", in.jobCount(c.experiment, firstRow(in, c)), strings.Join(names, ", "))
}
