package schedulers

// SmallestFirst is smallest-job-first with preemption, jobs sized by their
// GPUs, as the Tiresias simulator's "sjf" policy (SymbioticLab/Tiresias,
// simulator/run_sim.py, smallest_first_sim_jobs): at every arrival and
// completion the runnable jobs are ordered by GPU count, ties in the
// previous order (for a constant key: arrival order), and admitted in that
// order; a running job that no longer fits is preempted. The reference
// calls it "sjf" though it reads no duration; it knows only the request,
// so it is not an oracle.
func SmallestFirst() *sorted {
	return &sorted{name: "smallest-first", key: byGPUs}
}
