// Package schedulers implements every scheduling policy behind one
// interface, sim.Scheduler: the heuristics and meta-heuristics of both
// papers, the Tiresias simulator's policies, and the learned policies,
// which load trained checkpoints. It knows nothing of training beyond
// loading a checkpoint. The list of policies, their rules and the files
// that hold them are in docs/packages.md (schedulers).
//
// # What it owns
//
//   - The registry, the one place every scheduler's name lives (Register,
//     Canonical, Lookup, New): a typed Name, the papers' display name, a
//     one-line doc, aliases (fifo-ff, lb, the Tiresias simulator's names),
//     Info.Trigger and Info.Oracle. Learned schedulers register from their
//     family's package through training.Register; a consumer links them
//     in by importing training/families.
//   - The heuristics: an ordering rule (an Order) times a placement rule (a
//     Placer) applied instance by instance (Greedy), one file per rule;
//     MALO and MOSA (meta.go, malo.go, mosa.go); the preemptive Tiresias
//     policies (sim.Decider); Gandiva's time-slicing and Gavel's max-min
//     and finish-time fairness (gandiva.go, gavel.go, their linear
//     programs in gavellp.go), which keep their own rounds by wake-ups.
//
// # What it promises
//
//   - Data enters as a *sim.State at each decision point and leaves as
//     []sim.Placement (or a sim.Decision); a scheduler never modifies the
//     state, booking tentative placements on a sim.Ledger.
//   - A policy that reads the future (true durations: srtf, srsf,
//     malo-oracle, mosa-oracle, gavel-ftf-oracle) is registered with
//     Info.Oracle, so that tables show it apart and claims never take it as a baseline; every
//     other one passes schedulerstest's FutureDependence check (decisions
//     unchanged when unfinished jobs' durations are permuted).
//   - Every registered scheduler passes schedulerstest's conformance
//     test, and the heuristics' decisions are pinned by digests
//     (testdata/golden_heuristics.txt).
//
// # Extending it
//
//  1. An ordering is an Order, a placement rule a Placer (Pick a server
//     for one instance; Begin/Booked/Unbooked to follow the decision's
//     bookings, or embed stateless); each in a file of its own, its paper
//     named in its doc comment. A policy of another shape implements
//     sim.Scheduler (or sim.Decider) itself.
//  2. Register it in registry.go's init: Name, display name, Doc, aliases
//     and a Constructor (greedy(name, order, placer) for the Greedy
//     shape). Every command, experiment and `schedlab list schedulers`
//     then knows it.
//  3. Test it: the conformance test runs it as registered; add a case to
//     TestGoldenHeuristics and record its digest with -update.
//  4. Parameters, if it has some: one package variable, DeclareParams
//     (params.go) with a struct of tagged keys, its Go default, their
//     documented YAML defaults and its range check; the Constructor reads
//     it from Options.Params (MALOParams.Of(o.Params)). The run
//     configuration's sched.<name> then sets it, with --set, the
//     environment, --origin and `schedlab config defaults` included.
package schedulers
