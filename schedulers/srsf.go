package schedulers

// SRSF is shortest-remaining-service-first with preemption, as the Tiresias
// simulator's "shortest-gpu" policy (SymbioticLab/Tiresias,
// simulator/run_sim.py, shortest_first_sim_jobs(gputime=True)): SRTF with
// the remaining time weighted by the job's GPUs (remaining GPU-seconds).
// A job's key is refreshed only while it runs, as the reference's
// remaining_gputime is; a pending job's remaining time does not change, so
// the key is the same. Like SRTF it reads the true duration: an oracle.
func SRSF() *sorted {
	return &sorted{name: "srsf", key: byRemainingService}
}
