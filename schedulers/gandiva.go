package schedulers

import (
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
	// The runnable jobs in three queues, each in the order a round needs,
	// kept from one decision to the next (a queue days deep is sorted
	// once, not at every round): fresh, the jobs that never ran, in
	// arrival order; waited, the jobs that ran and wait, by (lastRan,
	// arrival); run, the running jobs, in arrival order.
	fresh, waited, run []*rjob
	// order is the round's order as the queues (and, at a round end, the
	// merge of the jobs that ran with those that waited since this
	// instant, in merged) that the walk visits one after the other: a
	// queue days deep is not copied at every decision.
	order  [][]*rjob
	merged []*rjob
	runnable
}

var (
	_ sim.Decider       = (*Gandiva)(nil)
	_ sim.ProgressBlind = (*Gandiva)(nil)
)

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

// IgnoresProgress implements sim.ProgressBlind: the rounds keep their own
// clocks (rjob), never State.Since.Progress.
func (*Gandiva) IgnoresProgress() {}

// Schedule implements sim.Scheduler (see scheduleVia).
func (g *Gandiva) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	return scheduleVia(ctx, g, st)
}

// Decide implements sim.Decider.
func (g *Gandiva) Decide(_ context.Context, st *sim.State) (sim.Decision, error) {
	g.roundOrder(st)
	return g.admit(st), nil
}

// roundOrder brings the queues up to date with st and sets g.order, this
// decision's order.
func (g *Gandiva) roundOrder(st *sim.State) {
	now := st.Now
	g.sync(st, func(*rjob) { g.run = removeGone(g.run) }, func(j *rjob) {
		for len(g.lastRan) <= j.js.Index {
			g.lastRan = append(g.lastRan, math.Inf(-1))
		}
		g.fresh = append(g.fresh, j)
	})
	// A round ends at this decision when now is on a multiple of the
	// round (the wake-up asked for it, or an event fell on it).
	roundEnd := math.Mod(now, g.roundS) == 0 && now > 0
	for _, j := range g.run {
		g.lastRan[j.js.Index] = now
	}
	// The order is the list's sorted stably by lastRan (−Inf for the
	// fresh, now for the running), the running jobs first between round
	// ends; the queues hold it in pieces. Only a job that waited since
	// an earlier decision at this same instant ties with the running
	// ones, and then arrival order decides.
	if roundEnd {
		k := len(g.waited)
		for k > 0 && g.lastRan[g.waited[k-1].js.Index] == now {
			k--
		}
		g.merged = mergeBySeq(g.merged[:0], g.waited[k:], g.run)
		g.order = append(g.order[:0], g.fresh, g.waited[:k], g.merged)
	} else {
		g.order = append(g.order[:0], g.run, g.fresh, g.waited)
	}
}

// admit walks g.order and moves the jobs the decision starts and
// preempts between the queues.
func (g *Gandiva) admit(st *sim.State) sim.Decision {
	now := st.Now
	d := g.walk(st, g.order...)
	clear(g.merged) // no job kept alive by the scratch
	if len(d.Start) > 0 {
		// The jobs started are the only running ones in the two queues:
		// those that never ran (lastRan still −Inf) in fresh, the others
		// in waited.
		fresh := 0
		for _, p := range d.Start {
			if math.IsInf(g.lastRan[p.Job], -1) {
				fresh++
			}
		}
		g.fresh = dropRunning(g.fresh, fresh)
		g.waited = dropRunning(g.waited, len(d.Start)-fresh)
		for _, p := range d.Start {
			j := g.get(p.Job)
			g.run = slices.Insert(g.run, bySeq(g.run, j.seq), j)
		}
	}
	if len(d.Preempt) > 0 {
		g.run = slices.DeleteFunc(g.run, func(j *rjob) bool { return !j.running })
		for _, i := range d.Preempt {
			// lastRan is now: after every job that waited before, and
			// among this instant's by arrival.
			j := g.get(i)
			k := len(g.waited)
			for k > 0 && g.lastRan[g.waited[k-1].js.Index] == now && g.waited[k-1].seq > j.seq {
				k--
			}
			g.waited = slices.Insert(g.waited, k, j)
		}
	}
	if len(g.fresh)+len(g.waited) > 0 {
		d.WakeS = (math.Floor(now/g.roundS) + 1) * g.roundS
	}
	return d
}

// dropRunning removes the n running jobs from q, keeping the others'
// order. The jobs a decision starts are mostly the queue's first (the
// longest waiting), so the queue is read only up to the nth running
// job, the jobs before it move towards the end, and the queue then
// starts later in its array: a long tail is neither read nor moved for
// a few jobs at the head.
func dropRunning(q []*rjob, n int) []*rjob {
	last := -1
	for i := 0; n > 0; i++ {
		if q[i].running {
			last = i
			n--
		}
	}
	k := last + 1 // q[k:] is kept; the kept jobs before last fill in below k
	for i := last - 1; i >= 0; i-- {
		if !q[i].running {
			k--
			q[k] = q[i]
		}
	}
	clear(q[:k]) // no job kept alive by the array's head
	return q[k:]
}

// bySeq returns where a job that arrived seq-th goes in q, a queue in
// arrival order (rjob.seq): the first place whose job arrived later.
// What slices.BinarySearchFunc with cmp.Compare on seq returns, for
// distinct seqs, without a call per comparison.
func bySeq(q []*rjob, seq uint32) int {
	lo, hi := 0, len(q)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if q[m].seq < seq {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// mergeBySeq appends to dst the jobs of a and b, each in arrival order,
// merged in arrival order.
func mergeBySeq(dst, a, b []*rjob) []*rjob {
	for len(a) > 0 && len(b) > 0 {
		if a[0].seq < b[0].seq {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, b = append(dst, b[0]), b[1:]
		}
	}
	return append(append(dst, a...), b...)
}
