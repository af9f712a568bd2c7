// Package rl holds the reinforcement-learning algorithms shared by the
// learned scheduler families: rollout buffers, GAE(λ), PPO and MAPPO,
// advantage actor-critic, REINFORCE with a baseline, and tabular and
// linear-function Q-learning with ε-greedy or UCB exploration.
//
// The algorithms know nothing of networks. A learned family owns its model
// (built on training/nn) and exposes it through a small interface:
// Evaluate computes, for a minibatch of stored steps, the log-probability
// of the stored action, the policy's entropy and the state value under the
// current parameters; Backward receives the partial derivatives of the
// algorithm's loss with respect to those outputs and back-propagates them
// into the model's parameters; Step applies the optimiser. The loss
// derivatives of PPO's clipped surrogate, of the value regression and of
// the entropy bonus are closed-form per sample, so this split costs nothing
// and keeps every algorithm testable with tiny tabular models whose exact
// gradients are written by hand (see the tests).
//
// Data enters as Steps collected by the caller's environment loop into a
// Rollout and leaves as parameter updates through the model's interface,
// plus per-update statistics (losses, clip fraction, approximate KL).
//
// Randomness: every routine that samples (minibatch shuffles, exploration)
// takes a *rand.Rand derived from the run seed by the caller; nothing here
// reads a global source, and no floating-point reduction depends on
// goroutine scheduling, so a fixed seed gives bit-identical updates.
package rl
