// Package sim is the trace-driven cluster simulator: cluster and topology
// models (flat, fat-tree, VL2, BCube), the job execution model with
// interference and communication, a deterministic event-driven engine, run
// metrics, and the environment interface through which schedulers, learned
// or not, observe the cluster and act on it. sim knows schedulers only
// through that interface. The model's equations, the event order and the
// GPU-sharing rule are in docs/packages.md (sim).
//
// # What it owns
//
//   - Clusters (ClusterSpec, Preset, Flat, FatTree, VL2, BCube) and their
//     routes (deterministic ECMP, DirectedLink, Cluster.Route, FlowLinks).
//   - The speed model: a job's rate from interference (the Interference
//     interface; DefaultInterference, InterferenceFunc, SharingModel for
//     fractional GPUs) and communication over its bottleneck links;
//     Config.Speed "standalone" turns it off (a pure trace replay).
//   - The engine: Run, or New and a loop of Next / Apply (or Do for a
//     Decider's Decision: starts, preemptions, a wake-up), and Result
//     (JobResult per finished job, the pruned jobs with reasons, Metrics,
//     and Timing, the only wall-clock figures, kept apart).
//
// # What it promises
//
//   - Determinism: events are ordered by time, then kind (completions,
//     arrivals, triggers), then job index; no wall clock enters the
//     simulation; the same inputs give the same results.
//   - Bad input is a value, never a panic: New rejects a job with a
//     negative or non-finite time or resource, or no instances
//     (ErrBadJob), and a disconnected cluster (ErrDisconnected); a job
//     that cannot fit the empty cluster is pruned and listed (or
//     ErrOversized); Apply rejects a whole decision with an infeasible
//     placement (ErrInfeasible, naming job, server and resources); a
//     scheduler that places nothing while nothing can change is
//     ErrStalled.
//
// # Extending it
//
// A new topology is a generator returning a *Cluster and a case of
// ClusterSpec.Build; a new interference model implements Interference (or
// wraps a function in InterferenceFunc); a new kind of decision is a field
// of Decision that Sim.Do carries out, leaving every scheduler that never
// makes it untouched.
package sim
