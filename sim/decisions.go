package sim

// Decisions: the loop that advances the clock to the next decision point,
// the State it hands the scheduler, and the start and finish of jobs.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Next advances the clock to the next decision point and returns the
// observation there. It returns io.EOF when every job has finished, and an
// error wrapping ErrStalled when jobs can never start. Every call but the
// first must follow an Apply.
func (s *Sim) Next(ctx context.Context) (*State, error) {
	if s.awaiting {
		return nil, errors.New("sim: Next called twice without Apply")
	}
	if s.stalled {
		id := slices.MinFunc(s.pending, ComparePending).Job.JobID // pending's first, in any order
		return nil, fmt.Errorf("sim: at t=%gs: %w: %d jobs pending (first %q) on an idle cluster with no job left to arrive, and the last decision placed none",
			s.now, ErrStalled, len(s.pending), id)
	}
	for iter := 0; ; iter++ {
		if iter&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// The next time anything happens; completions before arrivals
		// before triggers at the same instant.
		tc := inf
		for len(s.heap) > 0 {
			e := s.heap[0]
			if js := &s.jobs[e.job]; js.Status == StatusRunning && js.version == e.ver {
				tc = e.t
				break
			}
			s.popEvent()
		}
		ta := inf
		if s.nextArr < len(s.order) {
			ta = s.jobs[s.order[s.nextArr]].SubmitS
		}
		t := min(tc, ta, s.nextTrig, s.wakeS)
		woke := t == s.wakeS
		if woke {
			s.wakeS = inf
		}
		if t == inf {
			if len(s.pending) > 0 {
				// Unreachable while the stall rule holds; kept so a bug
				// can never turn into a silent early end.
				return nil, fmt.Errorf("sim: at t=%gs: %w: %d jobs pending and no event left", s.now, ErrStalled, len(s.pending))
			}
			return nil, io.EOF
		}
		s.now = t
		freed := false
		for len(s.heap) > 0 && s.heap[0].t == t {
			e := s.popEvent()
			if js := &s.jobs[e.job]; js.Status == StatusRunning && js.version == e.ver {
				s.finish(js)
				freed = true
			}
		}
		arrived := len(s.pending)
		for s.nextArr < len(s.order) && s.jobs[s.order[s.nextArr]].SubmitS == t {
			js := &s.jobs[s.order[s.nextArr]]
			s.nextArr++
			js.Status = StatusPending
			s.addPending(js)
			s.addPendingShape(js)
		}
		s.flush()
		decide := false
		switch s.cfg.Trigger {
		case TriggerEvent:
			// DAS: the scheduler is triggered when there are enough free
			// resources to run a pending job. Completions free resources;
			// an arrival alone matters only if it, or a job the last
			// decision left pending, could fit what is free.
			if len(s.pending) > 0 {
				switch {
				case freed:
					decide = true
					s.leftFit = fitUnknown
				case arrived < len(s.pending):
					total := s.freeTotal()
					for _, js := range s.pending[arrived:] {
						if s.couldFit(js, total) {
							decide = true
							break
						}
					}
					if !decide {
						if s.leftFit == fitUnknown {
							// Whether a job left pending could fit: one
							// job per shape decides for all of its shape
							// (couldFit reads only the shape and the free
							// resources). The arrivals' shapes are
							// included; none of them could fit, so the
							// answer is the same.
							s.leftFit = fitNo
							for _, id := range s.activeShape {
								if s.couldFit(s.shapes[id][0], total) {
									s.leftFit = fitYes
									break
								}
							}
						}
						decide = s.leftFit == fitYes
					}
				}
			}
		case TriggerEvery:
			// Tiresias: every arrival and completion is an event its
			// policies act on, whether or not a job is pending (its
			// queues change as running jobs age).
			decide = (freed || arrived < len(s.pending)) && len(s.pending)+len(s.running) > 0
		case TriggerInterval:
			if len(s.pending) == 0 {
				s.nextTrig = inf
			} else if s.nextTrig == inf {
				s.nextTrig = math.Ceil(t/s.cfg.IntervalS) * s.cfg.IntervalS
			}
			if s.nextTrig == t {
				decide = true
				s.nextTrig = t + s.cfg.IntervalS
			}
		}
		if woke && len(s.pending)+len(s.running) > 0 {
			decide = true
		}
		if decide {
			s.awaiting = true
			return s.state(), nil
		}
	}
}

func (s *Sim) state() *State {
	st := s.reused
	if st == nil {
		st = new(State)
	}
	*st = State{
		Now: s.now, Decision: s.decisions, Cluster: s.cluster,
		Pending: s.pending, Running: s.running, Free: s.free, LinkFlows: s.linkCount, sim: s,
		arrFrom: s.lastArr, arrTo: s.nextArr,
	}
	s.lastArr = s.nextArr
	st.Since = Interval{FromS: s.lastDecisionS, Finished: s.sinceFinished, Unplaced: s.pending[:s.unplaced:s.unplaced]}
	if s.pendingBlind {
		st.Pending, st.Since.Unplaced = nil, nil
	}
	if s.noProgress {
		s.endState()
		return st
	}
	st.Since.Progress = s.progressBuf[:0]
	for _, r := range s.sinceFinished {
		js := &s.jobs[r.Index]
		if js.work > 0 {
			st.Since.Progress = append(st.Since.Progress, Progress{Job: js.Index, Fraction: (js.work - js.doneAtDecision) / js.work})
		}
	}
	for _, js := range s.running {
		if js.work > 0 {
			done := js.done + js.rate*(s.now-js.last)
			st.Since.Progress = append(st.Since.Progress, Progress{Job: js.Index, Fraction: (done - js.doneAtDecision) / js.work})
			js.doneAtDecision = done
		}
	}
	s.progressBuf = st.Since.Progress
	s.endState()
	return st
}

// endState is the part of state after the State is filled: the interval
// it reported is over.
func (s *Sim) endState() {
	if s.reused != nil {
		// Nobody reads this State's Finished after the next Apply.
		s.sinceFinished = s.sinceFinished[:0]
	} else {
		s.sinceFinished = s.sinceFinished[len(s.sinceFinished):] // the State keeps the old part
	}
	s.unplaced = 0
	s.lastDecisionS = s.now
}

// Apply starts the placements of the decision the last Next asked for: a
// Decision of starts only (see Do).
func (s *Sim) Apply(pl []Placement) error { return s.Do(Decision{Start: pl}) }

func (s *Sim) start(js *JobState, slots []Slot) {
	if js.Preemptions > 0 {
		// A resume: the job keeps its progress and first start, and pays
		// the restart cost as extra standalone work.
		js.Resumptions++
		js.work += s.restartCost(js)
	} else {
		js.StartS = s.now
		js.done = 0
		js.doneAtDecision = 0
	}
	js.Status = StatusRunning
	js.stintS = s.now
	js.last = s.now
	js.rate = 0
	js.Slots = s.slotArena.reuse(js.Slots, slots)
	if !s.standalone {
		// Under standalone speed rate reads no slowdown, and nothing else
		// reads instSlow: it stays empty.
		if cap(js.instSlow) >= len(slots) {
			js.instSlow = js.instSlow[:len(slots)] // a resume: the last stint's, kept by preempt
		} else {
			js.instSlow = s.f64Arena.take(len(slots))
		}
		for i := range js.instSlow {
			js.instSlow[i] = -1
		}
	}
	servers, takes := s.srvBuf[:0], s.takeBuf[:0]
	s.stamp++
	self, u := int32(js.Index), s.gpuUtilOf(js.Index)
	for i, sl := range slots {
		in := &js.Instances[i]
		d := in.Demand
		sock := sl.Socket
		sf := s.sockFree[sl.Server]
		if sock < 0 {
			if s.sockMostFree {
				sock = mostFree(sf)
			} else {
				sock = s.chooseSocket(sl.Server, d)
			}
		}
		js.Slots[i].Socket = sock
		s.free[sl.Server] = s.free[sl.Server].Sub(d)
		// Home socket first, the rest from the others in index order.
		g, c := d.GPU, d.CPU
		if h := &sf[sock]; h.GPU >= g && h.CPU >= c {
			// The home socket has all of it: the loop's first step
			// takes g and c there (demands are >= 0) and ends.
			if g > 0 || c > 0 {
				h.GPU -= g
				h.CPU -= c
				takes = append(takes, take{server: int32(sl.Server), socket: int32(sock), gpu: g, cpu: c})
			}
			g, c = 0, 0
		}
		for k := 0; k < len(sf) && (g > 0 || c > 0); k++ {
			so := (sock + k) % len(sf)
			tg, tc := min(g, max(sf[so].GPU, 0)), min(c, max(sf[so].CPU, 0))
			if k == len(sf)-1 {
				tg, tc = g, c // rounding remainder goes to the last socket tried
			}
			if tg > 0 || tc > 0 {
				sf[so].GPU -= tg
				sf[so].CPU -= tc
				takes = append(takes, take{server: int32(sl.Server), socket: int32(so), gpu: tg, cpu: tc})
				g -= tg
				c -= tc
			}
		}
		if s.serverSeen[sl.Server] != s.stamp {
			s.serverSeen[sl.Server] = s.stamp
			servers = append(servers, sl.Server)
			s.markServer(sl.Server)
		}
		s.srvInst[sl.Server] = append(s.srvInst[sl.Server], instRef{job: self, inst: int32(i), socket: int32(sock), c: in.Load.C, p: in.Load.P, g: d.GPU, u: u})
	}
	js.Servers = s.intArena.reuse(js.Servers, servers)
	js.typeRate = s.gpuRate(js)
	js.takes = s.takeArena.reuse(js.takes, takes)
	s.srvBuf, s.takeBuf = servers, takes
	s.addFlows(js)
	js.runPos = int32(len(s.running))
	s.running = append(s.running, js)
	js.slowStale = true
	s.commStale[js.Index] = true
	s.markDirty(js)
}

func (s *Sim) finish(js *JobState) {
	js.done = js.work
	js.last = s.now
	js.Status = StatusDone
	js.finishS = s.now
	s.release(js)
	r := s.resultOf(js)
	s.gpuSeconds += r.GPUs * r.RunS
	s.finished++
	if len(s.sinceFinished) == cap(s.sinceFinished) {
		// The last State keeps the part before the free capacity, so
		// appends go into a new array: room for many, not one per
		// decision.
		s.sinceFinished = slices.Grow(s.sinceFinished, 64)
	}
	s.sinceFinished = append(s.sinceFinished, r)
	js.flows = nil
	js.takes = nil
	js.instSlow = nil
}

// release gives back what a running job holds (its servers' and sockets'
// resources, its flows, its place in running): the part of finishing that
// a preemption shares.
func (s *Sim) release(js *JobState) {
	for _, t := range js.takes {
		sf := &s.sockFree[t.server][t.socket]
		sf.GPU += t.gpu
		sf.CPU += t.cpu
	}
	for i, sl := range js.Slots {
		s.free[sl.Server] = s.free[sl.Server].Add(js.Instances[i].Demand)
	}
	self := int32(js.Index)
	for _, srv := range js.Servers {
		// start appends a job's instances on a server one after the
		// other, with no other job's in between, and removals keep the
		// order of the rest: the job's entries are one run, closed up by
		// one copy of the entries after it.
		insts := s.srvInst[srv]
		i := 0
		for i < len(insts) && insts[i].job != self {
			i++
		}
		e := i
		for e < len(insts) && insts[e].job == self {
			e++
		}
		k := i + copy(insts[i:], insts[e:])
		s.srvInst[srv] = insts[:k]
		s.markServer(srv)
		// Snap a fully idle server back to its exact capacity so sums of
		// fractional shares do not drift over a long run.
		if k == 0 {
			s.free[srv] = s.cluster.Capacity(srv)
			for so, x := range s.cluster.Servers[srv].Kind.Sockets {
				s.sockFree[srv][so] = Resources{GPU: x.GPUs, CPU: x.Cores}
			}
		}
	}
	s.removeFlows(js)
	// Swap-remove from running, by the position start recorded.
	k, last := js.runPos, len(s.running)-1
	s.running[k] = s.running[last]
	s.running[k].runPos = int32(k)
	s.running[last] = nil
	s.running = s.running[:last]
}

// ComparePending orders jobs as the pending queue does: by submit time,
// then index (New's order). A scheduler that keeps its own queues in
// sim's order (schedulers' shape heaps) compares with it.
func ComparePending(a, b *JobState) int {
	switch {
	case a.SubmitS < b.SubmitS:
		return -1
	case a.SubmitS > b.SubmitS:
		return 1
	}
	return a.Index - b.Index
}

// dropStarted removes from q, a queue in pending order, the jobs of
// started (all in q, sorted by ComparePending) and returns q. It finds them by
// binary search and moves whichever side is shorter: the jobs after the
// first one removed down, or the jobs before the last one removed up (then
// q starts later in its array), a run of kept jobs at a time (one memmove
// each, not a loop over jobs). Heuristics place the oldest jobs that fit,
// near the front of a long queue, so a decision costs the distance to its
// placements rather than the queue's length. The order of the jobs kept
// is unchanged.
func dropStarted(q, started []*JobState) []*JobState {
	if len(started) == 0 {
		return q
	}
	// Each started job's position, searched for after the previous one's.
	var buf [16]int // a decision starts few jobs: no allocation then
	pos := buf[:0]
	from := 0
	for _, js := range started {
		k := searchPending(q[from:], js)
		pos = append(pos, from+k)
		from += k + 1
	}
	lo, hi := pos[0], pos[len(pos)-1]
	if len(q)-lo <= hi+1 {
		// Move the runs after each removed job down.
		k := lo
		for i, p := range pos {
			end := len(q)
			if i+1 < len(pos) {
				end = pos[i+1]
			}
			k += copy(q[k:], q[p+1:end])
		}
		clear(q[k:])
		return q[:k]
	}
	// Move the runs before each removed job up.
	k := hi + 1
	for i := len(pos) - 1; i >= 0; i-- {
		start := 0
		if i > 0 {
			start = pos[i-1] + 1
		}
		n := pos[i] - start
		k -= n
		copy(q[k:], q[start:pos[i]])
	}
	clear(q[:k])
	return q[k:]
}

// searchPending is the position of js in q, a queue in pending order
// (ComparePending): slices.BinarySearchFunc's answer, with the comparison
// inlined (a decision that resumes jobs searches for each).
func searchPending(q []*JobState, js *JobState) int {
	lo, hi := 0, len(q)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c := q[m]; c.SubmitS < js.SubmitS || (c.SubmitS == js.SubmitS && c.Index < js.Index) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// addPendingShape appends a newly pending job to its shape's queue.
func (s *Sim) addPendingShape(js *JobState) {
	id := js.shape
	if s.shapeN[id] == 0 {
		s.addActiveShape(id)
	}
	s.shapeN[id]++
	if s.shapesLive {
		s.shapes[id] = append(s.shapes[id], js)
	}
}

// addActiveShape puts shape id, which has a pending job now, on the list
// of shapes with one.
func (s *Sim) addActiveShape(id int32) {
	s.shapePos[id] = int32(len(s.activeShape))
	s.activeShape = append(s.activeShape, id)
}

// removeActiveShape takes shape id, which has no pending job left, off
// the list of shapes with one.
func (s *Sim) removeActiveShape(id int32) {
	k := s.shapePos[id]
	last := s.activeShape[len(s.activeShape)-1]
	s.activeShape[k] = last
	s.shapePos[last] = k
	s.activeShape = s.activeShape[:len(s.activeShape)-1]
	s.shapePos[id] = -1
}

// resultOf is the result row of a finished job, from its state alone, so
// that Result can rebuild the rows in index order instead of the run
// keeping a copy of each (a million-job replay kept 110 MB of them).
func (s *Sim) resultOf(js *JobState) JobResult {
	runS := js.finishS - js.StartS
	if js.Preemptions > 0 {
		runS = js.ranS + (js.finishS - js.stintS)
	}
	gpus := js.Total.GPU
	r := JobResult{
		Index: js.Index, JobID: js.Job.JobID,
		SubmitS: js.SubmitS, StartS: js.StartS, FinishS: js.finishS,
		JCTS: js.finishS - js.SubmitS, QueueS: js.StartS - js.SubmitS, RunS: runS, DurationS: js.DurationS,
		Slowdown: 1, GPUs: gpus, FeeUSD: s.cfg.PriceGPUHour * gpus * runS / 3600,
		Machines: len(js.Servers),
	}
	if js.DurationS > 0 {
		r.Slowdown = runS / js.DurationS
	}
	return r
}
