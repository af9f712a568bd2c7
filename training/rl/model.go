package rl

// ActorCritic is a policy (and, optionally, a value function) that the
// policy-gradient algorithms train. Calls come in the order Evaluate,
// Backward, ..., Step: the model keeps what Backward needs from the last
// Evaluate (its autodiff tape), accumulates gradients over Backward calls
// and applies them, with its own optimiser and clipping, in Step.
type ActorCritic[O any] interface {
	// Evaluate fills, for each step under the current parameters,
	// logp[i] = log π(a_i|s_i) of the stored action, entropy[i] = H(π(·|s_i))
	// and, when value is not nil, value[i] = V(s_i).
	Evaluate(steps []*Step[O], logp, entropy, value []float64)
	// Backward back-propagates the loss whose partial derivatives with
	// respect to the last Evaluate's outputs are given (dValue is nil when
	// the model was evaluated without values).
	Backward(dLogp, dEntropy, dValue []float64)
	// Step applies and clears the accumulated gradients.
	Step()
}

// Critic is a separate value function: the centralised critic of MAPPO,
// with a target copy that is refreshed every few updates.
type Critic[O any] interface {
	// Values fills value[i] = V(s_i), from the target copy when target is
	// set (no gradient is kept for it).
	Values(steps []*Step[O], value []float64, target bool)
	// Backward back-propagates dLoss/dV for the last non-target Values.
	Backward(dValue []float64)
	// Step applies and clears the accumulated gradients.
	Step()
	// SyncTarget copies the current parameters into the target copy.
	SyncTarget()
}

// Releaser is implemented by a model (actor or critic) that can drop the
// buffers its last pass kept, such as an autodiff tape sized for a whole
// minibatch. MAPPO.Update calls Release once a model's part of the update
// is done, so that the agents' and the critic's largest graphs are not all
// held at once between updates (DAS: two 240 MiB tapes). Release must not
// change any later result: buffers are rebuilt on the next pass.
type Releaser interface {
	Release()
}

// release calls m's Release when it has one.
func release(m any) {
	if r, ok := m.(Releaser); ok {
		r.Release()
	}
}
