package sim

// Network: the per-iteration flows of multi-server jobs, routed over the
// topology, and the per-direction flow counts of links that flows share.

import (
	"slices"

	"github.com/schedlab/schedlab/datasets"
)

// flow is one point-to-point transfer of a job per iteration. Links are
// full duplex: a hop is a directed link, and flows share a direction's
// capacity only with the flows crossing the link the same way. A duplex
// flow (a worker–PS pair) sends half its volume along links (push) and then
// half back (pull); the other flows (ring all-reduce hops) send all of it
// along links.
type flow struct {
	links  []DirectedLink // hops from source to destination
	volume float64        // Gbit per iteration, both ways together for a duplex flow
	duplex bool
	// The flow's servers, and how many of the job's flows are this one:
	// a job's flows between the same two servers take the same route with
	// the same volume, so they are kept once, counted n times on the links.
	from, to int32
	n        int32
	// id is the flow's entry in Sim.hot, its bottlenecks and time; a
	// job's flows have consecutive entries, in order (newFlowBlock).
	id int32
}

// flowHot is what relink reads and writes of a flow, kept apart from the
// flow in one dense table (Sim.hot): relink visits every flow of a link
// whose count changed, and the flows' own records, 80 bytes each among
// their jobs' other data, made those visits mostly cache misses.
//
// fwd and back are the least capacity per flow on its links, the way it
// sends and (duplex) the way it pulls back; t is the flow's time per
// iteration, which comm reads for every flow of a job whose bottlenecks
// changed: kept here, a job's block of entries is all comm reads of its
// flows that did not change. stale: fwd and back are to recompute from
// the links; tStale: t is to recompute from fwd and back.
type flowHot struct {
	fwd, back, t  float64
	stale, tStale bool
	duplex        bool
}

// time is a flow's time per iteration given its bottlenecks.
func (f *flow) time(h *flowHot) float64 {
	if f.duplex {
		return f.volume/2/h.fwd + f.volume/2/h.back
	}
	return f.volume / h.fwd
}

// linkRef is one flow of a job crossing a link, in direction dl, as
// linkJobs lists them. It names the flow's bottlenecks (Sim.hot) so that
// relink, which visits every flow of a link whose count changed, reads
// them without a visit to the job.
type linkRef struct {
	id  int32 // the flow's entry in Sim.hot
	job int32
	dl  DirectedLink
}

// jobFlows calls add for each per-iteration transfer of a job whose
// instances run on slots; servers are the distinct servers of slots in order
// of first use. Jobs with parameter servers exchange 2·G/n_ps Gbit between
// each worker and each PS on another server (G/n_ps pushed, then G/n_ps
// pulled back: duplex); other multi-server jobs all-reduce over a ring of
// their servers, each hop sending 2(n−1)/n·G one way while receiving as
// much from the previous hop on the other direction of the links. Traffic
// inside a server is free.
//
// buf is scratch for the instances' servers by role, returned (grown) for
// the next call: jobs of hundreds of instances grew two lists afresh at
// every start.
func jobFlows(js *JobState, slots []Slot, servers []int, buf []int, add func(from, to int, vol float64, duplex bool)) []int {
	if len(servers) < 2 {
		return buf
	}
	g := js.Profile.GradientMB * 8 / 1000 // Gbit
	buf = buf[:0]
	for i, in := range js.Instances {
		if in.Role == datasets.RolePS {
			buf = append(buf, slots[i].Server)
		}
	}
	nps := len(buf)
	if nps == 0 {
		return ring(servers, g, buf, add) // no worker–PS pairs: the workers' servers are not read
	}
	for i, in := range js.Instances {
		if in.Role != datasets.RolePS {
			buf = append(buf, slots[i].Server)
		}
	}
	ps, workers := buf[:nps], buf[nps:]
	if len(workers) > 0 {
		vol := 2 * g / float64(len(ps))
		for _, w := range workers {
			for _, p := range ps {
				if w != p {
					add(w, p, vol, true)
				}
			}
		}
		return buf
	}
	return ring(servers, g, buf, add)
}

// ring is jobFlows' all-reduce over a ring of servers, for a gradient of
// g Gbit; it returns buf.
func ring(servers []int, g float64, buf []int, add func(from, to int, vol float64, duplex bool)) []int {
	n := len(servers)
	vol := 2 * float64(n-1) / float64(n) * g
	for i, a := range servers {
		add(a, servers[(i+1)%n], vol, false)
	}
	return buf
}

// addFlows routes a starting job's flows, counts them on their links and
// queues those links for relink (queueRelink), which brings the flows
// sharing them (either way) up to date and marks their jobs for a new
// rate.
func (s *Sim) addFlows(js *JobState) {
	if len(js.Servers) < 2 {
		js.flows = nil // no flows: what reuse gives for none, and no block of hot entries
		return
	}
	flows := s.flowBuf[:0]
	cf := s.env.commFactor()
	s.roleBuf = jobFlows(js, js.Slots, js.Servers, s.roleBuf, func(a, b int, vol float64, duplex bool) {
		vol *= cf
		var path []DirectedLink
		if k := slices.IndexFunc(flows, func(f flow) bool {
			return int(f.from) == a && int(f.to) == b && f.duplex == duplex && f.volume == vol
		}); k >= 0 {
			flows[k].n++
			path = flows[k].links
		} else {
			path = s.route(a, b)
			flows = append(flows, flow{links: path, volume: vol, duplex: duplex, from: int32(a), to: int32(b), n: 1})
		}
		for _, dl := range path {
			s.linkCount[dl]++
			if duplex {
				s.linkCount[dl.Reverse()]++
			}
			s.queueRelink(dl.Link())
		}
	})
	js.flows = s.flowArena.reuse(js.flows, flows)
	clear(flows) // no stale references to routes from the scratch
	s.flowBuf = flows[:0]
	base := s.newFlowBlock(len(js.flows))
	for k := range js.flows {
		f := &js.flows[k]
		f.id = base + int32(k)
		s.hot[f.id] = flowHot{stale: true, duplex: f.duplex}
		for _, dl := range f.links {
			l := dl.Link()
			s.linkJobs[l] = append(s.linkJobs[l], linkRef{id: f.id, job: int32(js.Index), dl: dl})
		}
	}
}

// maxRoutes bounds Sim.routes: a replay on a small cluster meets every
// pair of servers again and again, a large fat-tree more pairs than are
// worth keeping.
const maxRoutes = 1 << 14

// maxRouteTable bounds the servers of a cluster whose routes are kept in
// a dense table (Sim.routeTab, n² entries) instead of the map: a lookup
// there is an index, not a hash.
const maxRouteTable = 64

// route is the route of a flow from server a to server b (Topology.route
// of their nodes), kept per pair, in Sim.routeTab on a cluster of at most
// maxRouteTable servers, else in Sim.routes while it has room: a route is
// a function of the pair alone, and the flows only read it.
func (s *Sim) route(a, b int) []DirectedLink {
	n := len(s.cluster.Servers)
	if n <= maxRouteTable {
		if s.routeTab == nil {
			s.routeTab = make([][]DirectedLink, n*n)
		}
		k := a*n + b
		if path := s.routeTab[k]; path != nil {
			return path
		}
		path := s.newRoute(a, b) // nil, looked up again each time, only for a route of no link
		s.routeTab[k] = path
		return path
	}
	key := uint64(a)<<32 | uint64(uint32(b))
	if path, ok := s.routes[key]; ok {
		return path
	}
	path := s.newRoute(a, b)
	if len(s.routes) < maxRoutes {
		if s.routes == nil {
			s.routes = make(map[uint64][]DirectedLink)
		}
		s.routes[key] = path
	}
	return path
}

// newRoute computes the route from server a to server b into the arena.
func (s *Sim) newRoute(a, b int) []DirectedLink {
	na, nb := s.cluster.Servers[a].Node, s.cluster.Servers[b].Node
	s.pathBuf, _ = s.cluster.Topology.route(s.pathBuf[:0], na, nb) // connectivity checked by Validate
	return s.pathArena.clone(s.pathBuf)
}

// newFlowBlock returns the first of n consecutive free entries of
// Sim.hot, for a job's n flows: the block most recently freed by a job
// with as many flows, or a new one. A job's entries side by side make
// comm's visit of them one or two cache lines instead of one each, and
// relink, which meets a job's flows on a link one after the other, finds
// them together too; single free entries reused by any job scattered
// them.
func (s *Sim) newFlowBlock(n int) int32 {
	if n < len(s.freeFlows) {
		if free := s.freeFlows[n]; len(free) > 0 {
			id := free[len(free)-1]
			s.freeFlows[n] = free[:len(free)-1]
			return id
		}
	}
	id := int32(len(s.hot))
	s.hot = slices.Grow(s.hot, n)[:len(s.hot)+n]
	return id
}

// queueRelink queues link l, whose flow counts changed, for relink at the
// next flush, once however often it changes before then. The starts of
// one decision (or the finishes of one instant) load the same upper-tier
// links again and again; relinking each once per batch instead of once
// per job is exact: a flow's bottleneck is a minimum of shares, kept
// exactly by relink's updates in any number of steps (or recomputed in
// full), the jobs marked dirty are the union of the links' jobs either
// way, and nothing reads the shares or the bottlenecks before the flush.
func (s *Sim) queueRelink(l int) {
	if !s.linkQueued[l] {
		s.linkQueued[l] = true
		s.relinkQ = append(s.relinkQ, int32(l))
	}
}

// relinkQueued relinks the queued links.
func (s *Sim) relinkQueued() {
	for _, l := range s.relinkQ {
		s.linkQueued[l] = false
		s.relink(int(l))
	}
	s.relinkQ = s.relinkQ[:0]
}

// relink recomputes both directions' capacity per flow of link l after
// its counts changed, brings the bottlenecks of the flows crossing it up
// to date and marks their jobs for a new rate.
//
// A flow's bottleneck (fwd, and back for a duplex flow) is the least share
// of the links it crosses (the directions it crosses them in). When one
// share falls from o to n, the least becomes min(least, n); when it rises,
// the least is unchanged unless it was o, and then the flow is recomputed
// in full. Minima of floats are exact, so the bottleneck is the one a
// full recomputation gives. Only a job with a flow whose bottleneck
// changed is marked dirty: a job whose rate cannot change needs no flush,
// because every reader of its progress takes done + rate·(now − last)
// itself (decisions.go, state.go). Marking every job of the link, as
// before, only brought such a job's done up to date early, which changed
// nothing but the rounding of done; on the aggregation links of a k = 20
// fat-tree, with a few hundred jobs each, it was most of the flush.
//
// Most relinks change no flow at all: a flow changes only if its
// bottleneck is above the new share (a fall) or equal to the old one (a
// rise), and on most links every flow is held lower by another link. So
// linkMost keeps, per direction, a bound on the flows' bottlenecks that
// way: relink leaves the flows alone when the change cannot reach the
// bound, and sets it to their largest when it visits them; comm raises
// it for a flow it recomputes, and relink's own updates only lower
// bottlenecks. In the k = 20 fat-tree benchmark (BenchmarkFatTreeIntervals,
// 100 intervals) 70 % of the 772,349 relinks are skipped this way, and
// the bound lets through only 2.5 % of those that change nothing.
func (s *Sim) relink(l int) {
	c := s.linkGbps[l]
	var old, now [2]float64
	visit := false
	for d := range 2 {
		i := 2*l + d
		old[d] = s.linkShare[i]
		now[d] = c / float64(s.linkCount[i])
		s.linkShare[i] = now[d]
		most := s.linkMost[i]
		visit = visit || now[d] < old[d] && most > now[d] || now[d] > old[d] && most >= old[d]
	}
	if !visit {
		return // no bottleneck can change
	}
	var most [2]float64
	for _, r := range s.linkJobs[l] {
		h := &s.hot[r.id]
		if h.stale {
			continue // marked when it went stale
		}
		d := int(r.dl & 1)
		fwd, ok := bottleneck(h.fwd, old[d], now[d])
		back, okb := h.back, true
		if h.duplex {
			back, okb = bottleneck(h.back, old[d^1], now[d^1])
		}
		if ok && okb {
			most[d] = max(most[d], fwd)
			if h.duplex {
				most[d^1] = max(most[d^1], back)
			}
		}
		switch {
		case !ok || !okb:
			h.stale = true
		case fwd != h.fwd || back != h.back:
			h.fwd, h.back = fwd, back
			h.tStale = true
		default:
			continue
		}
		s.commStale[r.job] = true
		s.markDirtyIndex(r.job)
	}
	s.linkMost[2*l], s.linkMost[2*l+1] = most[0], most[1]
}

// bottleneck updates least, the least of a set of shares, for one member
// going from o to n; false when it must be recomputed (the least rose).
func bottleneck(least, o, n float64) (float64, bool) {
	switch {
	case n < o:
		return min(least, n), true
	case n > o && least == o:
		return least, false
	}
	return least, true
}

// removeFlows takes a finishing job's flows off their links and queues
// the links for relink (as addFlows).
func (s *Sim) removeFlows(js *JobState) {
	if len(js.flows) == 0 {
		return
	}
	s.nextLinkEpoch()
	touched := s.touched[:0]
	for _, f := range js.flows {
		for _, dl := range f.links {
			s.linkCount[dl] -= f.n
			if f.duplex {
				s.linkCount[dl.Reverse()] -= f.n
			}
			if l := dl.Link(); s.linkStamp[l] != s.linkEpoch {
				s.linkStamp[l] = s.linkEpoch
				touched = append(touched, int32(l))
			}
		}
	}
	// addFlows appends a job's refs to a link together, so they are one
	// run of the link's list: found by a scan from both ends at once, and
	// closed up by moving the shorter side, the refs before it up (the
	// list then starts later in its array) or those after it down: a
	// quarter of the list on average instead of a half for the scan from
	// the front and another half for the copy of what follows (lists of
	// a few hundred refs on an aggregation link of a k = 20 fat-tree).
	// The order of the other refs is kept.
	self := int32(js.Index)
	for _, l := range touched {
		s.linkJobs[l] = dropRun(s.linkJobs[l], self)
		s.queueRelink(int(l))
	}
	if n := len(js.flows); n > 0 {
		if n >= len(s.freeFlows) {
			s.freeFlows = slices.Grow(s.freeFlows, n+1-len(s.freeFlows))[:n+1]
		}
		s.freeFlows[n] = append(s.freeFlows[n], js.flows[0].id)
	}
	s.touched = touched
}

// dropRun removes from lj the refs of job, one run of it, keeping the
// order of the others.
func dropRun(lj []linkRef, job int32) []linkRef {
	// Find one end of the run, searching from both ends.
	lo, hi := 0, len(lj)-1
	for lo <= hi && lj[lo].job != job && lj[hi].job != job {
		lo++
		hi--
	}
	if lo > hi {
		return lj // not on this link (never happens: touched lists it)
	}
	var i, k int // the run is lj[i:k]
	if lj[lo].job == job {
		i, k = lo, lo+1
		for k < len(lj) && lj[k].job == job {
			k++
		}
	} else {
		i, k = hi, hi+1
		for i > 0 && lj[i-1].job == job {
			i--
		}
	}
	if i < len(lj)-k {
		copy(lj[k-i:], lj[:i])
		return lj[k-i:]
	}
	n := copy(lj[i:], lj[k:])
	return lj[:i+n]
}

// Route appends to dst the directed links a flow from server from to
// server to crosses, in order, as the simulator routes it (shortest path
// with deterministic ECMP, see Topology); nothing when from == to. Servers
// of a validated cluster are connected.
func (c *Cluster) Route(dst []DirectedLink, from, to int) []DirectedLink {
	nb := c.Servers[to].Node
	dst, _ = c.Topology.route(dst, c.Servers[from].Node, nb)
	return dst
}

// FlowLinks appends to dst the directed links the flows of js would load
// if it ran on slots (one per instance): each link once per flow crossing
// it that way, and a worker–PS pair's links both ways. Counting the result
// per link gives exactly what starting js there adds to State.LinkFlows,
// so a scheduler can book a tentative placement's network load. The
// distance tables it routes with are cached per topology.
func (c *Cluster) FlowLinks(dst []DirectedLink, js *JobState, slots []Slot) []DirectedLink {
	var servers []int
	for _, sl := range slots {
		if !slices.Contains(servers, sl.Server) {
			servers = append(servers, sl.Server)
		}
	}
	jobFlows(js, slots, servers, nil, func(a, b int, _ float64, duplex bool) {
		na, nb := c.Servers[a].Node, c.Servers[b].Node
		n := len(dst)
		dst, _ = c.Topology.route(dst, na, nb)
		if duplex {
			for _, dl := range dst[n:] {
				dst = append(dst, dl.Reverse())
			}
		}
	})
	return dst
}

// nextLinkEpoch starts a new visit of links; on wrap-around the stamps are
// cleared so that an old stamp can never match.
func (s *Sim) nextLinkEpoch() {
	s.linkEpoch++
	if s.linkEpoch == 0 {
		clear(s.linkStamp)
		s.linkEpoch = 1
	}
}
