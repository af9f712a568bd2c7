package sim

// The event queue: completions of running jobs, in a binary min-heap. A
// job's rate change does not remove its old event; it pushes a new one with
// the next version, and Next drops events whose version is stale.

// event is the expected completion of job at time t, valid while the job's
// version is ver.
type event struct {
	t   float64
	job int32
	ver uint32
}

func (s *Sim) pushEvent(e event) {
	if len(s.heap) >= 2*len(s.running)+64 {
		s.compactEvents()
	}
	h := append(s.heap, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !evLess(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	s.heap = h
}

// compactEvents drops the stale events (their job finished or its
// version moved on: they can never become valid again) and rebuilds the
// heap. Every rate change leaves one behind, so under Load Balancing on a
// fat-tree the heap grew to many times the running jobs. Next skips
// stale events and pops valid ones in (time, job, version) order, a total
// order, so dropping them changes nothing it returns.
func (s *Sim) compactEvents() {
	h := s.heap[:0]
	for _, e := range s.heap {
		if js := &s.jobs[e.job]; js.Status == StatusRunning && js.version == e.ver {
			h = append(h, e)
		}
	}
	s.heap = h
	for i := len(h)/2 - 1; i >= 0; i-- {
		s.down(i)
	}
}

// down moves the event at i down to its place in the heap.
func (s *Sim) down(i int) {
	h := s.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && evLess(h[r], h[l]) {
			m = r
		}
		if !evLess(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (s *Sim) popEvent() event {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	s.heap = h[:last]
	s.down(0)
	return top
}

// evLess orders events by time, then job index, then version: ties never
// depend on insertion order.
func evLess(a, b event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.job != b.job {
		return a.job < b.job
	}
	return a.ver < b.ver
}
