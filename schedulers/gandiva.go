package schedulers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sim"
)

// GandivaRoundS is the default length of Gandiva's time slice, seconds:
// the round at whose end a time-sliced job is suspended and a waiting one
// resumed.
const GandivaRoundS = 60

// Gandiva is the time-slicing of Gandiva (Xiao et al., "Gandiva:
// Introspective Cluster Scheduling for Deep Learning", OSDI 2018): when the
// cluster is oversubscribed, jobs share it in time by suspend-resume, in
// rounds, as an operating system time-slices processes; when every job
// fits, nothing is suspended. Gandiva's other mechanisms (packing,
// migration, grow-shrink) are not modelled here.
//
// The rules, each a choice where the paper gives the mechanism and not
// an algorithm:
//   - Rounds are RoundS long (60 s by default) and end at multiples of
//     RoundS from time 0; the policy asks the engine to wake it at a
//     round's end whenever a job waits.
//   - Between round ends (at arrivals and completions) no job is
//     suspended: the running jobs keep their slots and the waiting ones
//     start, first fit, where they fit, the longest-waiting first.
//   - At a round's end the jobs are taken round-robin: those that waited
//     (the ones that never ran, in arrival order, then those whose last
//     stint ended longest ago) before those that ran in the round that
//     ends; they are admitted in that order and a running job that no
//     longer fits is suspended (sim.Decision.Preempt), keeping its
//     progress. The restart cost is the simulator's (sim.restart_s).
//
// It reads no duration: only arrival order and what ran when.
type Gandiva struct {
	roundS float64
	// lastRan is, per job index, when the job's last stint ended (now,
	// for a job that is running); −Inf for a job that never ran.
	lastRan []float64
	order   []*rjob
	runnable
}

var _ sim.Decider = (*Gandiva)(nil)

// NewGandiva returns Gandiva's time-slicing with rounds of roundS seconds
// (0: GandivaRoundS).
func NewGandiva(roundS float64) (*Gandiva, error) {
	if roundS == 0 {
		roundS = GandivaRoundS
	}
	if !(roundS > 0) || math.IsInf(roundS, 0) {
		return nil, fmt.Errorf("gandiva: round_s must be > 0 and finite, got %v", roundS)
	}
	return &Gandiva{roundS: roundS}, nil
}

// Name implements sim.Scheduler.
func (*Gandiva) Name() string { return "gandiva" }

// Schedule implements sim.Scheduler (see scheduleVia).
func (g *Gandiva) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	return scheduleVia(ctx, g, st)
}

// Decide implements sim.Decider.
func (g *Gandiva) Decide(_ context.Context, st *sim.State) (sim.Decision, error) {
	now := st.Now
	g.sync(st, nil, func(j *rjob) {
		for len(g.lastRan) <= j.js.Index {
			g.lastRan = append(g.lastRan, math.Inf(-1))
		}
	})
	// A round ends at this decision when now is on a multiple of the
	// round (the wake-up asked for it, or an event fell on it).
	roundEnd := math.Mod(now, g.roundS) == 0 && now > 0
	for _, j := range g.list {
		if j.running {
			g.lastRan[j.js.Index] = now
		}
	}
	g.order = append(g.order[:0], g.list...)
	ran := func(j *rjob) bool { return j.running }
	if roundEnd {
		// Round-robin: who waited before who ran.
		ran = func(*rjob) bool { return false }
	}
	slices.SortStableFunc(g.order, func(a, b *rjob) int {
		if ra, rb := ran(a), ran(b); ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return cmp.Compare(g.lastRan[a.js.Index], g.lastRan[b.js.Index])
	})
	d := g.walk(st, g.order)
	for _, j := range g.list {
		if !j.running {
			d.WakeS = (math.Floor(now/g.roundS) + 1) * g.roundS
			break
		}
	}
	return d, nil
}
