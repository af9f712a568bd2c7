package marl

import (
	"math"
	"slices"
	"sync"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// placedCount is how many workers and PS of one job sit on one candidate.
type placedCount struct {
	part, cand int
	w, ps      float64
}

// view is a scheduler's working picture of the cluster during one
// decision: the simulator's free resources per server, refined per socket
// (the simulator checks capacity per server only; we attribute each
// instance to its home socket), the placement of every job's tasks on
// candidates, and the network load per link direction as the simulator
// counts it, with tentative bookings of the decision applied on top.
type view struct {
	cg     *clusterGraph
	n      int // concurrent job slots (Config.Jobs)
	free   []sim.Resources
	sock   [][]sim.Resources
	pcie   [][]float64
	flows  []float64 // per sim.DirectedLink, flows crossing the link that way
	placed map[int][]placedCount
	jobs   map[int]*sim.JobState
	recent [][]int // per partition, jobs with tasks there, most recent first
	ctx    *edgeCtx
	linkB  []sim.DirectedLink
	hit    []bool // per topology link, scratch of bookFlows
}

func newView(cg *clusterGraph, slots int) *view {
	return &view{cg: cg, n: slots}
}

// refresh rebuilds the view from a decision point's state.
func (v *view) refresh(st *sim.State) {
	c := v.cg.cluster
	v.free = append(v.free[:0], st.Free...)
	if v.sock == nil {
		v.sock = make([][]sim.Resources, len(c.Servers))
		v.pcie = make([][]float64, len(c.Servers))
		v.flows = make([]float64, 2*len(c.Topology.Links))
		v.hit = make([]bool, len(c.Topology.Links))
	}
	for s := range c.Servers {
		socks := c.Servers[s].Kind.Sockets
		v.sock[s] = v.sock[s][:0]
		v.pcie[s] = v.pcie[s][:0]
		for _, so := range socks {
			v.sock[s] = append(v.sock[s], sim.Resources{GPU: so.GPUs, CPU: so.Cores})
			v.pcie[s] = append(v.pcie[s], 0)
		}
	}
	for dl, n := range st.LinkFlows {
		v.flows[dl] = float64(n)
	}
	v.placed = map[int][]placedCount{}
	v.jobs = map[int]*sim.JobState{}
	running := append([]*sim.JobState(nil), st.Running...)
	// Most recent first; the simulator's Running order is deterministic
	// but not meaningful.
	slices.SortFunc(running, func(a, b *sim.JobState) int {
		if a.StartS != b.StartS {
			if a.StartS > b.StartS {
				return -1
			}
			return 1
		}
		return b.Index - a.Index
	})
	for _, js := range running {
		v.jobs[js.Index] = js
		for i, sl := range js.Slots {
			in := js.Instances[i]
			k := max(sl.Socket, 0)
			v.sock[sl.Server][k].GPU -= in.Demand.GPU
			v.sock[sl.Server][k].CPU -= in.Demand.CPU
			v.pcie[sl.Server][k] += in.Load.P
			v.count(js.Index, in.Role, sl.Server, k, 1)
		}
	}
	v.recent = make([][]int, len(v.cg.parts))
	for _, js := range running {
		for p := range v.cg.parts {
			if v.has(js.Index, p) {
				v.recent[p] = append(v.recent[p], js.Index)
			}
		}
	}
	for _, js := range st.Pending {
		v.jobs[js.Index] = js
	}
	v.ctx = v.edgeFeatures(nil, nil, true)
}

// bookFlows adds the network load of a job tentatively placed whole on
// slots, routed as the simulator will route it, and returns the partitions
// whose inner-graph edge features changed (nil when the job has no flows
// between servers).
func (v *view) bookFlows(js *sim.JobState, slots []sim.Slot) []int {
	v.linkB = v.cg.cluster.FlowLinks(v.linkB[:0], js, slots)
	if len(v.linkB) == 0 {
		return nil
	}
	clear(v.hit)
	for _, dl := range v.linkB {
		v.flows[dl]++
		v.hit[dl.Link()] = true
	}
	hit := func(l int) bool { return v.hit[l] }
	var changed []int
	for p, pt := range v.cg.parts {
		if slices.ContainsFunc(pt.links, hit) {
			changed = append(changed, p)
		}
	}
	inter := v.cg.inter != nil && slices.ContainsFunc(v.cg.inter.linkIDs, hit)
	// A new value (recorded observations keep theirs) that shares the
	// unchanged graphs' features with the old one: nothing writes them
	// after they are made.
	v.ctx = v.edgeFeatures(v.ctx, changed, inter)
	return changed
}

// edgeFeatures computes (bandwidth, load, tier) of every edge; with a
// previous value, only those of the partitions listed in changed and,
// with inter set, of the inter-scheduler edges over the links just
// booked (v.linkB: the flows changed there alone), the others' being
// taken from prev.
func (v *view) edgeFeatures(prev *edgeCtx, changed []int, inter bool) *edgeCtx {
	ctx := &edgeCtx{inner: make([][]float64, len(v.cg.parts))}
	for p, pt := range v.cg.parts {
		if prev != nil && !slices.Contains(changed, p) {
			ctx.inner[p] = prev.inner[p]
			continue
		}
		ef := make([]float64, len(pt.efBase))
		copy(ef, pt.efBase)
		for _, i := range pt.loaded {
			e := &pt.edges[i]
			var load float64
			switch e.kind {
			case edgePCIe:
				load = v.pcie[e.server][e.socket] / e.gbps
			case edgeNet:
				load = flowFeature(v.flows[e.dl])
			}
			ef[i*edgeFeatures+1] = load
		}
		ctx.inner[p] = ef
	}
	ig := v.cg.inter
	switch {
	case ig == nil:
	case prev != nil && !inter:
		ctx.inter = prev.inter
	case prev != nil:
		// Only the loads of the edges over the links just booked
		// (v.linkB) changed: the others keep prev's bits.
		ef := slices.Clone(prev.inter)
		for _, dl := range v.linkB {
			for _, k := range ig.edgesOf[dl] {
				ef[k*edgeFeatures+1] = v.interLoad(k)
			}
		}
		ctx.inter = ef
	default:
		ef := make([]float64, len(ig.gbps)*edgeFeatures)
		for k := range ig.gbps {
			ef[k*edgeFeatures], ef[k*edgeFeatures+1], ef[k*edgeFeatures+2] = ig.bw[k], v.interLoad(k), ig.tier[k]/tierScale
		}
		ctx.inter = ef
	}
	return ctx
}

// interLoad is the load feature of inter-scheduler edge k: the flows
// over its links, summed in their order.
func (v *view) interLoad(k int) float64 {
	var f float64
	for _, dl := range v.cg.inter.links[k] {
		f += v.flows[dl]
	}
	return flowFeature(f)
}

// bandwidthFeature compresses capacities from 1 Gbit/s (VL2 server links)
// to thousands (aggregated links) onto O(1).
func bandwidthFeature(gbps float64) float64 { return math.Log1p(gbps) / math.Log1p(gbpsScale) }

// flowFeature maps a flow count onto [0, 1): unbounded inputs to the
// edge filters let the ECC stack's activations, and with them the critic,
// run away during training.
func flowFeature(n float64) float64 { return n / (n + flowScale) }

// count adds d instances of job j with role on (server, socket).
func (v *view) count(j int, role string, server, socket int, d float64) {
	ci := v.cg.candIdx[server][socket]
	pc := v.placed[j]
	k := slices.IndexFunc(pc, func(x placedCount) bool { return x.part == ci.part && x.cand == ci.cand })
	if k < 0 {
		pc = append(pc, placedCount{part: ci.part, cand: ci.cand})
		k = len(pc) - 1
	}
	if role == datasets.RolePS {
		pc[k].ps += d
	} else {
		pc[k].w += d
	}
	v.placed[j] = pc
}

func (v *view) has(j, part int) bool {
	for _, x := range v.placed[j] {
		if x.part == part && (x.w > 0 || x.ps > 0) {
			return true
		}
	}
	return false
}

// book applies a tentative placement of instance i of js.
func (v *view) book(js *sim.JobState, i, server, socket int) {
	in := js.Instances[i]
	v.free[server] = v.free[server].Sub(in.Demand)
	v.sock[server][socket].GPU -= in.Demand.GPU
	v.sock[server][socket].CPU -= in.Demand.CPU
	v.count(js.Index, in.Role, server, socket, 1)
	p := v.cg.candIdx[server][socket].part
	if len(v.recent[p]) == 0 || v.recent[p][0] != js.Index {
		v.recent[p] = slices.Insert(slices.DeleteFunc(v.recent[p], func(x int) bool { return x == js.Index }), 0, js.Index)
	}
}

// unbook takes back every tentative placement of a job that could not be
// placed whole.
func (v *view) unbook(js *sim.JobState, slots []sim.Slot) {
	for i, sl := range slots {
		in := js.Instances[i]
		v.free[sl.Server] = v.free[sl.Server].Add(in.Demand)
		v.sock[sl.Server][sl.Socket].GPU += in.Demand.GPU
		v.sock[sl.Server][sl.Socket].CPU += in.Demand.CPU
	}
	delete(v.placed, js.Index)
	for p := range v.recent {
		v.recent[p] = slices.DeleteFunc(v.recent[p], func(x int) bool { return x == js.Index })
	}
}

// fits reports whether a task of demand d may go to candidate k of
// partition p: the server has room and, for a GPU group, the group has the
// task's GPUs (or all of its own when the task needs more).
func (v *view) fits(p, k int, d sim.Resources) bool {
	c := v.cg.parts[p].cands[k]
	if !d.Fits(v.free[c.server]) {
		return false
	}
	if c.socket < 0 {
		return true
	}
	return v.socketFits(c.server, c.socket, d)
}

func (v *view) socketFits(server, socket int, d sim.Resources) bool {
	capGPU := v.cg.cluster.Servers[server].Kind.Sockets[socket].GPUs
	return v.sock[server][socket].GPU >= min(d.GPU, capGPU)-1e-9
}

// slots returns the concurrent jobs of partition p as seen when placing
// job cur (−1 for none): cur first, then the most recent others.
func (v *view) slots(p, cur int) []int {
	out := make([]int, 0, v.n)
	if cur >= 0 {
		out = append(out, cur)
	}
	for _, j := range v.recent[p] {
		if len(out) == v.n {
			break
		}
		if j != cur {
			out = append(out, j)
		}
	}
	return out
}

// observe fills the observation of agent p placing instance inst of job
// cur (cur < 0: no task).
func (v *view) observe(p int, cur *sim.JobState, inst int) *obs {
	return v.observeInto(&obs{x0: takeRows(&x0Pool)}, p, cur, inst)
}

// x0Pool and zcPool hold the candidate rows (obs.x0) and schedulers' z⁰
// (obs.zc) of observations the trainer has learnt (recycle): a decision
// writes every value of the buffer it takes, so which one it gets changes
// no bit. Fresh ones cost a page fault per first touch, the episode's
// largest allocation (27 kB per decision at k = 20).
var x0Pool, zcPool sync.Pool // of *[]float64

// takeRows returns an empty buffer from pool, nil when it has none.
func takeRows(pool *sync.Pool) []float64 {
	if b, ok := pool.Get().(*[]float64); ok {
		return (*b)[:0]
	}
	return nil
}

// recycle gives back the buffers of observations no one reads any more.
func recycle(o *obs) {
	for _, b := range []struct {
		pool *sync.Pool
		s    []float64
	}{{&x0Pool, o.x0}, {&zcPool, o.zc}} {
		if cap(b.s) > 0 {
			b.pool.Put(&b.s)
		}
	}
	o.x0, o.zc = nil, nil
}

// observeInto is observe into o, whose buffers it reuses: for an
// observation read once and dropped (an idle agent's z⁰), which then
// costs no allocation.
func (v *view) observeInto(o *obs, p int, cur *sim.JobState, inst int) *obs {
	pt := v.cg.parts[p]
	f0 := nodeWidth(v.n)
	*o = obs{agent: p, ctx: v.ctx, x0: o.x0, jobs: o.jobs, task: o.task}
	ci := -1
	if cur != nil {
		ci = cur.Index
	}
	slots := v.slots(p, ci)
	o.x0 = zeroed(o.x0, len(pt.cands)*f0)
	for k, c := range pt.cands {
		row := o.x0[k*f0:]
		if c.socket >= 0 {
			f := v.sock[c.server][c.socket]
			row[0], row[1] = f.GPU/gpuScale, f.CPU/cpuScale
			row[2] = v.free[c.server].MemGiB / float64(len(v.sock[c.server])) / memScale
		} else {
			f := v.free[c.server]
			row[0], row[1], row[2] = f.GPU/gpuScale, f.CPU/cpuScale, f.MemGiB/memScale
		}
	}
	o.jobs = zeroed(o.jobs, v.n*jobWidth)
	for n, j := range slots {
		for _, x := range v.placed[j] {
			if x.part == p {
				o.x0[x.cand*f0+3+2*n] = x.w / countScale
				o.x0[x.cand*f0+4+2*n] = x.ps / countScale
			}
		}
		jobRow(o.jobs[n*jobWidth:(n+1)*jobWidth], v.jobs[j])
	}
	if cur != nil {
		// Per server of the partition, by position.
		w, ps := make([]float64, len(pt.servers)), make([]float64, len(pt.servers))
		for _, x := range v.placed[cur.Index] {
			if x.part == p {
				i := pt.srvPos[x.cand]
				w[i] += x.w
				ps[i] += x.ps
			}
		}
		base := 3 + 2*v.n
		for k := range pt.cands {
			i := pt.srvPos[k]
			o.x0[k*f0+base] = w[i] / countScale
			o.x0[k*f0+base+1] = ps[i] / countScale
		}
	}
	o.task = zeroed(o.task, taskWidth)
	if cur != nil {
		if cur.Instances[inst].Role == datasets.RolePS {
			o.task[0] = 1
		}
		jobRow(o.task[1:], cur)
	}
	return o
}

// zeroed returns s with length n, all 0, reusing its storage when it can.
func zeroed(s []float64, n int) []float64 {
	if cap(s) >= n {
		s = s[:n]
		clear(s)
		return s
	}
	return make([]float64, n)
}

// jobRow writes a job's model one-hot and its r row: workers, the demand of
// one worker, PS, the demand of one PS (L = 3: GPU, CPU, memory).
func jobRow(dst []float64, js *sim.JobState) {
	if js == nil {
		return
	}
	if k := slices.Index(sim.MARLModels, js.Profile.Name); k >= 0 && js.Profile.Known {
		dst[k] = 1
	}
	r := dst[numModels:]
	for _, in := range js.Instances {
		off := 0
		if in.Role == datasets.RolePS {
			off = 4
		}
		if r[off] == 0 {
			r[off+1], r[off+2], r[off+3] = in.Demand.GPU/gpuScale, in.Demand.CPU/cpuScale, in.Demand.MemGiB/memScale*4
		}
		r[off] += 1.0 / countScale
	}
}
