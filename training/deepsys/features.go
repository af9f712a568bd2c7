package deepsys

import (
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// cluster is the per-decision picture both baselines read: free resources
// per server (booked tentatively as a decision proceeds) and, per server,
// what the running jobs put there.
type cluster struct {
	c        *sim.Cluster
	free     []sim.Resources
	gradMB   []float64 // summed gradient size of the workers running on the server
	flows    []float64 // running jobs on the server that span several servers
	capacity []sim.Resources
}

func newCluster(st *sim.State) *cluster {
	n := len(st.Cluster.Servers)
	cl := &cluster{c: st.Cluster, free: append([]sim.Resources(nil), st.Free...), gradMB: make([]float64, n), flows: make([]float64, n), capacity: make([]sim.Resources, n)}
	for s := range cl.capacity {
		cl.capacity[s] = st.Cluster.Capacity(s)
	}
	for _, js := range st.Running {
		for i, sl := range js.Slots {
			if js.Instances[i].Role != datasets.RolePS {
				cl.gradMB[sl.Server] += js.Profile.GradientMB
			}
		}
		if len(js.Servers) > 1 {
			for _, s := range js.Servers {
				cl.flows[s]++
			}
		}
	}
	return cl
}

func frac(used, capacity float64) float64 {
	if capacity <= 0 {
		return 0
	}
	return used / capacity
}

// serverLoad is the load of a server before the job being placed: GPU and
// CPU shares in use, the running workers' gradient size (GB) and the
// number of running multi-server jobs on it (/4).
func (cl *cluster) serverLoad(s int, dst []float64) {
	cp, f := cl.capacity[s], cl.free[s]
	dst[0] = frac(cp.GPU-f.GPU, cp.GPU)
	dst[1] = frac(cp.CPU-f.CPU, cp.CPU)
	dst[2] = cl.gradMB[s] / 1000
	dst[3] = cl.flows[s] / 4
}

// Features of DeepSys's speed model (Li et al. 2020 as the MARL paper
// describes it: the job's model type, its numbers of PS and workers, the
// placement of each of them and the parameter size of the workers already
// on the servers it uses), as a fixed-width vector:
//
//	model one-hot (8) | workers/4, PS/4 | share of instances placed |
//	distinct servers / instances placed | share of worker–PS pairs on
//	different servers | gradient GB | mean and max over the job's servers
//	of their load (GPU share, CPU share, workers' gradient GB, spread jobs/4)
const speedFeatures = 8 + 2 + 1 + 1 + 1 + 1 + 8

// placementFeatures writes the features of js with instances 0..len(srv)−1
// on servers srv (a partial placement during the search).
func placementFeatures(dst []float64, js *sim.JobState, srv []int, cl *cluster) {
	clear(dst)
	if k := slices.Index(sim.MARLModels, js.Profile.Name); k >= 0 && js.Profile.Known {
		dst[k] = 1
	}
	var w, ps float64
	for _, in := range js.Instances {
		if in.Role == datasets.RolePS {
			ps++
		} else {
			w++
		}
	}
	dst[8], dst[9] = w/4, ps/4
	n := len(srv)
	dst[10] = float64(n) / float64(len(js.Instances))
	if n == 0 {
		return
	}
	var distinct []int
	for _, s := range srv {
		if !slices.Contains(distinct, s) {
			distinct = append(distinct, s)
		}
	}
	dst[11] = float64(len(distinct)) / float64(n)
	var pairs, cross float64
	for i, a := range srv {
		if js.Instances[i].Role == datasets.RolePS {
			continue
		}
		for j, b := range srv {
			if js.Instances[j].Role == datasets.RolePS {
				pairs++
				if a != b {
					cross++
				}
			}
		}
	}
	if pairs > 0 {
		dst[12] = cross / pairs
	} else if len(distinct) > 1 {
		dst[12] = 1 // all-reduce across servers
	}
	dst[13] = js.Profile.GradientMB / 1000
	var l [4]float64
	for _, s := range distinct {
		cl.serverLoad(s, l[:])
		for k, x := range l {
			dst[14+k] += x / float64(len(distinct))
			dst[18+k] = max(dst[18+k], x)
		}
	}
}
