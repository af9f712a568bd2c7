package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// LeastGPULoad puts an instance on the fitting server with the smallest
// share of its GPUs in use (the DAS paper's Load-balance: "the machine with
// the least workload"); servers without GPUs count by CPU.
type LeastGPULoad struct{ stateless }

// Pick implements Placer.
func (LeastGPULoad) Pick(st *sim.State, l *sim.Ledger, j *sim.JobState, i int) int {
	return bestServer(l, j.Instances[i].Demand, func(s int) float64 {
		c := st.Cluster.Capacity(s)
		if c.GPU > 0 {
			return 1 - l.Free[s].GPU/c.GPU
		}
		return 1 - l.Free[s].CPU/c.CPU
	})
}
