package marl

import "testing"

// TestObsStoreHolds checks the store's contract: an edge-feature buffer
// goes back only when no context holds it, a context lets go of its
// buffers only when its last holder does, and an observation's own
// buffers go back at recycle.
func TestObsStoreHolds(t *testing.T) {
	s := &obsStore{}
	newCtx := func(prev *edgeCtx, fresh ...int) *edgeCtx {
		s.mu.Lock()
		defer s.mu.Unlock()
		c := &edgeCtx{inner: make([][]float64, 2)}
		for p := range c.inner {
			if prev != nil {
				c.inner[p] = prev.inner[p]
			}
		}
		for _, p := range fresh {
			c.inner[p] = s.bufLocked(3 + p)
		}
		c.inter = s.bufLocked(5)
		s.holdLocked(c, prev)
		return c
	}
	same := func(a, b []float64) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

	c1 := newCtx(nil, 0, 1)
	s.retain(c1) // the view
	o := &obs{x0: make([]float64, 7), ctx: c1}
	s.retain(o.ctx)     // recorded
	c2 := newCtx(c1, 1) // shares partition 0's features with c1
	s.retain(c2)
	s.release(c1) // the view moves on
	in0, in1, inter1 := c1.inner[0], c1.inner[1], c1.inter
	if b := s.take(4); b != nil {
		t.Fatal("a buffer came back while a recorded observation held its context")
	}
	x0 := o.x0
	s.recycle(o)
	if o.x0 != nil || o.ctx != nil {
		t.Fatal("recycle left the observation its buffers")
	}
	if b := s.take(7); !same(b, x0) {
		t.Fatal("the observation's candidate rows did not come back")
	}
	if b := s.take(4); !same(b, in1) {
		t.Fatal("partition 1's features, which no context holds, did not come back")
	}
	if b := s.take(5); !same(b, inter1) {
		t.Fatal("the inter-scheduler features, which no context holds, did not come back")
	}
	if b := s.take(3); b != nil {
		t.Fatal("partition 0's features came back while the next context held them")
	}
	s.release(c2)
	if b := s.take(3); !same(b, in0) {
		t.Fatal("partition 0's features did not come back with the last context")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a context released once more than held did not panic")
		}
	}()
	s.release(c2)
}
