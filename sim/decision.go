package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Decision is what a scheduler asks the engine to do at one decision
// point. The engine carries it out in one place (Sim.Do): first the
// preemptions, then the starts, then the wake-up. A new kind of decision
// (resize, migrate) is a new field here and a new step in Do; schedulers
// that do not use it are untouched.
type Decision struct {
	// Start starts (or resumes) pending jobs, as Scheduler.Schedule's
	// placements do. A resumed job may land on other servers than before.
	Start []Placement
	// Preempt stops running jobs (JobState.Index). A preempted job goes
	// back to Pending with its progress kept; its resources are free for
	// this decision's starts. It cannot be started again in the same
	// decision.
	Preempt []int
	// WakeS asks for a decision at that time even if nothing arrives or
	// finishes by then (Tiresias' queue demotions, a lease's end). 0, or a
	// time not after now, asks for none; each decision replaces the last
	// one's request.
	WakeS float64
}

// Decider is a Scheduler that can preempt: an optional extension, as in
// the Kubernetes scheduling framework. The engine's drivers (Run, the
// conformance harness, the replay command) call Decide on a scheduler
// that has it and Schedule on one that has not, so a scheduler that never
// preempts carries no preemption code. Decide follows Schedule's
// contract: it must not modify st, and returns an error rather than a
// decision it knows to be infeasible.
type Decider interface {
	Scheduler
	Decide(ctx context.Context, st *State) (Decision, error)
}

// A StateForgetter is a Scheduler that forgets each State once its
// decision is made: it keeps no State, none of a State's slices, and never
// compares one State with a later one (by pointer or otherwise). Run hands
// such a scheduler one State that it refills at every decision instead of
// allocating one per decision (a replay of 500 jobs makes about 1,500
// decisions). Every other scheduler gets a fresh State from each Next, as
// a learned policy that recognises a new decision point by the State's
// pointer needs. The method does nothing; it is the promise.
type StateForgetter interface {
	Scheduler
	ForgetsState()
}

// A ProgressBlind is a Scheduler that never reads State.Since.Progress.
// Run leaves Progress nil for such a scheduler instead of computing, at
// every decision, every running job's share of work done since the last
// (a replay of 6,000 PAI jobs under SRTF filled 1.4 million entries that
// nothing read). Nothing else the engine computes depends on it. The
// method does nothing; it is the promise.
type ProgressBlind interface {
	Scheduler
	IgnoresProgress()
}

// A PendingBlind is a Scheduler that never reads State.Pending or
// State.Since.Unplaced and never calls State.PendingShapes: it keeps its
// own record of the jobs waiting (the arrivals, State.Arrived, and what
// its decisions started and preempted). Run keeps the pending jobs of
// such a scheduler in no order, so a preemption or a start costs a
// constant instead of a merge into, or a removal from, the queue in
// submission order; it hands the scheduler nil for both lists, and
// PendingShapes panics. Nothing else the engine computes depends on the
// queue's order. The method does nothing; it is the promise.
type PendingBlind interface {
	Scheduler
	IgnoresPending()
}

// DecisionOf asks sched for its decision at st: Decide for a Decider,
// Schedule's placements otherwise.
func DecisionOf(ctx context.Context, sched Scheduler, st *State) (Decision, error) {
	if d, ok := sched.(Decider); ok {
		return d.Decide(ctx, st)
	}
	pl, err := sched.Schedule(ctx, st)
	return Decision{Start: pl}, err
}

// Do carries out the decision the last Next asked for. It checks the whole
// decision first and applies none of it if any part is infeasible (the
// error wraps ErrInfeasible and names the job): a preemption of a job that
// is not running, a start that does not fit what is free once the
// preempted jobs have released their resources.
func (s *Sim) Do(d Decision) error {
	if !s.awaiting {
		return errors.New("sim: Apply called without a pending decision (call Next first)")
	}
	if err := s.check(d); err != nil {
		return err
	}
	pl := d.Start
	s.awaiting = false
	s.decisions++
	s.leftFit = fitUnknown
	if len(d.Preempt) > 0 {
		pre := s.preempted[:0]
		for _, j := range d.Preempt {
			s.preempt(&s.jobs[j])
			pre = append(pre, &s.jobs[j])
		}
		s.requeue(pre)
		clear(pre)
		s.preempted = pre[:0]
	}
	for _, p := range pl {
		s.start(&s.jobs[p.Job], p.Slots)
	}
	if len(pl) > 0 {
		started := s.started[:0]
		for _, p := range pl {
			started = append(started, &s.jobs[p.Job])
		}
		if s.pendingBlind {
			for _, js := range started {
				s.dropPending(js)
			}
		}
		if !s.pendingBlind || s.shapesLive {
			slices.SortFunc(started, ComparePending)
		}
		if !s.pendingBlind {
			s.pending = dropStarted(s.pending, started)
		}
		// Per shape, the started jobs of each shape in pending order.
		for i := 0; i < len(started); {
			id := started[i].shape
			k := i + 1
			for k < len(started) && started[k].shape == id {
				k++
			}
			if s.shapesLive {
				s.shapes[id] = dropStarted(s.shapes[id], started[i:k])
			}
			if s.shapeN[id] -= int32(k - i); s.shapeN[id] == 0 {
				s.removeActiveShape(id)
			}
			i = k
		}
		clear(started)
		s.started = started[:0]
	}
	s.wakeS = inf
	if d.WakeS > s.now && !math.IsInf(d.WakeS, 1) && !math.IsNaN(d.WakeS) {
		s.wakeS = d.WakeS
	}
	s.flush()
	s.unplaced = len(s.pending)
	if len(pl) == 0 && len(s.pending) > 0 && len(s.running) == 0 && s.nextArr == len(s.order) && s.wakeS == inf {
		s.stalled = true
	}
	return nil
}

// preempt stops a running job: its progress to now is kept, what it holds
// is released, and it goes back to the pending queue at its place in
// (submit time, index) order.
func (s *Sim) preempt(js *JobState) {
	js.advanceTo(s.now)
	js.rate = 0
	js.version++ // its completion event is stale now
	js.ranS += s.now - js.stintS
	js.Preemptions++
	js.Status = StatusPending
	s.release(js)
	// Emptied, not dropped: a resume reuses their arrays where they are
	// large enough (carved capped from the arenas, so no neighbour's).
	// The flows' routes are dropped so that they pin no chunk.
	clear(js.flows)
	js.flows = js.flows[:0]
	js.takes = js.takes[:0]
	js.instSlow = js.instSlow[:0]
}

// requeue puts the jobs a decision preempted back in the pending queue
// and their shapes' queues, in pending order: one merge per queue, so a
// decision that suspends many jobs moves a long queue's tail once, not
// once per job.
func (s *Sim) requeue(pre []*JobState) {
	if s.pendingBlind {
		for _, js := range pre {
			s.addPending(js)
		}
	}
	if !s.pendingBlind || s.shapesLive {
		slices.SortFunc(pre, ComparePending)
	}
	if !s.pendingBlind {
		s.pending = mergePending(s.pending, pre)
	}
	if !s.shapesLive {
		// The shapes that had no pending job join the list in shape
		// order, as the merges below add them.
		added := s.newShapes[:0]
		for _, js := range pre {
			if s.shapeN[js.shape] == 0 {
				added = append(added, js.shape)
			}
			s.shapeN[js.shape]++
		}
		slices.Sort(added)
		for _, id := range added {
			s.addActiveShape(id)
		}
		s.newShapes = added[:0]
		return
	}
	slices.SortStableFunc(pre, func(a, b *JobState) int { return cmp.Compare(a.shape, b.shape) })
	for i := 0; i < len(pre); {
		id := pre[i].shape
		k := i + 1
		for k < len(pre) && pre[k].shape == id {
			k++
		}
		if s.shapeN[id] == 0 {
			s.addActiveShape(id)
		}
		s.shapeN[id] += int32(k - i)
		s.shapes[id] = mergePending(s.shapes[id], pre[i:k])
		i = k
	}
}

// mergePending merges add, in pending order (ComparePending) and none of them
// in q, into q, a queue in pending order, and returns q. It fills q from
// its end, so each job after the first insertion point moves once, a run
// at a time: each added job's place is found by binary search and the
// jobs after it move in one copy.
func mergePending(q, add []*JobState) []*JobState {
	n := len(q)
	q = slices.Grow(q, len(add))[:n+len(add)]
	end := n // q[:end] are the old jobs not yet moved
	for k := len(add) - 1; k >= 0; k-- {
		p := searchPending(q[:end], add[k])
		copy(q[p+k+1:], q[p:end])
		q[p+k] = add[k]
		end = p
	}
	return q
}

// addPending appends js to pending and notes its place (pendPos).
func (s *Sim) addPending(js *JobState) {
	js.pendPos = int32(len(s.pending))
	s.pending = append(s.pending, js)
}

// dropPending removes js from pending, which is in no order
// (pendingBlind): the last job takes its place.
func (s *Sim) dropPending(js *JobState) {
	k, last := js.pendPos, s.pending[len(s.pending)-1]
	s.pending[k], last.pendPos = last, k
	s.pending[len(s.pending)-1] = nil
	s.pending = s.pending[:len(s.pending)-1]
}

// restartCost is what resuming js costs, in standalone seconds of work.
func (s *Sim) restartCost(js *JobState) float64 { return s.cfg.RestartS.Of(js.Job.Model) }

// checkPreempt validates the preemptions of a decision and adds what the
// preempted jobs hold to s.scratch, so that the starts are checked against
// the resources free once they have stopped.
func (s *Sim) checkPreempt(jobs []int) error {
	for _, j := range jobs {
		if j < 0 || j >= len(s.jobs) {
			return fmt.Errorf("sim: at t=%gs: preempt of job index %d: %w: no such job", s.now, j, ErrInfeasible)
		}
		js := &s.jobs[j]
		if js.Status != StatusRunning {
			return fmt.Errorf("sim: at t=%gs: preempt of job %q (index %d): %w: job is not running (status %d)", s.now, js.Job.JobID, j, ErrInfeasible, js.Status)
		}
		if s.seen[j] == s.checkStamp {
			return fmt.Errorf("sim: at t=%gs: preempt of job %q (index %d): %w: preempted twice in one decision", s.now, js.Job.JobID, j, ErrInfeasible)
		}
		s.seen[j] = s.checkStamp
		for i, sl := range js.Slots {
			s.scratch[sl.Server] = s.scratch[sl.Server].Add(js.Instances[i].Demand)
		}
	}
	return nil
}

// ExecutedS is the wall-clock time the job has run so far, over all its
// stints: what a real scheduler observes as its attained service (LAS,
// Tiresias). It is 0 for a job that never started.
func (j *JobState) ExecutedS(now float64) float64 {
	switch j.Status {
	case StatusRunning:
		return j.ranS + (now - j.stintS)
	case StatusPending:
		return j.ranS
	case StatusDone:
		if j.Preemptions > 0 {
			return j.ranS + (j.finishS - j.stintS)
		}
		return j.finishS - j.StartS
	}
	return 0
}

// Arrived lists the jobs that arrived since the previous decision, in
// arrival order ((submit time, index)); some may already have started or
// finished. Like the State, the slice is valid until the next Apply and
// must not be modified.
func (st *State) Arrived() []*JobState {
	s := st.sim
	out := s.arrivedBuf[:0]
	for _, i := range s.order[st.arrFrom:st.arrTo] {
		out = append(out, &s.jobs[i])
	}
	s.arrivedBuf = out
	return out
}
