package schedulers

import (
	"context"
	"math"
	"math/bits"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// Greedy is the shape of every heuristic: an ordering rule ranks the pending
// jobs, and a placement rule puts each job's instances, one at a time, on
// servers of a working ledger. A job whose instances do not all fit is
// rolled back and stays pending; later jobs may still start (the DAS
// transition: "a job that does not fit stays pending").
type Greedy struct {
	name   string
	order  Order
	place  Placer
	buf    []*sim.JobState
	failed [][]datasets.Task
	ledger sim.Ledger

	// byShape's scratch
	cursor   []int
	heads    []int
	rejected []int
	sums     ledgerSums
}

func (g *Greedy) failedLike(j *sim.JobState) bool {
	for _, f := range g.failed {
		if slices.Equal(f, j.Job.Tasks) {
			return true
		}
	}
	return false
}

// Order ranks pending jobs: it returns st.Pending in its chosen order,
// either appended to dst or, when the order is submission order, st.Pending
// itself (which callers must then only read).
type Order func(st *sim.State, dst []*sim.JobState) []*sim.JobState

// Placer chooses a server for instance i of job j given the ledger, or
// returns −1 when none fits. Placers may keep per-decision state (reset by
// Begin).
type Placer interface {
	Begin(st *sim.State)
	Pick(st *sim.State, l *sim.Ledger, j *sim.JobState, i int) int
	// Booked tells the placer an instance was booked on server (so it can
	// account for tentative co-runners); Unbooked undoes it.
	Booked(j *sim.JobState, i, server int)
	Unbooked(j *sim.JobState, i, server int)
}

// NewGreedy combines an ordering and a placement rule.
func NewGreedy(name string, order Order, place Placer) *Greedy {
	return &Greedy{name: name, order: order, place: place}
}

// Name implements sim.Scheduler.
func (g *Greedy) Name() string { return g.name }

// Schedule implements sim.Scheduler.
func (g *Greedy) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	if len(st.Pending) == 0 {
		return nil, nil
	}
	jobs := g.order(st, g.buf[:0])
	fifo := len(jobs) == len(st.Pending) && &jobs[0] == &st.Pending[0]
	if cap(jobs) > 0 && !fifo {
		g.buf = jobs
	}
	l := &g.ledger
	l.CopyFrom(st)
	g.place.Begin(st)
	if fifo {
		return g.byShape(ctx, st)
	}
	var out []sim.Placement
	var arena []sim.Slot // this decision's placements' slots
	free, most := sums(l)
	// Within one decision the ledger only shrinks, so a job shaped exactly
	// like one that failed fails too: skip it without scanning servers.
	g.failed = g.failed[:0]
	for n, j := range jobs {
		if n&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// Cheap reject: the job cannot fit in what is left in total.
		if !j.Total.Fits(free) || !j.Instances[0].Demand.Fits(most) {
			continue
		}
		if g.failedLike(j) {
			continue
		}
		if slots, ok := placeJob(st, l, g.place, j, &arena, nil); ok {
			out = append(out, sim.Placement{Job: j.Index, Slots: slots})
			free, most = sums(l)
		} else {
			g.failed = append(g.failed, j.Job.Tasks)
		}
	}
	return out, nil
}

// byShape is Schedule's loop for submission order, visiting only the jobs
// the loop would try. The loop skips a job when it cannot fit the free
// totals (the cheap reject) or is shaped like one that failed; within a
// decision the ledger only shrinks, so once a job of some shape is skipped
// or fails, every later job of that shape is skipped too. byShape walks
// the pending jobs shape by shape (sim's PendingShapes), merged back into
// submission order by a heap, and drops a shape at its first skip or
// failure: the same placer calls in the same order as the loop over
// st.Pending, at a cost per decision of the shapes and the placements
// instead of the queue's length. One caveat keeps it exact: a failed
// placement gives its instances back, and f − d + d can exceed f by an
// ulp, so the totals recomputed after the next placement may grow; then
// the shapes dropped by the cheap reject (whose test could pass again)
// rejoin from their next job.
func (g *Greedy) byShape(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	l := &g.ledger
	groups := st.PendingShapes()
	g.cursor = slices.Grow(g.cursor[:0], len(groups))[:len(groups)]
	clear(g.cursor)
	g.heads = g.heads[:0]
	g.rejected = g.rejected[:0]
	ls := &g.sums
	ls.reset(l)
	free, most := ls.update(l)
	cheap := func(j *sim.JobState) bool {
		return !j.Total.Fits(free) || !j.Instances[0].Demand.Fits(most)
	}
	for k, q := range groups {
		if cheap(q[0]) {
			g.rejected = append(g.rejected, k)
			continue
		}
		g.heads = append(g.heads, k)
	}
	h := shapeHeap{groups: groups, cursor: g.cursor, heads: g.heads}
	h.init()
	var out []sim.Placement
	var arena []sim.Slot // this decision's placements' slots
	for n := 0; len(h.heads) > 0; n++ {
		if n&255 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		k := h.heads[0]
		j := groups[k][h.cursor[k]]
		if cheap(j) {
			g.rejected = append(g.rejected, k)
			h.pop()
			continue
		}
		slots, ok := placeJob(st, l, g.place, j, &arena, ls)
		if !ok {
			h.pop() // failed: every later job of the shape is skipped
			continue
		}
		out = append(out, sim.Placement{Job: j.Index, Slots: slots})
		h.cursor[k]++
		if h.cursor[k] < len(groups[k]) {
			h.fix()
		} else {
			h.pop()
		}
		nf, nm := ls.update(l)
		grew := nf.GPU > free.GPU || nf.CPU > free.CPU || nf.MemGiB > free.MemGiB ||
			nm.GPU > most.GPU || nm.CPU > most.CPU || nm.MemGiB > most.MemGiB
		free, most = nf, nm
		if grew {
			// Rejoin each shape dropped by the cheap reject at its first job
			// after j, where the loop over st.Pending would meet it next.
			for _, r := range g.rejected {
				q := groups[r]
				c, _ := slices.BinarySearchFunc(q, j, cmpPending)
				for c < len(q) && cmpPending(q[c], j) <= 0 {
					c++
				}
				if c < len(q) {
					h.cursor[r] = c
					h.push(r)
				}
			}
			g.rejected = g.rejected[:0]
		}
	}
	g.heads = h.heads
	return out, nil
}

// cmpPending is sim's pending order: submit time, then index.
func cmpPending(a, b *sim.JobState) int {
	switch {
	case a.SubmitS < b.SubmitS:
		return -1
	case a.SubmitS > b.SubmitS:
		return 1
	}
	return a.Index - b.Index
}

// shapeHeap is a binary min-heap of shape groups keyed by the pending
// order of each group's next job.
type shapeHeap struct {
	groups [][]*sim.JobState
	cursor []int
	heads  []int
}

func (h *shapeHeap) less(a, b int) bool {
	x, y := h.heads[a], h.heads[b]
	return cmpPending(h.groups[x][h.cursor[x]], h.groups[y][h.cursor[y]]) < 0
}

func (h *shapeHeap) init() {
	for i := len(h.heads)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *shapeHeap) down(i int) {
	n := len(h.heads)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.heads[i], h.heads[m] = h.heads[m], h.heads[i]
		i = m
	}
}

func (h *shapeHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.heads[i], h.heads[p] = h.heads[p], h.heads[i]
		i = p
	}
}

// fix restores the heap after the top's key grew.
func (h *shapeHeap) fix() { h.down(0) }

func (h *shapeHeap) pop() {
	last := len(h.heads) - 1
	h.heads[0] = h.heads[last]
	h.heads = h.heads[:last]
	h.down(0)
}

func (h *shapeHeap) push(k int) {
	h.heads = append(h.heads, k)
	h.up(len(h.heads) - 1)
}

// sums returns the total free resources and, per dimension, the most free
// on any one server (a job whose first instance exceeds it cannot fit).
func sums(l *sim.Ledger) (total, most sim.Resources) {
	for _, f := range l.Free {
		total = total.Add(f)
		most.GPU = max(most.GPU, f.GPU)
		most.CPU = max(most.CPU, f.CPU)
		most.MemGiB = max(most.MemGiB, f.MemGiB)
	}
	return total, most
}

// ledgerSums gives sums' answer for a ledger that changes on a few
// servers at a time, without a pass over all servers per change. On a
// k = 20 fat-tree (2,000 servers) sums after every placement was a tenth
// of a Load-Balancing decision. Two ways, both sums' to the bit:
//
//   - On the grid (every free amount a multiple of 2⁻¹⁰ below 2³⁰ in
//     size, from 2⁸ to 2¹³ servers; integral and dyadic requests, as
//     clusters and traces mostly have): every partial sum is then exact,
//     so sums' sequential total equals the exact sum, kept here by
//     adding each changed server's difference (exact too); the maxima,
//     exact in any order, are kept in a tree over the servers.
//   - Off it: the running total and maximum at every server in sums'
//     order, recomputed from the lowest server changed; the running
//     values before it are those sums reaches there.
//
// A changed amount off the grid turns the first way into the second. On
// fewer servers the second way's pass costs less than the first's
// checks and tree.
type ledgerSums struct {
	grid bool
	// The first way: the total, the per-dimension maxima over the servers
	// (a binary tree, leaves padded to a power of two with −Inf), and
	// the servers changed since the last update with their amounts then.
	sum     sim.Resources
	maxTree []sim.Resources
	leaves  int
	changed []int
	old     []sim.Resources
	seen    []uint32 // per server, epoch when it joined changed
	epoch   uint32
	// The second way.
	total, most []sim.Resources // over servers 0..i
	lo          int             // lowest server changed since the last update
}

// onGrid reports whether x is a multiple of 2⁻¹⁰ of magnitude below 2³⁰
// (false for NaN and ±Inf).
func onGrid(x float64) bool {
	y := x * 1024 // exact: a power of two
	return math.Abs(x) < 1<<30 && y == math.Trunc(y)
}

func onGridRes(r sim.Resources) bool { return onGrid(r.GPU) && onGrid(r.CPU) && onGrid(r.MemGiB) }

// reset starts following l.
func (p *ledgerSums) reset(l *sim.Ledger) {
	n := len(l.Free)
	p.grid = n >= 1<<8 && n < 1<<13
	for _, f := range l.Free {
		if !p.grid {
			break
		}
		p.grid = onGridRes(f)
	}
	p.lo = 0
	if !p.grid {
		p.total = slices.Grow(p.total[:0], n)[:n]
		p.most = slices.Grow(p.most[:0], n)[:n]
		return
	}
	p.sum, _ = sums(l)
	p.leaves = 1
	for p.leaves < n {
		p.leaves *= 2
	}
	p.maxTree = slices.Grow(p.maxTree[:0], 2*p.leaves)[:2*p.leaves]
	none := sim.Resources{GPU: math.Inf(-1), CPU: math.Inf(-1), MemGiB: math.Inf(-1)}
	for k := 0; k < p.leaves; k++ {
		if k < n {
			p.maxTree[p.leaves+k] = l.Free[k]
		} else {
			p.maxTree[p.leaves+k] = none
		}
	}
	for v := p.leaves - 1; v >= 1; v-- {
		p.pull(v)
	}
	if len(p.seen) < n {
		p.seen = make([]uint32, n)
	}
	p.changed, p.old = p.changed[:0], p.old[:0]
	p.nextEpoch()
}

func (p *ledgerSums) nextEpoch() {
	p.epoch++
	if p.epoch == 0 {
		clear(p.seen)
		p.epoch = 1
	}
}

func (p *ledgerSums) pull(v int) {
	a, b := p.maxTree[2*v], p.maxTree[2*v+1]
	p.maxTree[v] = sim.Resources{GPU: max(a.GPU, b.GPU), CPU: max(a.CPU, b.CPU), MemGiB: max(a.MemGiB, b.MemGiB)}
}

// touch records that server s's free resources are about to change
// (l.Free[s] is still the amount before).
func (p *ledgerSums) touch(l *sim.Ledger, s int) {
	if !p.grid {
		p.lo = min(p.lo, s)
		return
	}
	if p.seen[s] != p.epoch {
		p.seen[s] = p.epoch
		p.changed = append(p.changed, s)
		p.old = append(p.old, l.Free[s])
	}
}

// update returns sums(l).
func (p *ledgerSums) update(l *sim.Ledger) (total, most sim.Resources) {
	if p.grid {
		for _, s := range p.changed {
			if !onGridRes(l.Free[s]) {
				// Off the grid: the second way, from the start.
				p.grid = false
				n := len(l.Free)
				p.total = slices.Grow(p.total[:0], n)[:n]
				p.most = slices.Grow(p.most[:0], n)[:n]
				p.lo = 0
				break
			}
		}
	}
	if p.grid {
		for k, s := range p.changed {
			f := l.Free[s]
			p.sum = p.sum.Sub(p.old[k]).Add(f)
			v := p.leaves + s
			p.maxTree[v] = f
			for v /= 2; v >= 1; v /= 2 {
				p.pull(v)
			}
		}
		p.changed, p.old = p.changed[:0], p.old[:0]
		p.nextEpoch()
		// sums starts its maxima at 0.
		m := p.maxTree[1]
		return p.sum, sim.Resources{GPU: max(0, m.GPU), CPU: max(0, m.CPU), MemGiB: max(0, m.MemGiB)}
	}
	n := len(l.Free)
	if p.lo > 0 {
		total, most = p.total[p.lo-1], p.most[p.lo-1]
	}
	for i := p.lo; i < n; i++ {
		f := l.Free[i]
		total = total.Add(f)
		most.GPU = max(most.GPU, f.GPU)
		most.CPU = max(most.CPU, f.CPU)
		most.MemGiB = max(most.MemGiB, f.MemGiB)
		p.total[i], p.most[i] = total, most
	}
	p.lo = n
	return total, most
}

// placeJob books every instance of j with p, or none. The slots are
// appended to *arena (nil: a slice of their own), a decision's shared
// store: a failed attempt leaves it as it was, for the next to reuse, so
// a decision allocates for the placements it makes rather than for every
// job it tries. The returned slots are capped, so later appends to the
// arena never reach them. Every server whose ledger entry it changes
// (booked, or given back after a failure: f − d + d need not be f) is
// reported to ls when it is not nil.
func placeJob(st *sim.State, l *sim.Ledger, p Placer, j *sim.JobState, arena *[]sim.Slot, ls *ledgerSums) ([]sim.Slot, bool) {
	var own []sim.Slot
	if arena == nil {
		arena = &own
	}
	start := len(*arena)
	slots := slices.Grow(*arena, len(j.Instances))
	for i := range j.Instances {
		s := p.Pick(st, l, j, i)
		if s < 0 {
			for k, sl := range slots[start:] {
				l.Give(sl.Server, j.Instances[k].Demand)
				p.Unbooked(j, k, sl.Server)
			}
			*arena = slots[:start]
			return nil, false
		}
		if ls != nil {
			ls.touch(l, s)
		}
		l.Take(s, j.Instances[i].Demand)
		p.Booked(j, i, s)
		slots = append(slots, sim.Slot{Server: s, Socket: -1})
	}
	*arena = slots
	return slots[start:len(slots):len(slots)], true
}

// FIFO keeps submission order.
func FIFO(st *sim.State, _ []*sim.JobState) []*sim.JobState {
	return st.Pending
}

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

// stateless is the no-op half of Placer for rules that only read the
// ledger.
type stateless struct{}

func (stateless) Begin(*sim.State)                 {}
func (stateless) Booked(*sim.JobState, int, int)   {}
func (stateless) Unbooked(*sim.JobState, int, int) {}

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

// bestServer returns the fitting server with the lowest score (ties to the
// lowest index), or −1.
func bestServer(l *sim.Ledger, d sim.Resources, score func(s int) float64) int {
	best, bestScore := -1, 0.0
	for s := range l.Free {
		if !l.Fits(s, d) {
			continue
		}
		if sc := score(s); best < 0 || sc < bestScore {
			best, bestScore = s, sc
		}
	}
	return best
}

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

// LeastLoad puts an instance on the fitting server with the least
// normalised load, the mean of its used GPU, CPU and memory shares (the MARL
// paper's Load Balancing baseline).
//
// It finds that server in a tree over the servers (loadTree) rather than
// by scanning them all per instance, which on a k = 20 fat-tree was most
// of a Load-Balancing decision; the tree gives the same server as the
// scan. It follows the ledger through Booked and Unbooked, so the ledger
// given to Pick must change only by the Takes and Gives that those calls
// report (as Greedy's does); a Pick with another ledger than the
// decision's first scans the servers instead.
type LeastLoad struct {
	inv  capInverse
	tree loadTree
	l    *sim.Ledger // the decision's ledger, set by its first Pick
	// Per demand picked in this decision (the first maxFitTrees of
	// them), the answer kept up to date (fitTree): a decision's jobs
	// mostly request a few instance shapes, and a search per pick
	// visited some 230 nodes of a k = 20 fat-tree's tree.
	fit  []*fitTree
	nfit int
}

// maxFitTrees bounds the fit trees of a decision: each booking updates
// every one of them.
const maxFitTrees = 4

// Begin implements Placer.
func (p *LeastLoad) Begin(st *sim.State) {
	p.inv.update(st.Cluster)
	p.tree.build(st.Free, &p.inv)
	p.l = nil
	p.nfit = 0
}

// Booked implements Placer.
func (p *LeastLoad) Booked(_ *sim.JobState, _, s int) {
	if p.l != nil {
		p.changed(s)
	}
}

// Unbooked implements Placer.
func (p *LeastLoad) Unbooked(_ *sim.JobState, _, s int) {
	if p.l != nil {
		p.changed(s)
	}
}

// changed follows a change of server s's free resources in the
// decision's ledger.
func (p *LeastLoad) changed(s int) {
	p.tree.set(s, p.l.Free[s], &p.inv)
	for _, f := range p.fit[:p.nfit] {
		f.set(s, p.l, &p.tree)
	}
}

// Pick implements Placer.
func (p *LeastLoad) Pick(_ *sim.State, l *sim.Ledger, j *sim.JobState, i int) int {
	if p.l == nil && len(l.Free) == p.tree.servers {
		p.l = l
	}
	d := j.Instances[i].Demand
	if l != p.l {
		return bestServer(l, d, func(s int) float64 { return p.inv.load(s, l.Free[s]) })
	}
	for _, f := range p.fit[:p.nfit] {
		if f.d == d {
			return f.best()
		}
	}
	if p.nfit < maxFitTrees {
		if p.nfit == len(p.fit) {
			p.fit = append(p.fit, &fitTree{})
		}
		f := p.fit[p.nfit]
		p.nfit++
		f.build(d, l, &p.tree)
		return f.best()
	}
	return p.tree.best(d, l)
}

// fitTree is loadTree's answer for one demand d, kept up to date: a tree
// over the servers (the loadTree's shape) holding per subtree the least
// load among the servers d fits, with the lowest index reaching it (+Inf
// where d fits none). Its root is bestServer's answer under LeastLoad's
// score: the fitting server of least load, ties to the lowest index
// (children compared strictly, so equal loads keep the left, lower one).
// Loads are the loadTree's leaves, the score function's own values.
type fitTree struct {
	d    sim.Resources
	n    int
	load []float64
	idx  []int32
}

func (f *fitTree) build(d sim.Resources, l *sim.Ledger, t *loadTree) {
	f.d, f.n = d, t.n
	if len(f.load) != 2*t.n {
		f.load = make([]float64, 2*t.n)
		f.idx = make([]int32, 2*t.n)
	}
	for k := 0; k < t.n; k++ {
		f.leaf(k, l, t)
	}
	for v := t.n - 1; v >= 1; v-- {
		f.pull(v)
	}
}

func (f *fitTree) leaf(s int, l *sim.Ledger, t *loadTree) {
	v := f.n + s
	f.idx[v] = int32(s)
	if s < t.servers && l.Fits(s, f.d) {
		f.load[v] = t.minLoad[v]
	} else {
		f.load[v] = math.Inf(1)
	}
}

func (f *fitTree) pull(v int) {
	a, b := 2*v, 2*v+1
	if f.load[b] < f.load[a] {
		f.load[v], f.idx[v] = f.load[b], f.idx[b]
	} else {
		f.load[v], f.idx[v] = f.load[a], f.idx[a]
	}
}

// set follows server s's change (the loadTree already holds its load).
func (f *fitTree) set(s int, l *sim.Ledger, t *loadTree) {
	f.leaf(s, l, t)
	for v := (f.n + s) / 2; v >= 1; v /= 2 {
		f.pull(v)
	}
}

// best returns the fitting server of least load (ties to the lowest
// index), or −1.
func (f *fitTree) best() int {
	if math.IsInf(f.load[1], 1) {
		return -1
	}
	return int(f.idx[1])
}

// loadTree is a binary tree over the servers (leaves padded to a power of
// two) holding, per subtree, the least load with the lowest server index
// reaching it and the most free of each resource on any one server. best
// searches it for bestServer's answer under LeastLoad's score: the fitting
// server of least load, ties to the lowest index. A subtree is skipped
// when no server in it can fit (some resource's most free is short) or
// when none can beat the best found so far (its least load is higher, or
// equal and all its servers come after the best). Loads are the score
// function's own values, so the comparisons are the scan's.
type loadTree struct {
	servers, n int
	minLoad    []float64
	minIdx     []int32
	maxFree    []sim.Resources
	stack      []int32
}

func (t *loadTree) build(free []sim.Resources, inv *capInverse) {
	t.servers = len(free)
	t.n = 1
	for t.n < len(free) {
		t.n *= 2
	}
	if len(t.minLoad) != 2*t.n {
		t.minLoad = make([]float64, 2*t.n)
		t.minIdx = make([]int32, 2*t.n)
		t.maxFree = make([]sim.Resources, 2*t.n)
	}
	none := sim.Resources{GPU: math.Inf(-1), CPU: math.Inf(-1), MemGiB: math.Inf(-1)}
	for k := 0; k < t.n; k++ {
		v := t.n + k
		t.minIdx[v] = int32(k)
		if k < len(free) {
			t.minLoad[v] = inv.load(k, free[k])
			t.maxFree[v] = free[k]
		} else {
			t.minLoad[v] = math.Inf(1)
			t.maxFree[v] = none
		}
	}
	for v := t.n - 1; v >= 1; v-- {
		t.pull(v)
	}
}

func (t *loadTree) pull(v int) {
	a, b := 2*v, 2*v+1
	if t.minLoad[b] < t.minLoad[a] {
		t.minLoad[v], t.minIdx[v] = t.minLoad[b], t.minIdx[b]
	} else {
		t.minLoad[v], t.minIdx[v] = t.minLoad[a], t.minIdx[a]
	}
	fa, fb := t.maxFree[a], t.maxFree[b]
	t.maxFree[v] = sim.Resources{GPU: max(fa.GPU, fb.GPU), CPU: max(fa.CPU, fb.CPU), MemGiB: max(fa.MemGiB, fb.MemGiB)}
}

// set records server s's new free resources.
func (t *loadTree) set(s int, free sim.Resources, inv *capInverse) {
	v := t.n + s
	t.minLoad[v] = inv.load(s, free)
	t.maxFree[v] = free
	for v /= 2; v >= 1; v /= 2 {
		t.pull(v)
	}
}

// best returns the fitting server of least load (ties to the lowest
// index), or −1; l is the ledger the tree follows.
func (t *loadTree) best(d sim.Resources, l *sim.Ledger) int {
	best, bestLoad := -1, 0.0
	stack := append(t.stack[:0], 1)
	for len(stack) > 0 {
		v := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		// The load test first: one comparison, and once a server is found
		// it skips most nodes; the order of two skips does not change
		// which nodes are skipped.
		if best >= 0 {
			if ml := t.minLoad[v]; ml > bestLoad || ml == bestLoad && t.first(v) > best {
				continue
			}
		}
		if !d.Fits(t.maxFree[v]) {
			continue // Fits per server implies Fits of the per-resource maxima
		}
		if v >= t.n {
			if s := v - t.n; l.Fits(s, d) {
				if ld := t.minLoad[v]; best < 0 || ld < bestLoad || ld == bestLoad && s < best {
					best, bestLoad = s, ld
				}
			}
			continue
		}
		// The more promising child is searched first (pushed last).
		a, b := 2*v, 2*v+1
		if t.minLoad[b] < t.minLoad[a] {
			a, b = b, a
		}
		stack = append(stack, int32(b), int32(a))
	}
	t.stack = stack
	return best
}

// first is the lowest server index under node v: v's leftmost leaf, v
// shifted down to the leaves' level (t.n is a power of two).
func (t *loadTree) first(v int) int {
	if v >= t.n {
		return v - t.n
	}
	return v<<(bits.Len(uint(t.n))-bits.Len(uint(v))) - t.n
}

// capInverse caches 1/capacity per server and dimension (0 where the
// server has none of it) for load computations on large clusters.
type capInverse struct {
	c   *sim.Cluster
	inv [][3]float64
	n   []float64 // dimensions present
}

func (ci *capInverse) update(c *sim.Cluster) {
	if ci.c == c {
		return
	}
	ci.c = c
	ci.inv = make([][3]float64, len(c.Servers))
	ci.n = make([]float64, len(c.Servers))
	for s := range c.Servers {
		cp := c.Capacity(s)
		for d, v := range [3]float64{cp.GPU, cp.CPU, cp.MemGiB} {
			if v > 0 {
				ci.inv[s][d] = 1 / v
				ci.n[s]++
			}
		}
	}
}

// load is the mean used share over the dimensions server s has.
func (ci *capInverse) load(s int, f sim.Resources) float64 {
	if ci.n[s] == 0 {
		return 0
	}
	v := ci.inv[s]
	return 1 - (f.GPU*v[0]+f.CPU*v[1]+f.MemGiB*v[2])/ci.n[s]
}

// Alignment is Tetris's rule (Grandl et al. 2014): the fitting server
// maximising the dot product of the instance's demand and the server's free
// resources, both normalised by the server's capacity.
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

// LeastInterference puts an instance on the fitting server where the
// simulator's interference model predicts the smallest slowdown, counting
// the instances booked earlier in the same decision; ties go to the least
// loaded server, then the lowest index (the MARL paper's LIF baseline).
type LeastInterference struct {
	extra [][]sim.JobLoad
	inv   capInverse
}

// Begin implements Placer.
func (p *LeastInterference) Begin(st *sim.State) {
	p.inv.update(st.Cluster)
	if len(p.extra) != len(st.Free) {
		p.extra = make([][]sim.JobLoad, len(st.Free))
	}
	for i := range p.extra {
		p.extra[i] = p.extra[i][:0]
	}
}

// Booked implements Placer.
func (p *LeastInterference) Booked(j *sim.JobState, i, s int) {
	p.extra[s] = append(p.extra[s], j.Instances[i].Load)
}

// Unbooked implements Placer.
func (p *LeastInterference) Unbooked(j *sim.JobState, i, s int) {
	p.extra[s] = p.extra[s][:len(p.extra[s])-1]
}

// Pick implements Placer.
func (p *LeastInterference) Pick(st *sim.State, l *sim.Ledger, j *sim.JobState, i int) int {
	// bestServer's scan, with the score slowdown + 1e-3·load: slowdown
	// dominates; load (in [0,1]) breaks ties at a scale that cannot
	// reorder distinct slowdowns of more than 1e-3. A predicted slowdown
	// is never negative (nor NaN), so a server whose load term alone
	// reaches the best score cannot beat it (rounding is monotone:
	// fl(S + t) ≥ t for S ≥ 0) and its slowdown, the scan's whole cost
	// on a busy cluster, is not computed: the same server wins.
	in := j.Instances[i]
	best, bestScore := -1, 0.0
	for s := range l.Free {
		if !l.Fits(s, in.Demand) {
			continue
		}
		t := 1e-3 * p.inv.load(s, l.Free[s])
		if best >= 0 && t >= bestScore {
			continue
		}
		if sc := st.PredictSlowdown(in.Load, s, p.extra[s]) + t; best < 0 || sc < bestScore {
			best, bestScore = s, sc
		}
	}
	return best
}
