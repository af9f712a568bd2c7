package sim

// Network: the per-iteration flows of multi-server jobs, routed over the
// topology, and the per-direction flow counts of links that flows share.

import (
	"slices"

	"github.com/schedlab/schedlab/datasets"
)

// flow is one point-to-point transfer of a job per iteration. Links are
// full duplex: a hop is a directed link id, 2·link + 0 from Link.A to Link.B
// and 2·link + 1 the other way, and flows share a direction's capacity only
// with the flows crossing the link the same way. A duplex flow (a worker–PS
// pair) sends half its volume along links (push) and then half back (pull);
// the other flows (ring all-reduce hops) send all of it along links.
type flow struct {
	links  []int32 // directed hops from source to destination
	volume float64 // Gbit per iteration, both ways together for a duplex flow
	duplex bool
}

// addFlows builds the job's per-iteration transfers. Jobs with parameter
// servers exchange 2·G/n_ps Gbit between each worker and each PS on another
// server (G/n_ps pushed, then G/n_ps pulled back); other multi-server jobs
// all-reduce over a ring of their servers, each hop sending 2(n−1)/n·G one
// way while receiving as much from the previous hop on the other direction
// of the links. Traffic inside a server is free.
func (s *Sim) addFlows(js *JobState) {
	if len(js.Servers) < 2 {
		return
	}
	g := js.Profile.GradientMB * 8 / 1000 // Gbit
	var ps, workers []int
	for i, in := range js.Instances {
		if in.Role == datasets.RolePS {
			ps = append(ps, js.Slots[i].Server)
		} else {
			workers = append(workers, js.Slots[i].Server)
		}
	}
	links := s.cluster.Topology.Links
	add := func(a, b int, vol float64, duplex bool) {
		na, nb := s.cluster.Servers[a].Node, s.cluster.Servers[b].Node
		d := s.dists[nb]
		if d == nil {
			d = s.cluster.Topology.dist(nb)
			s.dists[nb] = d
		}
		path, _ := s.cluster.Topology.route(nil, d, na, nb) // connectivity checked by Validate
		at := na
		for k, l := range path {
			dl := 2 * l
			if links[l].A == at {
				at = links[l].B
			} else {
				dl++
				at = links[l].A
			}
			path[k] = dl
			s.linkCount[dl]++
			if duplex {
				s.linkCount[dl^1]++
			}
			s.linkJobs[l] = append(s.linkJobs[l], int32(js.Index))
			for _, o := range s.linkJobs[l] {
				s.markDirty(&s.jobs[o])
			}
		}
		js.flows = append(js.flows, flow{links: path, volume: vol, duplex: duplex})
	}
	if len(ps) > 0 && len(workers) > 0 {
		vol := 2 * g / float64(len(ps))
		for _, w := range workers {
			for _, p := range ps {
				if w != p {
					add(w, p, vol, true)
				}
			}
		}
		return
	}
	n := len(js.Servers)
	vol := 2 * float64(n-1) / float64(n) * g
	for i, a := range js.Servers {
		add(a, js.Servers[(i+1)%n], vol, false)
	}
}

// removeFlows takes a finishing job's flows off their links and marks the
// jobs still sharing those links for a new rate.
func (s *Sim) removeFlows(js *JobState) {
	for _, f := range js.flows {
		for _, dl := range f.links {
			s.linkCount[dl]--
			if f.duplex {
				s.linkCount[dl^1]--
			}
			l := dl / 2
			lj := s.linkJobs[l]
			for k, o := range lj {
				if int(o) == js.Index {
					lj = slices.Delete(lj, k, k+1)
					break
				}
			}
			s.linkJobs[l] = lj
			for _, o := range lj {
				s.markDirty(&s.jobs[o])
			}
		}
	}
}
