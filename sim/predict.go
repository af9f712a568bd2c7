package sim

// PredictServerSlowdown is the interference level of server if an
// instance with the given load joined it now: the sum of the slowdowns S
// of every task on the server (its running instances, the extra loads
// booked earlier in this decision, and the new instance), as the MARL
// paper's LIF scores a server ("the execution slowdown of all tasks on a
// server", §VI-A). The new instance and the extra loads are homed on the
// socket PredictSlowdown assumes; a running instance on another socket
// sees them through the model's other-socket term only where it has one
// (they are not booked there yet), so they count as co-runners of that
// socket's instances only.
func (st *State) PredictServerSlowdown(load JobLoad, server int, extra []JobLoad) float64 {
	s := st.sim
	sock := s.predictSocket(server)
	with := append(append(s.predictBuf[:0], extra...), load)
	s.predictBuf = with
	total := 0.0
	for _, r := range s.srvInst[server] {
		var x []JobLoad
		if int(r.socket) == sock {
			x = with
		}
		total += s.instanceSlowdown(s.jobs[r.job].Instances[r.inst].Load, int(r.job), int(r.inst), server, int(r.socket), x)
	}
	// Each tentative instance (the extras and the new one) beside all the
	// others.
	others := s.predictOthers[:0]
	for k := range with {
		others = append(append(others[:0], with[:k]...), with[k+1:]...)
		total += s.instanceSlowdown(with[k], -1, -1, server, sock, others)
	}
	s.predictOthers = others
	return total
}
