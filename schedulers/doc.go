// Package schedulers implements every scheduling policy behind one
// interface, sim.Scheduler: the heuristics and meta-heuristics of both papers
// and the learned policies, which load trained checkpoints. It knows
// nothing of training beyond loading a checkpoint.
//
// Data enters as a *sim.State at each decision point (pending jobs in
// submission order, running jobs, free resources per server, the cluster and
// the interference model) and leaves as []sim.Placement. Schedulers never
// modify the state; they book tentative placements on a sim.Ledger.
//
// The registry is the one place where every scheduler's name lives
// (Register, Canonical, Lookup, New): a typed Name, the papers' display
// name, a one-line doc and aliases (fifo-ff, lb). The heuristics register
// here:
//
//	fifo-firstfit, fifo-loadbalance, drf-firstfit, drf-loadbalance  DAS heuristics
//	tetris, load-balancing, lif, tetris-pack                        MARL heuristics
//	malo, mosa                                                      DAS meta-heuristics
//
// Learned schedulers (das, marl-device, ...) register from their family's
// package through training.Register, which wires the family's model loader
// in as the Constructor; New builds them from Options.Model, the directory
// of a trained model. A consumer links the families in by importing
// training/families; without it, only the heuristics are known.
//
// The heuristics are an ordering rule (FIFO, DRF) times a placement rule
// (FirstFit, LeastGPULoad, LeastLoad, Alignment, LeastInterference, Packing)
// applied instance by instance (Greedy); a job whose instances do not all
// fit stays pending and later jobs may start. "tetris" is Tetris as the DAS
// paper describes it (Alignment, which favours the emptiest server);
// "tetris-pack" is the MARL paper's Tetris (Packing, which keeps a job's
// instances on as few servers as it can). MALO and MOSA search job priorities and
// server affinities of the oldest MetaConfig.MaxJobs pending jobs against a
// surrogate of mean JCT and mean fee, keep a Pareto archive and apply its
// knee; parameters from the DAS paper's Appendix D (MetaConfig documents the
// rest). Every registered scheduler passes the shared conformance test of
// package schedulerstest.
package schedulers
