package marl

import (
	"testing"
	"time"
)

// keep holds at most keepRollouts() rollouts, dropping the least recently
// stepped, and none idle for longer than keepIdle; take finds a rollout by
// training key and episode and removes it.
func TestKeepBounds(t *testing.T) {
	kept.Lock()
	saved := kept.list
	kept.list = nil
	kept.Unlock()
	defer func() {
		kept.Lock()
		kept.list = saved
		kept.Unlock()
	}()
	mk := func(key string, ep int) *stepped { return &stepped{key: key, r: &rollout{ep: ep}} }
	n := keepRollouts()
	for ep := range n + 2 {
		keep(mk("a", ep))
	}
	if s := take("a", 0); s != nil {
		t.Error("the least recently stepped rollout was kept beyond the bound")
	}
	if s := take("a", n+1); s == nil || s.r.ep != n+1 {
		t.Fatalf("take(a, %d) = %v", n+1, s)
	}
	if s := take("b", 2); s != nil {
		t.Error("take found another training's rollout")
	}
	kept.Lock()
	for _, s := range kept.list {
		s.at = s.at.Add(-keepIdle - time.Minute)
	}
	kept.Unlock()
	keep(mk("b", 0))
	kept.Lock()
	left := len(kept.list)
	kept.Unlock()
	if left != 1 {
		t.Errorf("%d rollouts kept after the others went idle, want 1", left)
	}
}
