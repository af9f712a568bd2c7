package sim

import (
	"context"

	"github.com/schedlab/schedlab/datasets"
)

// Scheduler decides, at each decision point, which pending jobs start and
// where. Schedule may place any subset of st.Pending, in any order; jobs it
// leaves out stay pending. It must not modify st or anything reachable from
// it, and must return an error rather than a placement it knows to be
// infeasible. Implementations need not be safe for concurrent use: one
// scheduler value serves one run.
type Scheduler interface {
	Name() string
	Schedule(ctx context.Context, st *State) ([]Placement, error)
}

// Resources is an amount of GPU, CPU (cores) and memory (GiB).
type Resources struct {
	GPU    float64
	CPU    float64
	MemGiB float64
}

// eps absorbs rounding in sums of fractional GPU shares (0.25 + 0.5 + …).
const eps = 1e-9

// Fits reports whether r fits in free.
func (r Resources) Fits(free Resources) bool {
	return r.GPU <= free.GPU+eps && r.CPU <= free.CPU+eps && r.MemGiB <= free.MemGiB+eps
}

// Add returns r + o.
func (r Resources) Add(o Resources) Resources {
	return Resources{r.GPU + o.GPU, r.CPU + o.CPU, r.MemGiB + o.MemGiB}
}

// Sub returns r − o.
func (r Resources) Sub(o Resources) Resources {
	return Resources{r.GPU - o.GPU, r.CPU - o.CPU, r.MemGiB - o.MemGiB}
}

// Scale returns f·r.
func (r Resources) Scale(f float64) Resources {
	return Resources{r.GPU * f, r.CPU * f, r.MemGiB * f}
}

// Slot is where one instance of a job runs: a server and, optionally, the
// socket (GPU group) it is homed on. Socket −1 lets the simulator choose the
// socket with the most free GPUs (then CPU; ties to the lowest index).
// Capacity is checked per server; an instance larger than its home socket
// takes the rest from the server's other sockets.
type Slot struct {
	Server int
	Socket int
}

// Placement starts one pending job: Slots[i] hosts JobState.Instances[i].
type Placement struct {
	Job   int // JobState.Index
	Slots []Slot
}

// Instance is one instance of a job: tasks flattened in order, each task
// contributing Task.Instances identical instances.
type Instance struct {
	Role   string
	Demand Resources
	Load   JobLoad
}

// JobStatus is where a job is in its life.
type JobStatus uint8

const (
	StatusFuture JobStatus = iota // not yet submitted
	StatusPending
	StatusRunning
	StatusDone
	StatusPruned
)

// JobState is a job as the simulator tracks it. Schedulers read it; only the
// simulator writes it.
type JobState struct {
	Index int // position in the jobs given to New

	// What flush reads and writes of every dirty job, kept together in
	// the struct's first 64 bytes (one or two cache lines): a flush visits
	// some hundred jobs, most of them only to advance done, and these
	// fields were spread over all five lines of the struct.
	work, done, rate, last float64
	slow                   float64 // straggler interference slowdown S
	comm                   float64 // time per iteration of the slowest flow, s
	version                uint32
	Status                 JobStatus // where the job is in its life
	slowStale              bool      // co-runners changed: recompute slow

	Job       *datasets.Job
	Profile   *ModelProfile // shared by the jobs of one model in a run: read only
	Instances []Instance
	Total     Resources // summed over instances
	SubmitS   float64
	DurationS float64 // standalone duration

	// Set once running.
	StartS  float64
	Slots   []Slot
	Servers []int // distinct servers, in order of first use

	// Engine bookkeeping.
	doneAtDecision float64
	flows          []flow
	takes          []take
	instSlow       []float64 // per instance, its slowdown; −1: to recompute
	typeRate       float64   // gpuRate on this stint's servers (start): fixed while it runs
	finishS        float64
	shape          int32 // jobs with equal Tasks share it
	runPos         int32 // index in Sim.running while running
	pendPos        int32 // index in Sim.pending while pending, where it is in no order (Sim.pendingBlind)

	// Preemption (Decision.Preempt): how often the job was stopped and
	// started again, the seconds it ran before its current stint, and
	// when that stint began. StartS stays the first start.
	Preemptions int
	Resumptions int
	ranS        float64
	stintS      float64
}

// ExpectedFinishS is the finish time of a running job if its current rate
// held; for other jobs it is +Inf (pending) or the finish time (done).
func (j *JobState) ExpectedFinishS(now float64) float64 {
	switch j.Status {
	case StatusRunning:
		if j.rate <= 0 {
			return now
		}
		done := j.done + j.rate*(now-j.last)
		return now + (j.work-done)/j.rate
	case StatusDone:
		return j.finishS
	}
	return inf
}

// Rate is the current speed of a running job relative to standalone (1 =
// standalone speed, 0.5 = half).
func (j *JobState) Rate() float64 { return j.rate }

// advanceTo brings a running job's done to now at its stint's rate, capped
// at its work, and marks it advanced to now: the one place done grows.
func (j *JobState) advanceTo(now float64) {
	j.done += j.rate * (now - j.last)
	if j.done > j.work {
		j.done = j.work
	}
	j.last = now
}

// Progress is the share of a job's work done since the previous decision.
type Progress struct {
	Job      int
	Fraction float64
}

// Interval is what happened between the previous decision and this one,
// the material of rewards for learned policies.
type Interval struct {
	FromS    float64
	Finished []JobResult // jobs that finished, in finish order
	Unplaced []*JobState // jobs the previous decision left pending (DAS ζ = 0), a prefix of State.Pending; nil in Run for a PendingBlind
	Progress []Progress  // jobs finished since (finish order), then running jobs (State.Running order); nil in Run for a ProgressBlind
}

// State is the observation at a decision point. It is valid until the next
// call of Sim.Apply; schedulers must not keep it or modify it. Each Next
// returns a new State (so a State's pointer names its decision point),
// except in Run for a StateForgetter, which gets one State refilled at
// every decision.
type State struct {
	Now      float64
	Decision int // 0 for the first decision of a run
	Cluster  *Cluster
	Pending  []*JobState // in (submit time, index) order; nil in Run for a PendingBlind
	Running  []*JobState // deterministic order, not sorted
	Free     []Resources // per server
	// LinkFlows is, per DirectedLink, the number of flows of running jobs
	// crossing that link in that direction: what the simulator divides the
	// direction's capacity by. A worker–PS pair counts on its route's links
	// both ways (it pushes, then pulls); a ring all-reduce hop one way.
	// Cluster.FlowLinks gives what a prospective placement would add.
	LinkFlows []int32
	Since     Interval

	sim            *Sim
	arrFrom, arrTo int // Arrived: the positions in Sim.order that arrived since the previous decision
}

// Ledger returns a scratch copy of the free resources, for a scheduler to
// book several placements in one decision.
func (st *State) Ledger() *Ledger {
	return &Ledger{Free: append([]Resources(nil), st.Free...)}
}

// PendingShapes returns the pending jobs grouped by shape: two jobs share
// a shape when their Job.Tasks are equal element by element (as
// slices.Equal compares them), so they request the same instances and the
// ledger and capacity tests treat them alike. Each group lists its jobs
// in Pending's order; the groups come in no particular order, and none is
// empty. A scheduler that handles all jobs of a shape alike can work per
// shape instead of per job: on a long queue of few shapes that is far
// cheaper. Like the State, the result is valid until the next Apply and
// must not be modified.
func (st *State) PendingShapes() [][]*JobState {
	s := st.sim
	if s.pendingBlind {
		panic("sim: PendingShapes called by a PendingBlind scheduler")
	}
	if !s.shapesLive {
		// From now on the lists are kept (Sim.shapesLive).
		s.shapesLive = true
		for _, js := range s.pending {
			s.shapes[js.shape] = append(s.shapes[js.shape], js)
		}
	}
	out := s.shapeBuf[:0]
	for _, id := range s.activeShape {
		out = append(out, s.shapes[id])
	}
	s.shapeBuf = out
	return out
}

// Interference is the model the simulator uses.
func (st *State) Interference() Interference { return st.sim.model }

// PredictSlowdown is the slowdown S (the simulator's 1+S factor minus one)
// an instance with the given load would see on server now: homed on the
// socket the simulator would choose (predictSocket), beside the running jobs' instances and
// the extra loads (tentative placements of this decision, counted on the
// same socket).
func (st *State) PredictSlowdown(load JobLoad, server int, extra []JobLoad) float64 {
	s := st.sim
	return s.instanceSlowdown(load, -1, -1, server, s.predictSocket(server), extra)
}

// ClusterTotal is the summed capacity of all servers.
func (st *State) ClusterTotal() Resources { return st.sim.total }

// Ledger is a scheduler's working copy of free resources.
type Ledger struct {
	Free []Resources
}

// Fits reports whether r fits on server.
func (l *Ledger) Fits(server int, r Resources) bool { return r.Fits(l.Free[server]) }

// Take books r on server.
func (l *Ledger) Take(server int, r Resources) { l.Free[server] = l.Free[server].Sub(r) }

// Give returns r to server.
func (l *Ledger) Give(server int, r Resources) { l.Free[server] = l.Free[server].Add(r) }

// GiveBack returns what the first len(slots) instances of js hold on
// slots, in order: it undoes the Takes of a placement that was only
// tried, or abandoned part way.
func (l *Ledger) GiveBack(js *JobState, slots []Slot) {
	for i, s := range slots {
		l.Give(s.Server, js.Instances[i].Demand)
	}
}

// CopyFrom resets l to st's free resources, reusing l's storage.
func (l *Ledger) CopyFrom(st *State) { l.Free = append(l.Free[:0], st.Free...) }
