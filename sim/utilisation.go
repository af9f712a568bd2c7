package sim

// cpuUtil is the share of the cluster's cores booked by the finished jobs
// over the makespan: Σ cores requested × run time / (cores × makespan), as
// Metrics.GPUUtil is for GPUs. With GPUUtil and the mean queueing delay it
// states a run's operating point (how loaded the environment was).
func (s *Sim) cpuUtil(makespanS float64) float64 {
	if !(makespanS > 0) || !(s.total.CPU > 0) {
		return 0
	}
	var coreS float64
	for i := range s.jobs {
		if js := &s.jobs[i]; js.Status == StatusDone {
			coreS += js.Total.CPU * (js.finishS - js.StartS)
		}
	}
	return coreS / (s.total.CPU * makespanS)
}
