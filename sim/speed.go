package sim

import (
	"math"
	"slices"
)

// Speed: each running job's rate (interference from its co-runners and the
// time its flows take on shared links), recomputed only for jobs marked
// dirty since the last flush.

// markServer marks the jobs on server for a new interference slowdown of
// their instances there (their co-runners changed); relink (a link's
// flows changed) marks a job for new communication times. Each cached part
// is recomputed exactly when its inputs changed, from the same inputs in
// the same order, so the rates are those of a full recomputation.
func (s *Sim) markServer(server int) {
	if s.standalone {
		// A rate is the job's GPU types' alone (rate): the jobs are
		// marked only so that flush advances their done at the same
		// instants as under the model (the same sums, to the bit). The
		// server is queued instead, once however often it changes before
		// the flush (advanceMarked).
		if !s.srvMarked[server] {
			s.srvMarked[server] = true
			s.marked = append(s.marked, int32(server))
		}
		return
	}
	for _, r := range s.srvInst[server] {
		js := &s.jobs[r.job]
		js.slowStale = true
		js.instSlow[r.inst] = -1
		s.markDirty(js)
	}
}

// markDirty queues js for the next flush.
func (s *Sim) markDirty(js *JobState) { s.markDirtyIndex(int32(js.Index)) }

// markDirtyIndex queues job i for the next flush. The flags are a dense
// array, not a field of the job: relink marks every job on a link, and
// reading each one's state for its flag was most of its cost.
func (s *Sim) markDirtyIndex(i int32) {
	if !s.jobDirty[i] {
		s.jobDirty[i] = true
		s.dirty = append(s.dirty, &s.jobs[i])
	}
}

// flush recomputes the rate of every dirty running job and reschedules its
// completion.
func (s *Sim) flush() {
	s.relinkQueued()
	s.advanceMarked()
	for _, js := range s.dirty {
		s.jobDirty[js.Index] = false
		if js.Status != StatusRunning {
			continue
		}
		js.advanceTo(s.now)
		if !js.slowStale && js.version != 0 && js.rate == js.rate && !s.commStale[js.Index] {
			// Neither cached part changed since rate last gave js.rate
			// (it leaves slowStale set where it answers 1 without
			// them): it would give the same again. Most dirty jobs are
			// here, marked by a link they share with a starting or
			// finishing job but not bottlenecked by it.
			continue
		}
		r := s.rate(js)
		if r == js.rate && js.version != 0 {
			continue
		}
		js.rate = r
		js.version++
		s.pushEvent(event{t: s.now + (js.work-js.done)/r, job: int32(js.Index), ver: js.version})
	}
	s.dirty = s.dirty[:0]
}

// advanceMarked advances done, to now, of every job on a server that
// markServer queued under standalone speed: what flush did for each of
// them as a dirty job, whose rate (typeRate, fixed for the stint) gives
// no new completion. The jobs on such a server when it was marked that
// still run are on it now, and those that joined it since are this
// instant's starts, marked dirty by start itself; a job met again (on
// another marked server, in the dirty list) advances by rate·0, which
// leaves done's bits as they are. So done takes the same sums at the same
// instants as when every job was marked, and the completions are pushed
// in the same order.
func (s *Sim) advanceMarked() {
	for _, srv := range s.marked {
		s.srvMarked[srv] = false
		insts, prev := s.srvInst[srv], int32(-1)
		for i := range insts {
			// A job met again (its other instances here, one run of
			// entries (release), or on another marked server) is at now
			// already: advancing it adds rate·0 (rates are finite), which
			// changes no bit.
			j := insts[i].job
			if j == prev {
				continue
			}
			prev = j
			if js := &s.jobs[j]; js.last != s.now {
				js.advanceTo(s.now)
			}
		}
	}
	s.marked = s.marked[:0]
}

// rate is a running job's speed relative to standalone: ideal / (ideal·(1+S)
// + communication), S the straggler's slowdown, times its GPU types'
// speed (gpuRate, which start computes once per stint: it reads only the
// job's model and its servers' types).
func (s *Sim) rate(js *JobState) float64 {
	if js.work == 0 {
		return 1
	}
	if s.standalone {
		return js.typeRate
	}
	if js.slowStale {
		// Per instance, its slowdown is kept (instSlow, −1 when its
		// server's co-runners changed) and the job's is their largest.
		// Under a model given the sums, the first instance met on a
		// changed server has every instance there recomputed
		// (serverSlowdowns). Otherwise, an instance on the same slot with
		// the same load as the one before it sees the same co-runners in
		// the same order (they were booked one after the other), so it
		// takes that one's value.
		js.slowStale = false
		js.slow = 0
		for i, sl := range js.Slots {
			if js.instSlow[i] < 0 && s.fromSums != nil {
				s.serverSlowdowns(sl.Server)
			}
			if js.instSlow[i] < 0 {
				// Not under GPU sharing for an instance with a fraction of
				// a GPU: the one before it may sit on another GPU.
				if i > 0 && sl == js.Slots[i-1] && js.Instances[i].Load == js.Instances[i-1].Load &&
					(s.share == nil || !fractional(js.Instances[i].Demand.GPU)) {
					js.instSlow[i] = js.instSlow[i-1]
				} else {
					js.instSlow[i] = s.instanceSlowdown(js.Instances[i].Load, js.Index, i, sl.Server, sl.Socket, nil)
				}
			}
			js.slow = max(js.slow, js.instSlow[i])
		}
	}
	worst := js.slow
	if s.commStale[js.Index] {
		s.commStale[js.Index] = false
		js.comm = s.comm(js)
	}
	return js.typeRate / (1 + worst + js.comm/js.Profile.IterS)
}

// comm is the time per iteration of a running job's slowest flow. A
// flow's time is recomputed only when stale; it reads only the capacity
// per flow of the links it crosses, which change only with their counts.
func (s *Sim) comm(js *JobState) float64 {
	if len(js.flows) == 0 {
		return 0
	}
	var comm float64
	share := s.linkShare
	base := int(js.flows[0].id) // the job's block: flow k is entry base+k
	hot := s.hot[base : base+len(js.flows)]
	for k := range hot {
		h := &hot[k]
		switch {
		case h.stale:
			f := &js.flows[k]
			h.stale, h.tStale = false, false
			fwd, back := inf, inf
			for _, dl := range f.links {
				fwd = min(fwd, share[dl])
				if f.duplex {
					back = min(back, share[dl.Reverse()])
				}
			}
			h.fwd, h.back = fwd, back
			h.t = js.flows[k].time(h)
			for _, dl := range f.links { // relink's bound
				s.linkMost[dl] = max(s.linkMost[dl], fwd)
				if f.duplex {
					s.linkMost[dl.Reverse()] = max(s.linkMost[dl.Reverse()], back)
				}
			}
		case h.tStale:
			h.tStale = false
			h.t = js.flows[k].time(h)
		}
		comm = max(comm, h.t)
	}
	return comm
}

// instanceSlowdown is an instance's slowdown from its co-runners: the
// CPU/PCIe term (cpuSlowdown) plus, under a sharing model, the GPU-sharing
// term (gpuShareSlowdown), capped at MaxSlowdown. A hypothetical instance
// (self −1) is charged the CPU/PCIe term only: its GPU is not chosen yet.
func (s *Sim) instanceSlowdown(load JobLoad, self, inst int, server, socket int, extra []JobLoad) float64 {
	x := s.cpuSlowdown(load, self, inst, server, socket, extra)
	if s.share == nil || self < 0 {
		return x
	}
	return min(x+s.gpuShareSlowdown(self, inst, server, socket), MaxSlowdown)
}

// fractional reports a GPU request of a fraction of one GPU: the
// instances that share GPUs.
func fractional(gpu float64) bool { return gpu > 0 && gpu < 1 }

// cpuSlowdown is S(target, co-runners) − S(target, ∅) clamped to
// [0, MaxSlowdown] for instance inst of job self (self −1 for a
// hypothetical instance, which is not in srvInst) homed on socket of
// server. Only the instance itself is skipped — by instance, not by job:
// the job's other instances (its PS beside its worker) are co-runners like
// any other.
func (s *Sim) cpuSlowdown(load JobLoad, self, inst int, server, socket int, extra []JobLoad) float64 {
	if s.fromSums != nil {
		return s.sumsSlowdown(load, self, inst, server, socket, extra)
	}
	same, other := append(s.sameBuf[:0], extra...), s.otherBuf[:0]
	for _, r := range s.srvInst[server] {
		if int(r.job) == self && int(r.inst) == inst {
			continue // the target instance itself
		}
		l := s.jobs[r.job].Instances[r.inst].Load
		if int(r.socket) == socket {
			same = append(same, l)
		} else {
			other = append(other, l)
		}
	}
	s.sameBuf, s.otherBuf = same, other
	if len(same) == 0 && len(other) == 0 {
		return 0
	}
	cores := s.coresOf(server, socket)
	x := s.model.Slowdown(load, same, other, cores) - s.model.Slowdown(load, nil, nil, cores)
	if !(x > 0) { // also catches NaN
		return 0
	}
	return min(x, MaxSlowdown)
}

// aloneFor is fromSums(load, 0, 0, 0, cores), the standalone term of an
// instance not yet placed, remembered for the last (load, cores) asked: a
// placer scoring every server for one instance (LIF's PredictSlowdown)
// asks it once per busy server with the same load, and it was half of
// that scan's exponentials. The same function of the same arguments, so
// the same bits.
func (s *Sim) aloneFor(load JobLoad, cores int) float64 {
	a := &s.alone
	if !a.ok || a.cores != cores || a.load != load {
		a.load, a.cores, a.val, a.ok = load, cores, s.fromSums(load, 0, 0, 0, cores), true
	}
	return a.val
}

// coresOf is the core count of a server's socket, as the models take it
// (Socket.Cores truncated to an int), from a dense table: the slowdown of
// every instance whose co-runners changed reads it, and the server's
// record was a cache miss there.
func (s *Sim) coresOf(server, socket int) int {
	return s.sockCores[int(s.sockBase[server])+socket]
}

// sumsSlowdown is instanceSlowdown for a model with a form given the
// co-runners' sums (ExpLinear, alone or in an environment), without
// building the co-runner lists: it sums C and P in the order
// ExpLinear.Slowdown would sum the lists instanceSlowdown builds (extra
// first, then srvInst's order), so the sums, and the result, are the same
// to the bit.
func (s *Sim) sumsSlowdown(load JobLoad, self, inst int, server, socket int, extra []JobLoad) float64 {
	var uc, up, oc float64
	for _, l := range extra {
		uc += l.C
		up += l.P
	}
	co := len(extra)
	insts := s.srvInst[server]
	me := -1 // the target's entry in insts
	for k, r := range insts {
		if int(r.job) == self && int(r.inst) == inst {
			me = k
			continue // the target instance itself
		}
		co++
		if int(r.socket) == socket {
			uc += r.c
			up += r.p
		} else {
			oc += r.c
		}
	}
	if co == 0 {
		return 0
	}
	cores := s.coresOf(server, socket)
	// The standalone term of a running instance is kept in its entry
	// (computed once, from the same load and socket as here): it is half
	// the model's work, and the co-runners change far more often than it.
	var alone float64
	switch {
	case me < 0:
		alone = s.aloneFor(load, cores)
	case insts[me].hasAlone:
		alone = insts[me].alone
	default:
		alone = s.fromSums(load, 0, 0, 0, cores)
		insts[me].alone, insts[me].hasAlone = alone, true
	}
	x := s.fromSums(load, uc, up, oc, cores) - alone
	if !(x > 0) { // also catches NaN
		return 0
	}
	return min(x, MaxSlowdown)
}

// slowMemo is one CPU/PCIe term serverSlowdowns computed on the exact
// path, where it depends on the instance's socket and load alone.
type slowMemo struct {
	socket int32
	c, p   float64
	cpu    float64
}

// maxExactSum bounds sums of non-negative integers that float64 adds
// exactly: every partial sum below 2⁵³ is an integer it represents.
const maxExactSum = 1 << 53

// serverSlowdowns sets instSlow of every instance on server to its
// instanceSlowdown: rate calls it for the first instance it meets there
// whose co-runners changed (markServer marks every instance on the server,
// and a start's own instances come marked), so a changed server is
// recomputed once, not once per instance, each instance's sum over its
// co-runners in O(1) where that is exact.
//
// The bits are sumsSlowdown's: where every C and P on the server is a
// non-negative integer and their totals stay below 2⁵³ (the trace's loads
// are whole cores and Gbit/s), every partial sum is exact, so a socket's
// total less the instance's own term is the sum of the others in any
// order; otherwise each instance's sums are taken in srvInst's order, as
// sumsSlowdown takes them. Either way an instance with the socket and load
// of the entry before it sees the same co-runners in the same order, and
// takes its CPU/PCIe term.
func (s *Sim) serverSlowdowns(server int) {
	insts := s.srvInst[server]
	nsock := len(s.sockFree[server])
	sums := s.slowSums[:0]
	for range 2 * nsock {
		sums = append(sums, 0)
	}
	s.slowSums = sums
	var allC, allP float64
	exact := true
	for _, r := range insts {
		if !(r.c >= 0 && r.c == math.Trunc(r.c) && r.p >= 0 && r.p == math.Trunc(r.p)) {
			exact = false
			break
		}
		sums[2*r.socket] += r.c
		sums[2*r.socket+1] += r.p
		allC += r.c
		allP += r.p
	}
	exact = exact && allC < maxExactSum && allP < maxExactSum
	memo := s.slowMemo[:0]
	var cpu float64
	for k := range insts {
		r := &insts[k]
		js := &s.jobs[r.job]
		load := js.Instances[r.inst].Load
		switch {
		case k > 0 && r.socket == insts[k-1].socket && r.c == insts[k-1].c && r.p == insts[k-1].p:
			// cpu is the entry before's: the same sums of the same terms.
		case !exact:
			cpu = s.sumsSlowdown(load, int(r.job), int(r.inst), server, int(r.socket), nil)
		case len(insts) == 1:
			cpu = 0
		default:
			// A function of the socket and the load alone here: computed
			// once per pass for each pair.
			m := slices.IndexFunc(memo, func(e slowMemo) bool { return e.socket == r.socket && e.c == r.c && e.p == r.p })
			if m >= 0 {
				cpu = memo[m].cpu
				break
			}
			sock := int(r.socket)
			cores := s.coresOf(server, sock)
			if !r.hasAlone {
				r.alone, r.hasAlone = s.fromSums(load, 0, 0, 0, cores), true
			}
			uc, up, oc := sums[2*sock]-r.c, sums[2*sock+1]-r.p, allC-sums[2*sock]
			cpu = s.fromSums(load, uc, up, oc, cores) - r.alone
			if !(cpu > 0) { // also catches NaN
				cpu = 0
			}
			cpu = min(cpu, MaxSlowdown)
			memo = append(memo, slowMemo{socket: r.socket, c: r.c, p: r.p, cpu: cpu})
		}
		x := cpu
		if s.share != nil {
			x = min(x+s.gpuShareSlowdown(int(r.job), int(r.inst), server, int(r.socket)), MaxSlowdown)
		}
		js.instSlow[r.inst] = x
	}
	s.slowMemo = memo
}
