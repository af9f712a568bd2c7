package schedulers

import (
	"slices"

	"github.com/schedlab/schedlab/sim"
)

// DRF ranks jobs by ascending dominant share: the largest of the job's
// total GPU, CPU and memory as fractions of the cluster's (Ghodsi et al.
// 2011, per job as in the DAS paper's baseline); ties keep submission order.
func DRF(st *sim.State, dst []*sim.JobState) []*sim.JobState {
	tot := st.ClusterTotal()
	share := func(j *sim.JobState) float64 {
		var s float64
		if tot.GPU > 0 {
			s = j.Total.GPU / tot.GPU
		}
		if tot.CPU > 0 {
			s = max(s, j.Total.CPU/tot.CPU)
		}
		if tot.MemGiB > 0 {
			s = max(s, j.Total.MemGiB/tot.MemGiB)
		}
		return s
	}
	start := len(dst)
	dst = append(dst, st.Pending...)
	keys := make([]float64, len(st.Pending))
	for i, j := range st.Pending {
		keys[i] = share(j)
	}
	idx := make([]int, len(st.Pending))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return 0
	})
	for k, i := range idx {
		dst[start+k] = st.Pending[i]
	}
	return dst
}
