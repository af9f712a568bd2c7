package schedulers

// SRTF is shortest-remaining-time-first with preemption, as the Tiresias
// simulator's "shortest" policy (SymbioticLab/Tiresias,
// simulator/run_sim.py, shortest_first_sim_jobs): at every arrival and
// completion the runnable jobs are ordered by remaining standalone time
// (duration − executed time), ties kept in the previous order, and admitted
// in that order; a running job that no longer fits is preempted. It reads
// each job's true duration: an oracle, not a policy a real cluster can run.
func SRTF() *sorted {
	return &sorted{name: "srtf", key: byRemaining}
}
