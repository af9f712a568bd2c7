package sim

// Speed: each running job's rate (interference from its co-runners and the
// time its flows take on shared links), recomputed only for jobs marked
// dirty since the last flush.

// markServer marks the jobs on server for a full rate recomputation
// (interference and communication); markDirty alone (a link changed)
// recomputes communication only.
func (s *Sim) markServer(server int) {
	for _, r := range s.srvInst[server] {
		js := &s.jobs[r.job]
		js.slowStale = true
		s.markDirty(js)
	}
}

// markDirty queues js for the next flush.
func (s *Sim) markDirty(js *JobState) {
	if !js.dirty {
		js.dirty = true
		s.dirty = append(s.dirty, js)
	}
}

// flush recomputes the rate of every dirty running job and reschedules its
// completion.
func (s *Sim) flush() {
	for _, js := range s.dirty {
		js.dirty = false
		if js.Status != StatusRunning {
			continue
		}
		js.done += js.rate * (s.now - js.last)
		if js.done > js.work {
			js.done = js.work
		}
		js.last = s.now
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

// rate is a running job's speed relative to standalone: ideal / (ideal·(1+S)
// + communication), S the straggler's slowdown.
func (s *Sim) rate(js *JobState) float64 {
	if js.work == 0 || s.standalone {
		return 1
	}
	if js.slowStale {
		js.slowStale = false
		js.slow = 0
		for i, sl := range js.Slots {
			if i > 0 && sl == js.Slots[i-1] && js.Instances[i].Load == js.Instances[i-1].Load {
				continue
			}
			js.slow = max(js.slow, s.instanceSlowdown(js.Instances[i].Load, js.Index, i, sl.Server, sl.Socket, nil))
		}
	}
	worst := js.slow
	var comm float64
	links := s.cluster.Topology.Links
	for _, f := range js.flows {
		fwd, back := inf, inf
		for _, dl := range f.links {
			c := links[dl.Link()].Gbps
			fwd = min(fwd, c/float64(s.linkCount[dl]))
			if f.duplex {
				back = min(back, c/float64(s.linkCount[dl.Reverse()]))
			}
		}
		t := f.volume / fwd
		if f.duplex {
			t = f.volume/2/fwd + f.volume/2/back
		}
		comm = max(comm, t)
	}
	return 1 / (1 + worst + comm/js.Profile.IterS)
}

// instanceSlowdown is S(target, co-runners) − S(target, ∅) clamped to
// [0, MaxSlowdown] for instance inst of job self (self −1 for a
// hypothetical instance, which is not in srvInst) homed on socket of
// server. Only the instance itself is skipped — by instance, not by job:
// the job's other instances (its PS beside its worker) are co-runners like
// any other.
func (s *Sim) instanceSlowdown(load JobLoad, self, inst int, server, socket int, extra []JobLoad) float64 {
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
	cores := int(s.cluster.Servers[server].Kind.Sockets[socket].Cores)
	x := s.model.Slowdown(load, same, other, cores) - s.model.Slowdown(load, nil, nil, cores)
	if !(x > 0) { // also catches NaN
		return 0
	}
	return min(x, MaxSlowdown)
}
