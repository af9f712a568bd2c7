// Package schedulers implements every scheduling policy behind one
// interface: the heuristics and meta-heuristics of both papers and the learned
// policies, which load trained checkpoints. It knows nothing of training
// beyond loading a checkpoint.
package schedulers
