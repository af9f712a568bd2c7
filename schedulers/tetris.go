package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// Alignment is Tetris's placement rule, registered as "tetris": the
// fitting server maximising the dot product of the instance's demand and
// the server's free resources, both normalised by the server's capacity.
// Tetris is R. Grandl, G. Ananthanarayanan, S. Kandula, S. Rao and
// A. Akella, "Multi-resource packing for cluster schedulers", SIGCOMM 2014;
// this rule follows the DAS paper's description of it as a baseline ("the
// dot product of normalized required resources of jobs and available
// resources of machines"), which favours the emptiest server. The MARL
// paper's Tetris, which keeps a job's instances together, is Packing.
type Alignment struct{ stateless }

// Pick implements Placer.
func (Alignment) Pick(st *sim.State, l *sim.Ledger, j *sim.JobState, i int) int {
	d := j.Instances[i].Demand
	return bestServer(l, d, func(s int) float64 {
		c := st.Cluster.Capacity(s)
		f := l.Free[s]
		var dot float64
		for _, p := range [...][3]float64{{c.GPU, d.GPU, f.GPU}, {c.CPU, d.CPU, f.CPU}, {c.MemGiB, d.MemGiB, f.MemGiB}} {
			if p[0] > 0 {
				dot += (p[1] / p[0]) * (p[2] / p[0])
			}
		}
		return -dot
	})
}
