package schedulers

import (
	"github.com/schedlab/schedlab/sim"
)

// FIFO keeps submission order.
func FIFO(st *sim.State, _ []*sim.JobState) []*sim.JobState {
	return st.Pending
}
