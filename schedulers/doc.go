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
//	fifo-strict, smallest-first, srtf, srsf, tiresias-las,
//	tiresias-las-1d, tiresias-gittins                               the Tiresias simulator's policies
//	gandiva                                                         Gandiva's time-slicing
//	gavel-las, gavel-ftf                                            Gavel's max-min and finish-time fairness
//
// The Tiresias policies answer to the reference simulator's names too
// (fifo, sjf, shortest, shortest-gpu, dlas-gpu, dlas, dlas-gpu-gittins) and
// match it job for job (TestTiresiasReference). All but fifo-strict
// preempt: they implement sim.Decider. srtf and srsf read true durations:
// they are oracles. Info.Trigger says they act at every arrival and
// completion. gandiva (gandiva.go) and the Gavel policies (gavel.go, with
// their linear programs in gavellp.go) are round-based: they also ask the
// engine to wake them at each round's end (Options.RoundS; 60 and 360 s).
//
//	malo-oracle, mosa-oracle, gavel-ftf-oracle                      the same, reading the future
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
// rest). Their surrogate needs durations, which no real scheduler has: MALO
// and MOSA estimate them from finished jobs (HistoryEstimator: the mean of
// the same user's, else of all); malo-oracle and mosa-oracle read the true
// ones (TrueDurations) and are registered with Info.Oracle, so that tables
// show them apart and claims never take them as a baseline. Every
// registered scheduler passes the shared conformance test of package
// schedulerstest, and every one that is not an oracle its
// FutureDependence check (decisions unchanged when the durations of
// unfinished jobs are permuted).
//
// # Files
//
// One file per rule: greedy.go (the Greedy loop and its per-shape walk,
// shapeheap.go), the orderings fifo.go and drf.go, the placers
// firstfit.go, leastgpuload.go, leastload.go (with its trees, loadtree.go
// and fittree.go), tetris.go (Alignment), lif.go (LeastInterference) and
// packing.go, their shared helpers placer.go, the ledger's running sums
// ledgersums.go, and the meta-heuristics meta.go (the shared surrogate and
// archive), malo.go and mosa.go; the Tiresias policies' shared machinery
// (the reference's runnable list and the two-pass admission walk)
// preemptive.go, and fifohol.go, smallestfirst.go, srtf.go, srsf.go,
// las.go (2D-LAS and TiresiasConfig) and gittins.go.
// archive), malo.go and mosa.go, with their durations in estimate.go.
//
// # Adding a heuristic
//
//  1. An ordering is an Order (a func ranking st.Pending); a placement
//     rule is a Placer (Pick a server for one instance, Begin/Booked/
//     Unbooked to follow the decision's tentative bookings, or embed
//     stateless). Put each in a file of its own, its paper named in its
//     doc comment. A policy that is not an ordering times a placement
//     implements sim.Scheduler itself, as MALO and MOSA do.
//  2. Register it in registry.go's init: a Name, the papers' display
//     name, a one-line Doc and aliases, and a Constructor (greedy(name,
//     order, placer) for the Greedy shape). Every command, experiment and
//     `schedlab list schedulers` then knows it.
//  3. Test it: it runs the conformance test of schedulerstest as it is
//     registered; add a case to TestGoldenHeuristics and record its digest
//     with `go test ./schedulers -run TestGoldenHeuristics -update`
//     (testdata/golden_heuristics.txt), and a test of the rule's own
//     choices on a small cluster.
package schedulers
