package schedulers

import (
	"context"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// Greedy is the shape of every heuristic: an ordering rule ranks the pending
// jobs, and a placement rule puts each job's instances, one at a time, on
// servers of a working ledger. A job whose instances do not all fit is
// rolled back and stays pending; later jobs may still start (the DAS
// transition: "a job that does not fit stays pending").
type Greedy struct {
	name   string
	order  Order
	place  Placer
	buf    []*sim.JobState
	failed [][]datasets.Task
	ledger sim.Ledger

	// byShape's scratch
	cursor   []int
	heads    []int
	rejected []int
	sums     ledgerSums
}

func (g *Greedy) failedLike(j *sim.JobState) bool {
	for _, f := range g.failed {
		if slices.Equal(f, j.Job.Tasks) {
			return true
		}
	}
	return false
}

// Order ranks pending jobs: it returns st.Pending in its chosen order,
// either appended to dst or, when the order is submission order, st.Pending
// itself (which callers must then only read). It must not read
// State.Since.Progress: Greedy promises sim.ProgressBlind.
type Order func(st *sim.State, dst []*sim.JobState) []*sim.JobState

// Placer chooses a server for instance i of job j given the ledger, or
// returns −1 when none fits. Placers may keep per-decision state (reset by
// Begin). A Placer must not read State.Since.Progress: Greedy promises
// sim.ProgressBlind.
type Placer interface {
	Begin(st *sim.State)
	Pick(st *sim.State, l *sim.Ledger, j *sim.JobState, i int) int
	// Booked tells the placer an instance was booked on server (so it can
	// account for tentative co-runners); Unbooked undoes it.
	Booked(j *sim.JobState, i, server int)
	Unbooked(j *sim.JobState, i, server int)
}

// NewGreedy combines an ordering and a placement rule.
func NewGreedy(name string, order Order, place Placer) *Greedy {
	return &Greedy{name: name, order: order, place: place}
}

// Name implements sim.Scheduler.
func (g *Greedy) Name() string { return g.name }

var _ sim.ProgressBlind = (*Greedy)(nil)

// IgnoresProgress implements sim.ProgressBlind: an Order and a Placer
// never read State.Since.Progress (their contracts say so).
func (g *Greedy) IgnoresProgress() {}

// Schedule implements sim.Scheduler.
func (g *Greedy) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	if len(st.Pending) == 0 {
		return nil, nil
	}
	jobs := g.order(st, g.buf[:0])
	fifo := len(jobs) == len(st.Pending) && &jobs[0] == &st.Pending[0]
	if cap(jobs) > 0 && !fifo {
		g.buf = jobs
	}
	l := &g.ledger
	l.CopyFrom(st)
	g.place.Begin(st)
	if fifo {
		return g.byShape(ctx, st)
	}
	var out []sim.Placement
	var arena []sim.Slot // this decision's placements' slots
	free, most := sums(l)
	// Within one decision the ledger only shrinks, so a job shaped exactly
	// like one that failed fails too: skip it without scanning servers.
	g.failed = g.failed[:0]
	for n, j := range jobs {
		if n&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// Cheap reject: the job cannot fit in what is left in total.
		if !j.Total.Fits(free) || !j.Instances[0].Demand.Fits(most) {
			continue
		}
		if g.failedLike(j) {
			continue
		}
		if slots, ok := placeJob(st, l, g.place, j, &arena, nil); ok {
			out = append(out, sim.Placement{Job: j.Index, Slots: slots})
			free, most = sums(l)
		} else {
			g.failed = append(g.failed, j.Job.Tasks)
		}
	}
	return out, nil
}

// byShape is Schedule's loop for submission order, visiting only the jobs
// the loop would try. The loop skips a job when it cannot fit the free
// totals (the cheap reject) or is shaped like one that failed; within a
// decision the ledger only shrinks, so once a job of some shape is skipped
// or fails, every later job of that shape is skipped too. byShape walks
// the pending jobs shape by shape (sim's PendingShapes), merged back into
// submission order by a heap, and drops a shape at its first skip or
// failure: the same placer calls in the same order as the loop over
// st.Pending, at a cost per decision of the shapes and the placements
// instead of the queue's length. One caveat keeps it exact: a failed
// placement gives its instances back, and f − d + d can exceed f by an
// ulp, so the totals recomputed after the next placement may grow; then
// the shapes dropped by the cheap reject (whose test could pass again)
// rejoin from their next job.
func (g *Greedy) byShape(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	l := &g.ledger
	groups := st.PendingShapes()
	g.cursor = slices.Grow(g.cursor[:0], len(groups))[:len(groups)]
	clear(g.cursor)
	g.heads = g.heads[:0]
	g.rejected = g.rejected[:0]
	ls := &g.sums
	ls.reset(l)
	free, most := ls.update(l)
	cheap := func(j *sim.JobState) bool {
		return !j.Total.Fits(free) || !j.Instances[0].Demand.Fits(most)
	}
	for k, q := range groups {
		if cheap(q[0]) {
			g.rejected = append(g.rejected, k)
			continue
		}
		g.heads = append(g.heads, k)
	}
	h := shapeHeap{groups: groups, cursor: g.cursor, heads: g.heads}
	h.init()
	var out []sim.Placement
	var arena []sim.Slot // this decision's placements' slots
	for n := 0; len(h.heads) > 0; n++ {
		if n&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		k := h.heads[0]
		j := groups[k][h.cursor[k]]
		if cheap(j) {
			g.rejected = append(g.rejected, k)
			h.pop()
			continue
		}
		slots, ok := placeJob(st, l, g.place, j, &arena, ls)
		if !ok {
			h.pop() // failed: every later job of the shape is skipped
			continue
		}
		out = append(out, sim.Placement{Job: j.Index, Slots: slots})
		h.cursor[k]++
		if h.cursor[k] < len(groups[k]) {
			h.fix()
		} else {
			h.pop()
		}
		nf, nm := ls.update(l)
		grew := nf.GPU > free.GPU || nf.CPU > free.CPU || nf.MemGiB > free.MemGiB ||
			nm.GPU > most.GPU || nm.CPU > most.CPU || nm.MemGiB > most.MemGiB
		free, most = nf, nm
		if grew {
			// Rejoin each shape dropped by the cheap reject at its first job
			// after j, where the loop over st.Pending would meet it next.
			for _, r := range g.rejected {
				q := groups[r]
				c, _ := slices.BinarySearchFunc(q, j, sim.ComparePending)
				for c < len(q) && sim.ComparePending(q[c], j) <= 0 {
					c++
				}
				if c < len(q) {
					h.cursor[r] = c
					h.push(r)
				}
			}
			g.rejected = g.rejected[:0]
		}
	}
	g.heads = h.heads
	return out, nil
}

// placeJob books every instance of j with p, or none. The slots are
// appended to *arena (nil: a slice of their own), a decision's shared
// store: a failed attempt leaves it as it was, for the next to reuse, so
// a decision allocates for the placements it makes rather than for every
// job it tries. The returned slots are capped, so later appends to the
// arena never reach them. Every server whose ledger entry it changes
// (booked, or given back after a failure: f − d + d need not be f) is
// reported to ls when it is not nil.
func placeJob(st *sim.State, l *sim.Ledger, p Placer, j *sim.JobState, arena *[]sim.Slot, ls *ledgerSums) ([]sim.Slot, bool) {
	var own []sim.Slot
	if arena == nil {
		arena = &own
	}
	start := len(*arena)
	slots := slices.Grow(*arena, len(j.Instances))
	for i := range j.Instances {
		s := p.Pick(st, l, j, i)
		if s < 0 {
			for k, sl := range slots[start:] {
				l.Give(sl.Server, j.Instances[k].Demand)
				p.Unbooked(j, k, sl.Server)
			}
			*arena = slots[:start]
			return nil, false
		}
		if ls != nil {
			ls.touch(l, s)
		}
		l.Take(s, j.Instances[i].Demand)
		p.Booked(j, i, s)
		slots = append(slots, sim.Slot{Server: s, Socket: -1})
	}
	*arena = slots
	return slots[start:len(slots):len(slots)], true
}
