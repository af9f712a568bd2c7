package rl

// Updates is the number of updates m has made: with TargetEvery it fixes
// when the target critic is next refreshed, so a resumed training
// restores it (SetUpdates).
func (m *MAPPO[O]) Updates() int { return m.updates }

// SetUpdates restores the update count saved by Updates.
func (m *MAPPO[O]) SetUpdates(n int) { m.updates = n }
