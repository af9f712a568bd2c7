package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// FirstFit puts an instance on the lowest-index server it fits.
type FirstFit struct{ stateless }

// Pick implements Placer.
func (FirstFit) Pick(_ *sim.State, l *sim.Ledger, j *sim.JobState, i int) int {
	d := j.Instances[i].Demand
	for s := range l.Free {
		if l.Fits(s, d) {
			return s
		}
	}
	return -1
}
