package schedulers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/sim"
)

// GavelRoundS is Gavel's default round, seconds (its scheduler's
// time_per_iteration).
const GavelRoundS = 360

// Throughputs gives a job's throughput on a GPU type (GavelGPUTypes, or
// "" for servers of any other kind), relative to the others': Gavel's
// measured table (GavelThroughputs). 0 means the job cannot run there.
type Throughputs func(model, gpuType string) float64

// Gavel runs one of Gavel's policies (Narayanan et al., OSDI 2020) the way
// its scheduler does (stanford-futuredata/gavel, scheduler/scheduler.py):
// the policy's program gives an allocation X (gavellp.go), recomputed at a
// round's end when jobs have arrived or finished since the last one, and
// each round is filled in priority order, where a job's priority on a GPU
// type is its allocation there divided by the fraction of time it has
// received there since the allocation was computed (a job that has
// received none has priority allocation × 10⁹), ties broken by the larger
// allocation, then by arrival. Going down that list, a job not yet chosen
// is chosen for the type when the type has GPUs left for it; then the
// chosen jobs that run on their type keep their slots, the others start
// first fit on servers of that type, and every running job not kept is
// preempted. A job moving to another type is preempted at the round's end
// and started by a decision the policy asks for right after (the next
// float64 after now), since one decision cannot preempt and start a job.
// Rounds end at multiples of RoundS from time 0; the policy asks the
// engine to wake it at a round's end whenever a job waits, or, where some
// job's throughput differs between types, whenever jobs run.
//
// Between round ends (arrivals, completions) nothing is preempted, and
// waiting jobs start where GPUs are idle, in priority order (Gavel's
// simulator leaves them idle until the round ends; filling them is this
// implementation's choice, so that a job arriving on an idle cluster does
// not wait for the round).
//
// The GPU types are Gavel's (GavelGPUTypes) where the cluster's server
// kinds are named so, and every other kind is one type: a job is placed
// on servers of one type, as in Gavel. A job's throughput on a type comes
// from Throughputs (nil: every job runs alike everywhere, and the
// programs pool the types into one). The simulator's speeds follow the
// same table where the cluster carries it (sim.Cluster.GPUSpeed, which
// package evaluation sets from the same file); without it every GPU runs
// alike and the table changes the allocation only.
type Gavel struct {
	name   string
	roundS float64
	// allocate is the policy's program.
	allocate func(g *Gavel, st *sim.State) ([][]float64, error)
	thr      Throughputs
	// est gives the finish-time fairness policy a job's duration.
	est Durations

	types  []string // GPU types: server kind names, in server order
	typeOf []int    // per server, its type
	gpus   []float64
	state  []gavelState // per job index
	stale  bool         // jobs arrived or finished since the last program
	differ bool         // some job's throughput differs between types
	sinceS float64      // time since the allocation was computed
	lastS  float64

	entries []gavelEntry
	chosen  []int // per list position, the chosen type (−1: none)
	runnable
}

// gavelState is what the round-based execution keeps per job.
type gavelState struct {
	thr    []float64 // throughput per type
	alloc  []float64 // X[m][k] (nil: no allocation yet)
	timeOn []float64 // seconds run per type since the allocation
	worked float64   // standalone seconds of work done, observed
	// Finish-time fairness: the isolated throughput at the last program,
	// and the time the work so far would have taken at it.
	thrIso, isolatedS float64
}

type gavelEntry struct {
	pos   int // in the runnable list
	typ   int
	prio  float64
	alloc float64
}

var (
	_ sim.Decider       = (*Gavel)(nil)
	_ sim.ProgressBlind = (*Gavel)(nil)
)

func newGavel(name string, roundS float64, thr Throughputs) (*Gavel, error) {
	if roundS == 0 {
		roundS = GavelRoundS
	}
	if !(roundS > 0) || math.IsInf(roundS, 0) {
		return nil, fmt.Errorf("%s: round_s must be > 0 and finite, got %v", name, roundS)
	}
	return &Gavel{name: name, roundS: roundS, thr: thr}, nil
}

// Name implements sim.Scheduler.
func (g *Gavel) Name() string { return g.name }

// IgnoresProgress implements sim.ProgressBlind: the allocations read the
// policy's own clocks (rjob) and its Durations, never
// State.Since.Progress.
func (g *Gavel) IgnoresProgress() {}

// Schedule implements sim.Scheduler (see scheduleVia).
func (g *Gavel) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	return scheduleVia(ctx, g, st)
}

// throughput is job j's throughput on type k.
func (g *Gavel) throughput(j *rjob, k int) float64 { return g.state[j.js.Index].thr[k] }

// throughputs looks up a job's throughput on every type, once.
func (g *Gavel) throughputs(js *sim.JobState) []float64 {
	out := make([]float64, len(g.types))
	model := ""
	if js.Job != nil {
		model = js.Job.Model
	}
	for k := range out {
		out[k] = 1
		if g.thr != nil {
			out[k] = g.thr(model, g.types[k])
		}
		if out[k] != out[0] {
			g.differ = true
		}
	}
	return out
}

// GavelGPUTypes are the GPU types Gavel measured: a server kind of one of
// these names (any case) is that type; every other kind is one type, "".
var GavelGPUTypes = []string{"k80", "p100", "v100"}

func (g *Gavel) setup(st *sim.State) {
	g.typeOf = make([]int, len(st.Cluster.Servers))
	for i, s := range st.Cluster.Servers {
		name := strings.ToLower(s.Kind.Name)
		if !slices.Contains(GavelGPUTypes, name) {
			name = ""
		}
		k := slices.Index(g.types, name)
		if k < 0 {
			k = len(g.types)
			g.types = append(g.types, name)
			g.gpus = append(g.gpus, 0)
		}
		g.typeOf[i] = k
		g.gpus[k] += st.Cluster.Capacity(i).GPU
	}
}

// Decide implements sim.Decider.
func (g *Gavel) Decide(_ context.Context, st *sim.State) (sim.Decision, error) {
	now := st.Now
	if g.typeOf == nil {
		g.setup(st)
	}
	if g.est != nil {
		g.est.Observe(st)
	}
	g.sync(st, func(*rjob) { g.stale = true }, func(j *rjob) {
		g.stale = true
		for len(g.state) <= j.js.Index {
			g.state = append(g.state, gavelState{})
		}
		g.state[j.js.Index].timeOn = make([]float64, len(g.types))
		g.state[j.js.Index].thr = g.throughputs(j.js)
	})
	g.sinceS += now - g.lastS
	g.lastS = now
	for _, j := range g.list {
		prev, typ := j.total, -1
		if j.running {
			typ = g.typeOf[j.js.Slots[0].Server]
		}
		j.advance(now)
		if d := j.total - prev; d > 0 && typ >= 0 {
			s := &g.state[j.js.Index]
			s.timeOn[typ] += d
			w := d * g.throughput(j, typ)
			s.worked += w
			if s.thrIso > 0 {
				s.isolatedS += w / s.thrIso
			}
		}
	}
	roundEnd := now > 0 && math.Mod(now, g.roundS) == 0
	if roundEnd && g.stale && len(g.list) > 0 {
		x, err := g.allocate(g, st)
		if err != nil {
			return sim.Decision{}, fmt.Errorf("%s: at t=%gs: %w", g.name, now, err)
		}
		for i, j := range g.list {
			s := &g.state[j.js.Index]
			s.alloc = x[i]
			clear(s.timeOn)
		}
		g.sinceS = 0
		g.stale = false
	}
	g.rank()
	var d sim.Decision
	moved := false
	if roundEnd {
		d, moved = g.round(st)
	} else {
		d = g.fill(st)
	}
	// The next round matters when a job waits, or when jobs may move to
	// a type they run faster on.
	for _, j := range g.list {
		if !j.running || g.differ {
			d.WakeS = (math.Floor(now/g.roundS) + 1) * g.roundS
			break
		}
	}
	if moved {
		d.WakeS = math.Nextafter(now, math.Inf(1))
	}
	return d, nil
}

// rank lists every (job, type) pair a job can run on by priority.
func (g *Gavel) rank() {
	g.entries = g.entries[:0]
	for pos, j := range g.list {
		s := &g.state[j.js.Index]
		for k := range g.types {
			if g.throughput(j, k) <= 0 {
				continue
			}
			a := 0.0
			if s.alloc != nil {
				a = s.alloc[k]
			}
			prio := a * 1e9
			if f := s.timeOn[k] / g.sinceS; g.sinceS > 0 && f > 0 {
				prio = a / f
			}
			g.entries = append(g.entries, gavelEntry{pos: pos, typ: k, prio: prio, alloc: a})
		}
	}
	// Entries were appended in (pos, typ) order, so breaking the last ties
	// by it is the stable sort's order, at an unstable sort's cost.
	slices.SortFunc(g.entries, func(a, b gavelEntry) int {
		if c := cmp.Compare(b.prio, a.prio); c != 0 {
			return c
		}
		if c := cmp.Compare(b.alloc, a.alloc); c != 0 {
			return c
		}
		if c := cmp.Compare(a.pos, b.pos); c != 0 {
			return c
		}
		return cmp.Compare(a.typ, b.typ)
	})
}

// round fills a round (see the type's doc) and reports whether a job was
// preempted to move to another type.
func (g *Gavel) round(st *sim.State) (sim.Decision, bool) {
	left := slices.Clone(g.gpus)
	g.chosen = g.chosen[:0]
	for range g.list {
		g.chosen = append(g.chosen, -1)
	}
	for _, e := range g.entries {
		j := g.list[e.pos]
		if g.chosen[e.pos] >= 0 || j.gpus > left[e.typ] {
			continue
		}
		left[e.typ] -= j.gpus
		g.chosen[e.pos] = e.typ
	}
	g.reset(st)
	d := sim.Decision{Start: g.starts[:0], Preempt: g.preempts[:0]}
	g.slotArena = g.slotArena[:0]
	kept := func(pos int) bool {
		j := g.list[pos]
		return j.running && g.chosen[pos] == g.typeOf[j.js.Slots[0].Server]
	}
	for pos, j := range g.list {
		if kept(pos) {
			g.take(j.js, j.js.Slots) // they ran together: they fit
		}
	}
	moved := false
	for pos, j := range g.list {
		if j.running && !kept(pos) {
			d.Preempt = append(d.Preempt, j.js.Index)
			j.running = false
			moved = moved || g.chosen[pos] >= 0
			g.chosen[pos] = -2 // preempted now: not started again in this decision
		}
	}
	for _, e := range g.entries {
		j := g.list[e.pos]
		if g.chosen[e.pos] != e.typ || j.running {
			continue
		}
		if slots := g.fitOn(j.js, e.typ); slots != nil {
			d.Start = append(d.Start, sim.Placement{Job: j.js.Index, Slots: slots})
			j.running = true
		}
	}
	g.starts, g.preempts = d.Start, d.Preempt
	return d, moved
}

// fill starts waiting jobs where GPUs are idle, in priority order,
// preempting nothing.
func (g *Gavel) fill(st *sim.State) sim.Decision {
	g.reset(st)
	d := sim.Decision{Start: g.starts[:0]}
	g.slotArena = g.slotArena[:0]
	for _, j := range g.list {
		if j.running {
			g.take(j.js, j.js.Slots)
		}
	}
	for _, e := range g.entries {
		j := g.list[e.pos]
		if j.running {
			continue
		}
		if slots := g.fitOn(j.js, e.typ); slots != nil {
			d.Start = append(d.Start, sim.Placement{Job: j.js.Index, Slots: slots})
			j.running = true
		}
	}
	g.starts = d.Start
	return d
}

// fitOn books each instance of js on the lowest-index server of type k it
// fits, or books nothing and returns nil (runnable.firstFit, on one type).
func (g *Gavel) fitOn(js *sim.JobState, k int) []sim.Slot {
	slots := g.slotBuf[:0]
	from := 0
	for i, in := range js.Instances {
		if i > 0 && in.Demand != js.Instances[i-1].Demand {
			from = 0 // (as in runnable.firstFit)
		}
		s := -1
		for srv := from; srv < len(g.free); srv++ {
			if g.typeOf[srv] == k && in.Demand.Fits(g.free[srv]) {
				s = srv
				break
			}
		}
		if s < 0 {
			for n := range i {
				g.free[slots[n].Server] = g.free[slots[n].Server].Add(js.Instances[n].Demand)
			}
			g.slotBuf = slots
			return nil
		}
		g.free[s] = g.free[s].Sub(in.Demand)
		slots = append(slots, sim.Slot{Server: s, Socket: -1})
		from = s
	}
	g.slotBuf = slots
	n := len(g.slotArena)
	g.slotArena = append(g.slotArena, slots...)
	return g.slotArena[n:len(g.slotArena):len(g.slotArena)]
}

// programJobs is what the programs know of the runnable jobs, in list
// order.
func (g *Gavel) programJobs(st *sim.State) []gavelJob {
	jobs := make([]gavelJob, len(g.list))
	for i, j := range g.list {
		thr := make([]float64, len(g.types))
		for k := range thr {
			thr[k] = g.throughput(j, k)
		}
		jobs[i] = gavelJob{gpus: j.gpus, thr: thr, sinceS: st.Now - j.js.SubmitS}
		if g.est != nil {
			s := &g.state[j.js.Index]
			// Remaining work: the duration estimate less the work done;
			// a job past its estimate is expected to run as long again
			// as it has (attained service predicts remaining service
			// under heavy tails).
			rem := g.est.Duration(st, j.js) - s.worked
			if rem <= 0 {
				rem = max(s.worked, 1)
			}
			jobs[i].remainingS = rem
			jobs[i].isolatedS = s.isolatedS
		}
	}
	return jobs
}

// NewGavelMaxMin is Gavel's max-min fairness policy ("LAS" in Gavel,
// maxMinAllocation's program) in rounds of roundS seconds (0:
// GavelRoundS), heterogeneity-aware through thr (nil: all types alike).
// It reads no duration.
func NewGavelMaxMin(roundS float64, thr Throughputs) (*Gavel, error) {
	g, err := newGavel("gavel-las", roundS, thr)
	if err != nil {
		return nil, err
	}
	g.allocate = func(g *Gavel, st *sim.State) ([][]float64, error) {
		x, _, err := maxMinAllocation(g.programJobs(st), g.gpus)
		return x, err
	}
	return g, nil
}

// NewGavelFTF is finish-time fairness as Gavel's policy defines it
// (ftfAllocation's program) in rounds of roundS seconds (0: GavelRoundS).
// Each job's remaining work is est's duration less the work it has been
// seen to do: with a HistoryEstimator it reads only what a real scheduler
// observes; with TrueDurations (the oracle row, gavel-ftf-oracle) it reads
// the true duration, as Gavel's simulator does (its traces give each
// job's total steps).
func NewGavelFTF(name string, roundS float64, thr Throughputs, est Durations) (*Gavel, error) {
	g, err := newGavel(name, roundS, thr)
	if err != nil {
		return nil, err
	}
	g.est = est
	g.allocate = func(g *Gavel, st *sim.State) ([][]float64, error) {
		jobs := g.programJobs(st)
		x, _, err := ftfAllocation(jobs, g.gpus)
		if err != nil {
			return nil, err
		}
		for i, j := range g.list {
			iso := isolatedShare(g.gpus, len(g.list), j.gpus)
			s := &g.state[j.js.Index]
			s.thrIso = 0
			for k := range iso {
				s.thrIso += jobs[i].thr[k] * iso[k]
			}
		}
		return x, nil
	}
	return g, nil
}
