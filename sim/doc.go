// Package sim is the trace-driven cluster simulator: cluster and topology
// models (flat, fat-tree, VL2, BCube), the job execution model with
// interference and communication, a deterministic event-driven engine, run
// metrics, and the environment interface through which schedulers, learned or
// not, observe the cluster and act on it. sim knows schedulers only through
// that interface.
//
// # Data in and out
//
// Jobs enter as []datasets.Job (the canonical jobs table); a cluster comes
// from a ClusterSpec (Preset("large"), or {Topology: "fattree", K: 20,
// Servers: "power8"}) or the generators Flat, FatTree, VL2 and BCube. Results
// leave as a *Result: one JobResult per finished job (in job index order),
// the pruned jobs with reasons, Metrics, and a Timing of wall-clock figures
// that is kept apart because it is not deterministic.
//
// # Running
//
// The whole run, for a heuristic:
//
//	c, err := sim.ClusterSpec{Topology: "flat", N: 32, Servers: "pai-v100"}.Build()
//	res, err := sim.Run(ctx, c, jobs, sched, sim.DefaultConfig(), nil) // nil: DefaultInterference
//
// Run is New + a loop of Next/Schedule/Apply. A learned policy drives the
// same engine itself (the environment interface):
//
//	s, err := sim.New(c, jobs, cfg, model)
//	for {
//		st, err := s.Next(ctx) // advance to the next decision point
//		if err == io.EOF { break }   // every job finished
//		// observe st (Pending, Running, Free, Cluster); reward from st.Since
//		actions := policy(st)        // []sim.Placement
//		if err := s.Apply(actions); err != nil { ... }
//	}
//	res := s.Result()
//
// A scheduler that preempts also implements Decider: its Decide returns a
// Decision (starts, preemptions, a wake-up time) that Sim.Do carries out;
// Apply(pl) is Do(Decision{Start: pl}) and DecisionOf asks a scheduler
// for whichever it has. A preempted job goes back to Pending with its
// progress kept and resumes later, paying Config.RestartS seconds of extra
// work (one number, or a table per model: RestartCost); its record counts
// preemptions and resumptions (Result.Preempted) and its run time is the
// sum of its stints. Config.Trigger "every" asks
// for a decision at every arrival and completion (Tiresias).
//
// st.Since holds what happened since the previous decision: jobs finished
// (with JCT and fee), jobs the previous decision left pending (DAS's ζ = 0)
// and each job's share of work done (MARL's epochs done / max epochs).
//
// # Model
//
// A job's tasks are flattened into instances; a Placement gives one Slot
// (server, optional socket) per instance. Capacity (GPU, cores, GiB) is
// checked per server. A running job's speed relative to standalone is
//
//	rate = ideal / (ideal·(1 + S) + comm)
//
// with ideal the model profile's iteration time (ProfileOf), S the largest
// slowdown over the job's instances under the Interference model (co-runners
// on the same and other sockets of the server; an instance's C_J is its CPU
// request, or the profile's when it requests none; P_J the profile's, 0 for
// instances without GPUs) and comm the slowest of the job's flows, paid once
// per iteration: gradient bits over the flow's bottleneck link, links full
// duplex, each direction's capacity shared equally by the flows crossing
// it that way. Jobs with parameter servers exchange G/n_ps each way (push,
// then pull) per worker–PS pair on different servers; others all-reduce
// over a ring of their servers, each sending 2(n−1)/n·G to the next;
// traffic inside a server is free (G is the profile's GradientMB, 10⁶
// bytes, in Gbit).
// Routes are shortest paths with deterministic ECMP (a fixed hash of the
// endpoints picks among equal-cost next hops). A scheduler sees the network
// as the engine does: st.LinkFlows counts the flows on each DirectedLink
// (a link in one direction), Cluster.Route gives the directed links between
// two servers and Cluster.FlowLinks those a prospective placement's flows
// would load. A job needs DurationS
// standalone seconds of work, so its run time is DurationS when alone on
// one server and longer otherwise. Config.Speed "standalone" turns the model
// off (every job runs at its recorded duration, a pure trace replay). Rates
// are piecewise constant: they change only when a job starts or finishes,
// and only the jobs sharing a server or a link with it are recomputed
// (interference only for jobs sharing a server).
//
// # Events and determinism
//
// Completions, arrivals and triggers are ordered by time, then kind
// (completions, arrivals, triggers), then job index. Config.Trigger "event"
// asks for a decision, while jobs are pending, after every instant at which
// a job finished, or a job arrived and some pending job could fit the free
// resources (DAS: the scheduler is triggered "when there are enough free
// resources in the cluster to run the pending jobs"; an arrival into a full
// cluster is not a decision point). "interval" asks every IntervalS seconds
// while jobs are pending (MARL, 1800 s). No wall clock enters the simulation:
// the same inputs give the same results.
//
// Interference is an interface; DefaultInterference is the documented
// default (ExpLinear, per-socket core units). A fitted model with another
// signature plugs in through InterferenceFunc; the fitted one is an
// ExpLinear (fitting.InterferenceModel.SimModel).
//
// # GPU sharing
//
// Under sim.speed model and a SharingModel (an Interference plus a
// GPUSharing term and a pool of measured standalone GPU profiles; or an
// environment carrying the term), instances that request a fraction of a
// GPU share GPUs: the simulator tracks GPU shares per socket, not per GPU,
// so the rule is that the fractional instances homed on one socket are
// packed next-fit, in the order they were placed, onto its GPUs (a new GPU
// when the next one does not fit), as Alibaba's simulator packs them, and
// the instances on one GPU share it. An instance sharing a GPU runs at the
// term's speed f(u_J, U_c) relative to alone: it is slowed by
// 1/f(u_J, U_c) − 1, floored at 0 (u_J its job's standalone GPU
// utilisation, U_c the sum of its GPU co-runners'), times the
// environment's gpu_share_scale, on top of the CPU/PCIe slowdown (the sum
// capped at MaxSlowdown). Every job gets u_J once, at New: the mean of the
// pool's profiles of its model when it names a measured one, else by the
// environment's gpu_profile_rule — a uniform draw from the pool seeded by
// gpu_profile_seed and the job's id (draw, the default), or the pool's
// median. A hypothetical instance (State.PredictSlowdown) is charged the
// CPU/PCIe term only. standalone speed stays a pure replay.
//
// # Bad input
//
// New rejects a job with a negative or non-finite time or resource, or no
// instances (ErrBadJob), and a cluster with a server that cannot reach the
// others (ErrDisconnected). A job that cannot be packed on the empty cluster
// is pruned and listed in Result.Pruned (or an ErrOversized error when
// Config.PruneOversized is false). A zero-duration job still needs a
// placement; it starts and finishes at the same instant, with fee 0. Apply
// rejects a whole decision containing an infeasible placement
// (ErrInfeasible, naming job, server and resources); Run returns that error.
// If jobs are pending, nothing runs, no job is left to arrive and the
// scheduler places nothing, Next returns ErrStalled instead of looping.
package sim
