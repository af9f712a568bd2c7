package schedulers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sim"
)

// The machinery the preemptive policies share (srtf.go, srsf.go,
// smallestfirst.go, las.go, gittins.go): the bookkeeping of the Tiresias
// simulator's runnable list and the walk that admits jobs in priority
// order. The policies follow the Tiresias simulator (SymbioticLab/Tiresias,
// simulator/run_sim.py at 959f9b0) rule for rule; each names the rules
// that are its own in its doc comment.
//
// The runnable list holds every job that arrived and has not finished,
// running or not, in the order the reference keeps it: arrivals appended,
// finished jobs removed, and whatever order the policy's stable sorts
// leave (Python's list.sort is stable, so ties keep the previous order).
// At each decision every job's clock is advanced first: a running job's
// executed time grows by the time since its last check, a pending job's
// wait since it last entered the top queue does once it has run
// (lastPending; the reference's pending_time itself is read by no policy
// here, and not kept).
//
// The walk is the reference's "count" placement generalised to servers:
// starting from an empty cluster (every running job's resources given
// back), jobs are taken in priority order; a running job keeps running if
// its current slots still fit, a pending one starts if first fit finds
// room for every instance; a running job that does not fit is preempted,
// a pending one stays pending, and the walk goes on (later, smaller jobs
// may fit). On a cluster of one-GPU instances without CPU or memory
// requests (a Tiresias trace) this is the reference's GPU counting.

// rjob is one runnable job as the reference's policies see it. It is
// kept to 128 bytes, so that a chunk of slabSize of them is a size class
// of its own: fields are as narrow as their values need. The reference's
// pending_time is not kept: no policy here reads it.
type rjob struct {
	js          *sim.JobState
	need        sim.Resources // js.Total, kept here for the walk's scans
	unit        sim.Resources // when uniform, what each instance asks
	gpus        float64
	lastCheck   float64
	total       float64 // executed seconds over the job's life (total_executed_time)
	executed    float64 // executed seconds since the job last entered the top queue (executed_time)
	lastPending float64 // pending seconds since the job last entered the top queue, counted once it has run
	key         float64 // the policy's order at this decision: a sorted policy's key, LAS's Gittins index
	queue       int32
	chosenAt    uint32 // the walk's first pass that chose it (runnable.pass)
	shape       int32  // runnable.shapeOf
	count       int32  // js's instances
	seq         uint32 // arrival: the position in the list's order
	running     bool
	uniform     bool // every instance asks the same (runnable.short)
	counting    bool // every instance asks one GPU and nothing else (runnable.counts)
}

// runnable is the reference's runnable list and its per-job state.
type runnable struct {
	byIndex []*rjob
	list    []*rjob
	free    []sim.Resources // the walk's ledger
	total   sim.Resources   // the cluster's capacity
	caps    []sim.Resources // per server, its capacity
	capOf   *sim.Cluster    // the cluster caps and total are of
	// The walk's first pass's running and pending jobs, in order, by
	// index (no pointer writes).
	chosen     []int32
	chosenPend []int32
	booked     []int      // scratch of book
	runs       []bookRun  // scratch of bookUniform
	slotBuf    []sim.Slot // scratch of firstFit
	// A decision's placements, preemptions and slots, reused from one
	// decision to the next.
	starts    []sim.Placement
	preempts  []int
	slotArena []sim.Slot
	// Shapes: jobs that ask the same instances (shapeKey) fit or not
	// alike. shapes numbers
	// them; failed[shape] is the pass in which the shape last failed, or
	// was found to ask more than is left in all or to be covered by a
	// shortfall (runnable.short). Within a pass the ledger only shrinks,
	// so every later job of the shape is then skipped with one comparison.
	shapes map[shapeKey]int32
	failed []uint32
	pass   uint32
	// from[shape] is where first fit may start for a job of that shape
	// in the walk's first pass (fromAt[shape] == pass): the server the
	// last job of the shape booked its first instance on. The servers
	// before it did not fit that instance then, and the ledger has only
	// shrunk since.
	from   []int32
	fromAt []uint32
	// fills[shape], for a shape of identical instances, is the ledger
	// entry after k = 0, 1, … of its instances are booked one by one on
	// a server whose entry was fills[shape].at, for as many as fit, up to
	// the shape's count: bookUniform's run is a function of the entry it
	// finds and the demand alone, so a run that finds that entry reads
	// its end here instead of subtracting. (Equal by ==: a zero's sign,
	// which == ignores, changes no test and no nonzero result.) Made at
	// the shape's first run on an untouched server (its capacity), in
	// fillArena.
	fills     []fill
	fillArena []sim.Resources
	// short holds, for the pass shortAt, the jobs of identical instances
	// that did not fit: n instances of d. First fit places identical
	// instances as well as any placement can (each server takes as many
	// as fit it), so no n' ≥ n instances of a d' ≥ d fit either while
	// the ledger only shrinks. Kept minimal: no entry covers another.
	short   []shortfall
	shortAt uint32
	// room is how many instances the last failed booking of identical
	// instances (bookUniform, fitUniform) placed before it ran out of
	// servers: all the ledger had room for, so room+1 of them, or of
	// anything larger, do not fit either (fail).
	room int
	// least is the least any runnable job asks in each resource (the
	// componentwise minimum of their needs; stale after a finish until
	// walk recomputes it). Once what is left no longer covers it, no
	// job left in a pass can fit, and the walk stops looking.
	least      sim.Resources
	leastN     [3]int // per resource (GPU, CPU, memory), the runnable jobs that ask least's
	leastStale bool
	// uncounted is how many runnable jobs are not rjob.counting, and
	// wholeGPUs whether every server's capacity is a whole number of
	// GPUs (and no negative CPU or memory): see runnable.counts.
	uncounted int
	wholeGPUs bool
	noCount   bool   // tests: book in the first pass even where it may count
	counted   int    // tests: the walks whose first pass counted
	noFill    bool   // tests: bookUniform subtracts every instance (no fills)
	filled    int    // tests: the runs bookUniform read from fills
	arrivals  uint32 // rjob.seq's counter
	added     int    // the jobs the last sync appended to list
	// slab is where new rjobs come from, in chunks of slabSize, so an
	// arrival costs no allocation of its own. A chunk is never grown in
	// place, so the pointers handed out stay put.
	slab []rjob
}

// slabSize is the rjobs in one chunk of runnable.slab: few enough that a
// short trace wastes little, many enough that a long one allocates rarely.
const slabSize = 64

// newRjob returns a new zero rjob from the slab.
func (r *runnable) newRjob() *rjob {
	if len(r.slab) == cap(r.slab) {
		r.slab = make([]rjob, 0, slabSize)
	}
	r.slab = r.slab[:len(r.slab)+1]
	return &r.slab[len(r.slab)-1]
}

// shortfall is n instances of d that found no room (runnable.short).
type shortfall struct {
	d sim.Resources
	n int
}

// sync brings the list to st: jobs finished since the last decision are
// removed (and given to drop, for the policy's own queues), arrivals are
// appended in arrival order and given to add.
func (r *runnable) sync(st *sim.State, drop, add func(*rjob)) {
	if len(st.Since.Finished) > 0 {
		gone := 0
		for _, f := range st.Since.Finished {
			if j := r.get(f.Index); j != nil {
				gone++
				j.running = false
				j.js = nil // marks it gone
				r.leaveLeast(j.need)
				if !j.counting {
					r.uncounted--
				}
				if drop != nil {
					drop(j)
				}
				r.byIndex[f.Index] = nil
			}
		}
		r.list = removeGoneN(r.list, gone)
	}
	r.added = 0
	for _, js := range st.Arrived() {
		if js.Status == sim.StatusDone {
			continue // arrived and finished between two decisions: never runnable here
		}
		for len(r.byIndex) <= js.Index {
			r.byIndex = append(r.byIndex, nil)
		}
		r.arrivals++
		j := r.newRjob()
		*j = rjob{js: js, need: js.Total, gpus: js.Total.GPU, lastCheck: js.SubmitS, uniform: true, seq: r.arrivals}
		if len(r.list) == 0 {
			r.least, r.leastN = j.need, [3]int{1, 1, 1}
		} else {
			r.joinLeast(j.need)
		}
		for _, in := range js.Instances[1:] {
			j.uniform = j.uniform && in.Demand == js.Instances[0].Demand
		}
		j.unit, j.count = js.Instances[0].Demand, int32(len(js.Instances))
		j.counting = j.uniform && j.unit == sim.Resources{GPU: 1}
		if !j.counting {
			r.uncounted++
		}
		j.shape = r.shapeOf(js, j.uniform)
		r.byIndex[js.Index] = j
		r.list = append(r.list, j)
		r.added++
		if add != nil {
			add(j)
		}
	}
}

// shapeKey names a shape: a job of identical instances by their one
// demand and count, whatever its model (the walk reads nothing else of
// it, and its total is the same sum), any other by its instance list,
// which sim shares between jobs of the same tasks and model.
type shapeKey struct {
	inst *sim.Instance // nil for identical instances
	d    sim.Resources
	n    int
}

// shapeOf numbers js's shape; uniform is rjob.uniform.
func (r *runnable) shapeOf(js *sim.JobState, uniform bool) int32 {
	if r.shapes == nil {
		r.shapes = map[shapeKey]int32{}
	}
	k := shapeKey{inst: &js.Instances[0]}
	if uniform {
		k = shapeKey{d: js.Instances[0].Demand, n: len(js.Instances)}
	}
	id, ok := r.shapes[k]
	if !ok {
		id = int32(len(r.shapes))
		r.shapes[k] = id
		r.failed = append(r.failed, 0)
		r.from, r.fromAt = append(r.from, 0), append(r.fromAt, 0)
		r.fills = append(r.fills, fill{})
	}
	return id
}

func (r *runnable) get(i int) *rjob {
	if i < len(r.byIndex) {
		return r.byIndex[i]
	}
	return nil
}

// removeGoneN is removeGone for a q that holds n finished jobs: where
// the last of them lies in q's first half (SRTF's finished jobs lead its
// order), the jobs before it move up to close the gaps and q starts after
// the freed slots, so the rest of q is not moved.
func removeGoneN(q []*rjob, n int) []*rjob {
	last := -1
	for i, j := range q {
		if j.js == nil {
			if n--; n == 0 {
				last = i
				break
			}
		}
	}
	if last < 0 || last > len(q)/2 {
		return removeGone(q)
	}
	w := last
	for i := last - 1; i >= 0; i-- {
		if q[i].js != nil {
			q[w] = q[i]
			w--
		}
	}
	clear(q[:w+1])
	return q[w+1:]
}

// removeGone drops the finished jobs (js nil) from q, keeping the order.
func removeGone(q []*rjob) []*rjob {
	k := slices.IndexFunc(q, func(j *rjob) bool { return j.js == nil })
	if k < 0 {
		return q
	}
	for _, j := range q[k+1:] {
		if j.js != nil {
			q[k] = j
			k++
		}
	}
	clear(q[k:])
	return q[:k]
}

// advance moves a job's clocks to now, as the reference's update loop
// does at every event.
func (j *rjob) advance(now float64) {
	d := now - j.lastCheck
	j.lastCheck = now
	if j.running {
		j.total += d
		j.executed += d
		return
	}
	if j.executed > 0 {
		j.lastPending += d
	}
}

// remaining is the job's remaining standalone time: the future, which
// only an oracle reads.
func (j *rjob) remaining() float64 { return j.js.DurationS - j.total }

// sortKey is what a sorted policy orders the runnable jobs by. The keys
// are a closed set, computed in one switch (of) that the compiler
// inlines, so that the sort computes a running job's key in its loop.
// Each key is non-increasing in the job's executed time: sorted's repair
// relies on it.
type sortKey uint8

const (
	byRemaining        sortKey = iota // remaining standalone time (rjob.remaining)
	byRemainingService                // remaining time × GPUs: remaining GPU-seconds
	byGPUs                            // the GPUs the job asks
)

// of is k's value for j.
func (k sortKey) of(j *rjob) float64 {
	switch k {
	case byRemaining:
		return j.remaining()
	case byRemainingService:
		return j.remaining() * j.gpus
	}
	return j.gpus
}

// walk admits jobs in order (see the file comment) and returns the
// decision; each job's running flag follows it. It works in two passes.
// The first chooses which jobs run: in priority order, each job is booked
// first fit on a ledger of the empty cluster, as if every job were placed
// afresh (on one-GPU instances, the reference's GPU counting). The second
// places them: the chosen running jobs stay where they are, the chosen
// pending jobs are placed first fit around them in priority order (on
// instances of one GPU there is always room; where fragmentation the first
// pass could not see leaves none, the job stays pending), and then the
// jobs not chosen, in priority order, keep running or start if they fit
// what is left; the running ones that do not are preempted.
func (r *runnable) walk(st *sim.State, order ...[]*rjob) sim.Decision {
	r.reset(st)
	tot := r.total
	r.chosen, r.chosenPend = r.chosen[:0], r.chosenPend[:0]
	// Within a pass the ledger only shrinks, so a shape (shapeKey) that
	// did not fit will not fit later in the pass either.
	r.pass++
	if r.leastStale {
		r.leastStale = false
		r.least, r.leastN = sim.Resources{}, [3]int{}
		for i, j := range r.list {
			if i == 0 {
				r.least, r.leastN = j.need, [3]int{1, 1, 1}
			} else {
				r.joinLeast(j.need)
			}
		}
	}
	counts := r.counts()
	if counts {
		r.counted++
	}
	first := r.pass
	// failed's header is fixed during the walk (only sync adds shapes),
	// so the loops read it, and the pass, from locals.
	failed := r.failed
first:
	for _, q := range order {
		for _, j := range q {
			if failed[j.shape] == first {
				continue // a shape that did not fit
			}
			if !j.need.Fits(tot) || !counts && r.covered(j) {
				failed[j.shape] = first // more than is left in all, or covered by a shortfall
				continue
			}
			ok := counts
			if !ok && j.count == 1 {
				// book for one instance: bookUniform for n = 1, without
				// its runs. (The unsigned test is k ≥ 0 that lets the
				// compiler drop free[k]'s bounds check.)
				d, sh := j.unit, j.shape
				k := 0
				if r.fromAt[sh] == first {
					k = int(r.from[sh])
				}
				if k = r.scan(d, k); uint(k) < uint(len(r.free)) {
					r.free[k] = r.free[k].Sub(d)
					r.from[sh], r.fromAt[sh] = int32(k), first
					ok = true
				} else {
					r.room = 0
				}
			} else if !ok {
				ok = r.book(j)
			}
			if ok {
				tot = tot.Sub(j.need)
				if j.running {
					r.chosen = append(r.chosen, int32(j.js.Index))
				} else {
					r.chosenPend = append(r.chosenPend, int32(j.js.Index))
				}
				j.chosenAt = first
				if !r.least.Fits(tot) {
					break first // no job left fits what is left
				}
			} else {
				r.fail(j)
			}
		}
	}
	d := sim.Decision{Start: r.starts[:0], Preempt: r.preempts[:0]}
	r.slotArena = r.slotArena[:0]
	r.reset(st)
	// unchosen counts the running jobs the first pass did not choose: the
	// third loop below must visit each (to keep or preempt it), and may
	// stop after the last once nothing else can fit.
	unchosen := len(st.Running) - len(r.chosen)
	free := r.free
	for _, i := range r.chosen {
		// They ran together: they fit. (takeJob, with its one-slot case
		// inlined.)
		j := r.byIndex[i]
		if slots := j.js.Slots; len(slots) == 1 && j.uniform {
			if srv := slots[0].Server; j.unit.Fits(free[srv]) {
				free[srv] = free[srv].Sub(j.unit)
			}
			continue
		}
		r.takeJob(j)
	}
	for _, i := range r.chosenPend {
		j := r.byIndex[i]
		if slots := r.fitJob(j); slots != nil {
			d.Start = append(d.Start, sim.Placement{Job: j.js.Index, Slots: slots})
			j.running, j.lastCheck = true, st.Now
		}
	}
	// What the chosen jobs left: the others, in priority order, keep
	// running or start where they still fit, and the running ones that do
	// not are preempted. (With GPU counting nothing fits here: a job not
	// chosen lacked GPUs at its turn, and fewer are left now.)
	tot = sim.Resources{}
	for _, f := range r.free {
		tot = tot.Add(f)
	}
	r.pass++
	pass := r.pass
	if counts {
		r.preemptUnchosen(&d, first, unchosen, order)
		r.starts, r.preempts = d.Start, d.Preempt
		return d
	}
	// The loop stops once every running job is visited and no other job
	// fits (least). Only a visit that changes unchosen or tot can make
	// that so, so it is tested after those, and once before the first
	// job: the visits it spares change nothing but this pass's failure
	// records (failed, short), which nothing reads after the walk.
	if unchosen == 0 && !r.least.Fits(tot) {
		r.starts, r.preempts = d.Start, d.Preempt
		return d
	}
third:
	for _, q := range order {
		for _, j := range q {
			switch {
			case j.chosenAt == first:
				continue
			case j.running:
				unchosen--
				if r.takeJob(j) {
					tot = tot.Sub(j.need)
				} else {
					d.Preempt = append(d.Preempt, j.js.Index)
					j.running = false
				}
			case failed[j.shape] == pass:
				continue
			case !j.need.Fits(tot) || r.covered(j):
				failed[j.shape] = pass
				continue
			default:
				slots := r.fitJob(j)
				if slots == nil {
					r.fail(j)
					continue
				}
				tot = tot.Sub(j.need)
				d.Start = append(d.Start, sim.Placement{Job: j.js.Index, Slots: slots})
				j.running, j.lastCheck = true, st.Now
			}
			if unchosen == 0 && !r.least.Fits(tot) {
				break third // every running job visited, and no other fits
			}
		}
	}
	r.starts, r.preempts = d.Start, d.Preempt // reused: the engine keeps neither
	return d
}

// preemptUnchosen is walk's third loop where the first pass counted GPUs
// (runnable.counts): a job it did not choose asked more GPUs than were
// left at its turn, and no more are left now, so no such job starts and
// every running one is preempted (take would fail: its instances ask
// more GPUs than the servers have free in all, and its undo restores
// whole numbers exactly). The preemptions come in priority order, and
// the loop stops at the last running job not chosen.
func (r *runnable) preemptUnchosen(d *sim.Decision, first uint32, unchosen int, order [][]*rjob) {
	if unchosen == 0 {
		return
	}
	for _, q := range order {
		for _, j := range q {
			if j.running && j.chosenAt != first {
				d.Preempt = append(d.Preempt, j.js.Index)
				j.running = false
				if unchosen--; unchosen == 0 {
					return
				}
			}
		}
	}
}

// counts reports whether the walk's first pass may count GPUs rather
// than book servers: every runnable job asks identical instances of one
// GPU and nothing else (rjob.counting), and every server holds a whole
// number of GPUs. Then the ledger holds whole numbers, which float64
// subtracts exactly, and first fit places n instances exactly when the
// servers have n GPUs free in all: each server with one free takes one.
// So a job that fits what is left in all (the pass's test before it
// books) always books, no booking fails, and the per-server ledger,
// which the pass reads only to book and discards after it, need not be
// kept: the same jobs are chosen, in the same order. The Tiresias
// simulator's traces (one-GPU workers) are such.
func (r *runnable) counts() bool {
	return r.uncounted == 0 && r.wholeGPUs && !r.noCount
}

// covered reports whether j cannot fit for a job of identical
// instances, failed earlier in this pass, that j's cover
// (runnable.short).
func (r *runnable) covered(j *rjob) bool {
	if !j.uniform || r.shortAt != r.pass {
		return false
	}
	d, n := j.unit, int(j.count)
	for _, f := range r.short {
		if n >= f.n && covers(d, f.d) {
			return true
		}
	}
	return false
}

// fail records that j did not fit in this pass. For identical instances
// the shortfall is room+1 of them, not j's count: first fit visited every
// server that could take one and each took all it could, so no more than
// room fit.
func (r *runnable) fail(j *rjob) {
	r.failed[j.shape] = r.pass
	if !j.uniform {
		return
	}
	if r.shortAt != r.pass {
		r.short, r.shortAt = r.short[:0], r.pass
	}
	f := shortfall{d: j.unit, n: min(int(j.count), r.room+1)}
	k := 0
	for _, g := range r.short {
		if !(g.n >= f.n && covers(g.d, f.d)) { // the new entry covers g: g goes
			r.short[k] = g
			k++
		}
	}
	r.short = append(r.short[:k], f)
}

// joinLeast brings least and leastN up to a job of need joining the
// list.
func (r *runnable) joinLeast(need sim.Resources) {
	have := [3]*float64{&r.least.GPU, &r.least.CPU, &r.least.MemGiB}
	for c, x := range [3]float64{need.GPU, need.CPU, need.MemGiB} {
		switch {
		case x < *have[c]:
			*have[c], r.leastN[c] = x, 1
		case x == *have[c]:
			r.leastN[c]++
		}
	}
}

// leaveLeast accounts for a job of need leaving the list: least is
// stale (walk recomputes it) only once no job is left at a minimum the
// job held. Between a finish and that recount least may stay stale; an
// arrival's joinLeast then changes nothing that the recount keeps.
func (r *runnable) leaveLeast(need sim.Resources) {
	have := [3]float64{r.least.GPU, r.least.CPU, r.least.MemGiB}
	for c, x := range [3]float64{need.GPU, need.CPU, need.MemGiB} {
		if x == have[c] {
			r.leastN[c]--
			if r.leastN[c] <= 0 {
				r.leastStale = true
			}
		}
	}
}

// least is the componentwise minimum of a and b.
func least(a, b sim.Resources) sim.Resources {
	return sim.Resources{GPU: min(a.GPU, b.GPU), CPU: min(a.CPU, b.CPU), MemGiB: min(a.MemGiB, b.MemGiB)}
}

// covers reports whether a ≥ b in every resource.
func covers(a, b sim.Resources) bool {
	return a.GPU >= b.GPU && a.CPU >= b.CPU && a.MemGiB >= b.MemGiB
}

// reset sets the ledger to the empty cluster: its capacities, summed
// once per cluster.
func (r *runnable) reset(st *sim.State) {
	if r.capOf != st.Cluster {
		r.capOf, r.caps, r.total = st.Cluster, r.caps[:0], sim.Resources{}
		r.wholeGPUs = true
		for i := range st.Free {
			c := st.Cluster.Capacity(i)
			r.caps = append(r.caps, c)
			r.total = r.total.Add(c)
			r.wholeGPUs = r.wholeGPUs && c.GPU >= 0 && c.GPU < 1<<40 && c.GPU == math.Trunc(c.GPU) && c.CPU >= 0 && c.MemGiB >= 0
		}
	}
	r.free = append(r.free[:0], r.caps...)
}

// book books each instance of j on the lowest-index server it fits, or
// books nothing and reports false. An instance like the one before it
// starts its search where that one went, a first instance where the last
// job of its shape put its own (runnable.from): the servers before did
// not fit it and have only lost resources since, so the answer is the
// full scan's.
func (r *runnable) book(j *rjob) bool {
	js := j.js
	from := 0
	if r.fromAt[j.shape] == r.pass {
		from = int(r.from[j.shape])
	}
	if j.uniform {
		return r.bookUniform(j, from)
	}
	for i, in := range js.Instances {
		if i > 0 && in.Demand != js.Instances[i-1].Demand {
			from = 0
		}
		s := r.scan(in.Demand, from)
		if s < 0 {
			r.unbook(js, i)
			return false
		}
		if i == 0 {
			r.from[j.shape], r.fromAt[j.shape] = int32(s), r.pass
		}
		r.free[s] = r.free[s].Sub(in.Demand)
		r.booked = append(r.booked, s)
		from = s
	}
	r.booked = r.booked[:0]
	return true
}

// bookRun is n instances booked on one server (bookUniform).
type bookRun struct{ server, n int }

// bookUniform is book for a job of identical instances (rjob.uniform):
// the same servers and the same subtractions in the same order, each
// server taking instances until the next does not fit it, as book's loop
// does one instance at a time (a PAI job asks up to hundreds). A server
// that stops fitting is not scanned again: book's next scan would start
// there and move on.
func (r *runnable) bookUniform(j *rjob, from int) bool {
	d, n := j.unit, int(j.count)
	runs := r.runs[:0]
	for placed, s := 0, from; placed < n; s++ {
		if s = r.scan(d, s); s < 0 {
			for _, ru := range runs { // unbook's order: instance by instance
				for range ru.n {
					r.free[ru.server] = r.free[ru.server].Add(d)
				}
			}
			r.runs, r.room = runs[:0], placed
			return false
		}
		if placed == 0 {
			r.from[j.shape], r.fromAt[j.shape] = int32(s), r.pass
		}
		f, k := r.free[s], 0
		m := &r.fills[j.shape]
		if m.seq == nil && f == r.caps[s] && !r.noFill {
			r.makeFill(m, f, d, n)
		}
		if m.seq != nil && f == m.at {
			k = min(n-placed, len(m.seq)-1)
			f = m.seq[k]
			placed += k
			r.filled++
		} else {
			for placed < n && d.Fits(f) {
				f = f.Sub(d)
				placed++
				k++
			}
		}
		r.free[s] = f
		runs = append(runs, bookRun{s, k})
	}
	r.runs = runs[:0]
	return true
}

// fill is a run of identical instances booked from one ledger entry
// (runnable.fills): seq[k] is at less k instances, each subtracted after
// it was found to fit, for as many as fit, up to the shape's count.
type fill struct {
	at  sim.Resources
	seq []sim.Resources
}

// makeFill sets m to the run of up to n instances of d from f, the
// subtractions bookUniform's loop makes, in fillArena.
func (r *runnable) makeFill(m *fill, f, d sim.Resources, n int) {
	k := len(r.fillArena)
	r.fillArena = append(r.fillArena, f)
	for placed := 0; placed < n && d.Fits(f); placed++ {
		f = f.Sub(d)
		r.fillArena = append(r.fillArena, f)
	}
	m.at, m.seq = r.fillArena[k], r.fillArena[k:len(r.fillArena):len(r.fillArena)]
}

// scan is the lowest-index server from from on whose free resources d
// fits, or −1.
func (r *runnable) scan(d sim.Resources, from int) int {
	free := r.free
	for k := from; k < len(free); k++ {
		if d.Fits(free[k]) {
			return k
		}
	}
	return -1
}

// unbook gives back the first n instances book booked.
func (r *runnable) unbook(js *sim.JobState, n int) {
	for k := range n {
		s := r.booked[len(r.booked)-n+k]
		r.free[s] = r.free[s].Add(js.Instances[k].Demand)
	}
	r.booked = r.booked[:0]
}

// take books js's instances on slots, or books nothing and reports false.
// A run of slots on one server is booked on a copy of its ledger entry,
// written back once: the same checks and subtractions, in the same order.
func (r *runnable) take(js *sim.JobState, slots []sim.Slot) bool {
	for i := 0; i < len(slots); {
		srv := slots[i].Server
		f := r.free[srv]
		k := i
		for ; k < len(slots) && slots[k].Server == srv; k++ {
			d := js.Instances[k].Demand
			if !d.Fits(f) {
				r.free[srv] = f
				for m := range k {
					r.free[slots[m].Server] = r.free[slots[m].Server].Add(js.Instances[m].Demand)
				}
				return false
			}
			f = f.Sub(d)
		}
		r.free[srv] = f
		i = k
	}
	return true
}

// takeJob is take for j's own slots; for a job of identical instances
// it reads the one demand, not each instance's: the same checks and
// subtractions, in the same order.
func (r *runnable) takeJob(j *rjob) bool {
	js := j.js
	if !j.uniform {
		return r.take(js, js.Slots)
	}
	d, slots := j.unit, js.Slots
	if len(slots) == 1 { // the loop below for one slot
		srv := slots[0].Server
		if f := r.free[srv]; d.Fits(f) {
			r.free[srv] = f.Sub(d)
			return true
		}
		return false
	}
	for i := 0; i < len(slots); {
		srv := slots[i].Server
		f := r.free[srv]
		// The run of slots i…k−1 on srv: d is subtracted once per slot.
		// Subtracting d ≥ 0 never raises f, and Fits is monotone in what
		// is free, so d fits before every subtraction exactly when it
		// fits before the last: that one test decides the run, and only
		// a run that fails is checked slot by slot, to fail where the
		// per-slot loop fails.
		k := i + 1
		for k < len(slots) && slots[k].Server == srv {
			f = f.Sub(d)
			k++
		}
		if d.Fits(f) {
			r.free[srv] = f.Sub(d)
			i = k
			continue
		}
		f = r.free[srv]
		for k = i; ; k++ {
			if !d.Fits(f) {
				r.free[srv] = f
				for m := range k {
					r.free[slots[m].Server] = r.free[slots[m].Server].Add(d)
				}
				return false
			}
			f = f.Sub(d)
		}
	}
	return true
}

// fitJob is firstFit for a runnable job: for identical instances,
// fitUniform's booking, and for one instance its scan, the same.
func (r *runnable) fitJob(j *rjob) []sim.Slot {
	if !j.uniform {
		return r.firstFit(j.js)
	}
	d := j.unit
	if j.count == 1 {
		s := r.scan(d, 0)
		if s < 0 {
			r.room = 0
			return nil
		}
		r.free[s] = r.free[s].Sub(d)
		r.slotBuf = append(r.slotBuf[:0], sim.Slot{Server: s, Socket: -1})
		return r.keepSlots(r.slotBuf)
	}
	slots := slices.Grow(r.slotBuf[:0], int(j.count))[:j.count] // every slot is written before it is kept
	r.slotBuf = slots
	if !r.fitUniform(d, slots) {
		return nil
	}
	return r.keepSlots(slots)
}

// firstFit books each instance of js on the lowest-index server it fits,
// or books nothing and returns nil.
func (r *runnable) firstFit(js *sim.JobState) []sim.Slot {
	slots := slices.Grow(r.slotBuf[:0], len(js.Instances))[:len(js.Instances)] // every slot is written before it is kept
	r.slotBuf = slots
	from := 0
	for i, in := range js.Instances {
		if i > 0 && in.Demand != js.Instances[i-1].Demand {
			from = 0 // (as in book)
		}
		s := r.scan(in.Demand, from)
		from = max(s, 0)
		if s < 0 {
			for k := range i {
				r.free[slots[k].Server] = r.free[slots[k].Server].Add(js.Instances[k].Demand)
			}
			return nil
		}
		r.free[s] = r.free[s].Sub(in.Demand)
		slots[i] = sim.Slot{Server: s, Socket: -1}
	}
	return r.keepSlots(slots)
}

// fitUniform is firstFit's booking for identical instances of d, one
// per slot, as bookUniform books them; it books nothing and reports
// false when they do not all fit.
func (r *runnable) fitUniform(d sim.Resources, slots []sim.Slot) bool {
	placed := 0
	for s := 0; placed < len(slots); s++ {
		if s = r.scan(d, s); s < 0 {
			for _, sl := range slots[:placed] {
				r.free[sl.Server] = r.free[sl.Server].Add(d)
			}
			r.room = placed
			return false
		}
		f := r.free[s]
		for placed < len(slots) && d.Fits(f) {
			f = f.Sub(d)
			slots[placed] = sim.Slot{Server: s, Socket: -1}
			placed++
		}
		r.free[s] = f
	}
	return true
}

// keepSlots copies slots into the decision's arena: the engine copies
// the slots it keeps, and an arena that grows leaves earlier slices on
// the old array, unchanged.
func (r *runnable) keepSlots(slots []sim.Slot) []sim.Slot {
	k := len(r.slotArena)
	r.slotArena = append(r.slotArena, slots...)
	return r.slotArena[k:len(r.slotArena):len(r.slotArena)]
}

// errPreemptOnly is what Schedule answers for a decision that preempts:
// a preemptive policy must be driven through sim.DecisionOf.
var errPreemptOnly = errors.New("preemptive policy called through Schedule: drive it with sim.DecisionOf (or sim.Run)")

// scheduleVia is Schedule for a Decider: its starts, or an error when the
// decision also preempts (Schedule cannot say so).
func scheduleVia(ctx context.Context, d sim.Decider, st *sim.State) ([]sim.Placement, error) {
	dec, err := d.Decide(ctx, st)
	if err != nil {
		return nil, err
	}
	if len(dec.Preempt) > 0 {
		return nil, fmt.Errorf("schedulers: %s: %w", d.Name(), errPreemptOnly)
	}
	return dec.Start, nil
}

// wakeAt is the earliest future time in ts, 0 for none (sim.Decision's
// "no wake-up").
func wakeAt(now, t, best float64) float64 {
	if t > now && !math.IsInf(t, 1) && (best == 0 || t < best) {
		return t
	}
	return best
}

// sorted is a preemptive policy whose priority is a key (sortKey) over
// the runnable list, re-sorted stably at every decision (the reference's
// runnable_jobs.sort(key=...)): SRTF, SRSF, smallest-GPU-first.
type sorted struct {
	name string
	key  sortKey
	runnable
}

var (
	_ sim.Decider        = (*sorted)(nil)
	_ sim.StateForgetter = (*sorted)(nil)
	_ sim.ProgressBlind  = (*sorted)(nil)
	_ sim.PendingBlind   = (*sorted)(nil)
)

// Name implements sim.Scheduler.
func (p *sorted) Name() string { return p.name }

// ForgetsState implements sim.StateForgetter: the policy keeps its own
// records (rjob) and nothing of a State past its decision.
func (p *sorted) ForgetsState() {}

// IgnoresProgress implements sim.ProgressBlind: the keys read the
// policy's own clocks (rjob), never State.Since.Progress.
func (p *sorted) IgnoresProgress() {}

// IgnoresPending implements sim.PendingBlind: the runnable list is the
// policy's own, kept from State.Arrived and its decisions.
func (p *sorted) IgnoresPending() {}

// Schedule implements sim.Scheduler (see scheduleVia).
func (p *sorted) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	return scheduleVia(ctx, p, st)
}

// Decide implements sim.Decider.
func (p *sorted) Decide(_ context.Context, st *sim.State) (sim.Decision, error) {
	now := st.Now
	p.sync(st, nil, func(j *rjob) { j.key = p.key.of(j) })
	// Only a running job's key moves (its executed time grows), so only
	// running jobs are advanced: a pending job's clocks, which no sorted
	// key reads, stay where they were, and walk sets lastCheck when it
	// starts one. Stable insertion sort, the keys computed on the way:
	// between two decisions only the running jobs' keys fall and arrivals
	// join the end, so the list is nearly sorted and this is a scan plus
	// the few moves, where a merge sort is n log n.
	// prev is l[i-1].key: a job moved down leaves l[i-1]'s job, the
	// prefix's last, at i.
	//
	// The pending jobs between the last running job and the arrivals are
	// skipped: the list was sorted at the last decision, removing the
	// finished kept it so, and until the arrivals only running jobs' keys
	// moved, and only down. At step i the prefix holds the jobs that were
	// before i, so its largest key is at most what the largest of them
	// was, which is at most l[i].key, unchanged: no such job moves, and
	// prev becomes its key. So the sort visits the running jobs' stretch
	// and the arrivals, and gives the same order. running counts the
	// running jobs still ahead (sim's running list holds exactly the jobs
	// whose running flag is set: walk sets it on the starts it returns
	// and clears it on the preemptions).
	l := p.list
	running, tail := len(st.Running), len(l)-p.added
	prev := math.Inf(-1) // l[0] stays
	for i := 0; i < len(l); i++ {
		j := l[i]
		if j.running {
			running--
			j.total += now - j.lastCheck
			j.lastCheck = now
			j.key = p.key.of(j)
		} else if running == 0 && i < tail {
			i = tail - 1
			prev = l[i].key
			continue
		}
		if prev <= j.key {
			prev = j.key
			continue
		}
		// l[:i] is sorted and l[i-1].key > j.key: j goes after the last
		// job whose key is not above its own (keys are finite: sim checks
		// durations and requests), and the jobs after it move up in one copy.
		lo, hi := 0, i-1
		for lo < hi {
			if h := int(uint(lo+hi) >> 1); l[h].key > j.key {
				hi = h
			} else {
				lo = h + 1
			}
		}
		copy(l[lo+1:i+1], l[lo:i])
		l[lo] = j
	}
	d := p.walk(st, p.list)
	return d, nil
}
