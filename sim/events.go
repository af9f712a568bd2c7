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

func (s *Sim) popEvent() event {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && evLess(h[r], h[l]) {
			m = r
		}
		if !evLess(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
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
