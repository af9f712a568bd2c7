package daspaper

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/sim"
)

// Feature widths of the observation rows.
const (
	JobFeatures     = 5 // instances, GPU, CPU, memory per instance, wait time
	MachineFeatures = 5 // free GPU, CPU, memory, bandwidth, utilisation
)

// Obs is the DAS paper's observation of one decision point, already
// normalised: what DAS's agents see, and the features of the RL baselines
// (training/dl2, training/rifling), as the paper's comparison has it. Rows
// of Jobs are the observed pending jobs in submission order (row i gets
// position embedding i); rows past Count are padding, masked out.
type Obs struct {
	Jobs     []float64 // N×JobFeatures
	Mask     []bool    // N: true for a real job
	Count    int       // real rows, a prefix
	Machines []float64 // M×MachineFeatures
	M        int
}

// Observe builds the observation of st for a policy with n job rows. When
// more than n jobs are pending, training (rng not nil) samples n of them
// uniformly, as the paper does; evaluation takes the n that have waited
// longest, so that the deterministic policy cannot starve a job. It
// returns the observation and the pending jobs behind its rows.
func Observe(st *sim.State, n int, rng *rand.Rand) (*Obs, []*sim.JobState) {
	pend := st.Pending
	chosen := pend
	if len(pend) > n {
		if rng != nil {
			idx := rng.Perm(len(pend))[:n]
			slices.Sort(idx) // keep submission order for the position embedding
			chosen = make([]*sim.JobState, n)
			for i, k := range idx {
				chosen[i] = pend[k]
			}
		} else {
			chosen = pend[:n]
		}
	}
	c := st.Cluster
	M := len(c.Servers)
	o := &Obs{Jobs: make([]float64, n*JobFeatures), Mask: make([]bool, n), Count: len(chosen),
		Machines: make([]float64, M*MachineFeatures), M: M}
	// Per-instance requests are scaled by one server's capacity, the most
	// any instance can get; counts and waits, heavy-tailed in PAI, by logs.
	cap0 := c.Capacity(0)
	for i, js := range chosen {
		k := float64(len(js.Instances))
		r := o.Jobs[i*JobFeatures : (i+1)*JobFeatures]
		r[0] = math.Log1p(k) / math.Log(65)
		r[1] = js.Total.GPU / k / math.Max(cap0.GPU, 1)
		r[2] = js.Total.CPU / k / math.Max(cap0.CPU, 1)
		r[3] = js.Total.MemGiB / k / math.Max(cap0.MemGiB, 1)
		r[4] = math.Log1p(math.Max(st.Now-js.SubmitS, 0)/60) / 10
		o.Mask[i] = true
	}
	// Utilisation counts the instances running on a server per GPU it has
	// (the co-runners that interfere); bandwidth is the NIC's share left
	// to a new flow when the jobs spanning servers share it equally.
	inst := make([]float64, M)
	flows := make([]float64, M)
	for _, js := range st.Running {
		for _, s := range js.Slots {
			inst[s.Server]++
		}
		if len(js.Servers) > 1 {
			for _, s := range js.Servers {
				flows[s]++
			}
		}
	}
	for k := range c.Servers {
		cp := c.Capacity(k)
		f := st.Free[k]
		r := o.Machines[k*MachineFeatures : (k+1)*MachineFeatures]
		r[0] = f.GPU / math.Max(cp.GPU, 1)
		r[1] = f.CPU / math.Max(cp.CPU, 1)
		r[2] = f.MemGiB / math.Max(cp.MemGiB, 1)
		r[3] = c.Servers[k].Kind.NICGbps / 100 / (1 + flows[k])
		r[4] = inst[k] / math.Max(cp.GPU, 1)
	}
	return o, chosen
}
