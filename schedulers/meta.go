package schedulers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/sim"
)

// MetaConfig holds the parameters of the meta-heuristics. The DAS paper's
// Appendix D (Table 2) gives MALO "initial temperature T=400, cooling ratio
// P=0.99, number of iterations I=50" and MOSA "number of iterations I=100,
// number of solutions S=50"; everything else here is our choice, documented
// on the field.
type MetaConfig struct {
	// Temperature is the initial annealing temperature, in objective units
	// (minutes of mean JCT + dollars of mean fee).
	Temperature float64 `mapstructure:"temperature" yaml:"temperature" json:"temperature"`
	// Cooling multiplies the temperature after every iteration.
	Cooling float64 `mapstructure:"cooling" yaml:"cooling" json:"cooling"`
	// Iterations of the search per decision.
	Iterations int `mapstructure:"iterations" yaml:"iterations" json:"iterations"`
	// Population: MOSA's S; MALO's number of ants (= antlions), not given by
	// the paper.
	Population int `mapstructure:"population" yaml:"population" json:"population"`
	// MaxJobs caps the pending jobs searched over (the oldest ones); later
	// jobs follow in submission order with first fit. Not in the paper: it
	// bounds the cost of a decision.
	MaxJobs int `mapstructure:"max_jobs" yaml:"max_jobs" json:"max_jobs"`
}

// DefaultMALOConfig is T=400, P=0.99, I=50 (DAS Table 2), 20 ants, 32 jobs.
func DefaultMALOConfig() MetaConfig {
	return MetaConfig{Temperature: 400, Cooling: 0.99, Iterations: 50, Population: 20, MaxJobs: 32}
}

// DefaultMOSAConfig is I=100, S=50 (DAS Table 2); the paper gives MOSA no
// temperature, so it shares MALO's T=400, P=0.99; 32 jobs.
func DefaultMOSAConfig() MetaConfig {
	return MetaConfig{Temperature: 400, Cooling: 0.99, Iterations: 100, Population: 50, MaxJobs: 32}
}

// Validate checks the config; messages name the key.
func (c MetaConfig) Validate() error {
	switch {
	case !(c.Temperature > 0) || math.IsInf(c.Temperature, 0):
		return fmt.Errorf("temperature: must be > 0 and finite, got %v", c.Temperature)
	case !(c.Cooling > 0 && c.Cooling <= 1):
		return fmt.Errorf("cooling: must be in (0,1], got %v", c.Cooling)
	case c.Iterations < 1:
		return fmt.Errorf("iterations: must be >= 1, got %d", c.Iterations)
	case c.Population < 2:
		return fmt.Errorf("population: must be >= 2, got %d", c.Population)
	case c.MaxJobs < 1:
		return fmt.Errorf("max_jobs: must be >= 1, got %d", c.MaxJobs)
	}
	return nil
}

// A solution is a point of [0,1]^(K+M): K priority keys (higher first) for
// the searched jobs and M affinity keys for the servers. It decodes like the
// DAS transition: jobs in priority order, each job's instances greedily on
// the servers in descending affinity with room; a job that does not fit
// stays pending.
type solution struct {
	x    []float64
	f    [2]float64 // mean JCT estimate (minutes), mean fee estimate ($)
	cost float64    // f[0] + f[1], the scalar the annealing compares
	// ord, where a search keeps it, is x's decoding order: the jobs'
	// indices by key (orderDesc), then the servers'. A neighbour that
	// changes a key or two puts them back in place (resort) rather than
	// sorting again.
	ord []int
	// tr, kept with ord, is what x's decode left behind; a neighbour
	// restarts its decode from it at the first job it may place
	// differently (restart).
	tr trace
}

// trace records a decode so that a decode of another order can take over
// from it at job position t, with the same bits as a decode from the start
// would have there: the ledger as the decode left it, every Take and Give
// with the value it overwrote (undone in reverse, they restore the ledger
// exactly, where a Give after a Take may not), and a step before each job
// position (and one after the last).
type trace struct {
	led   sim.Ledger
	log   []booking
	steps []step
}

// step is a decode's state before a job position: the log's length and
// the JCT and fee summed over the jobs before.
type step struct {
	mark     int
	jct, fee float64
}

// booking is one Take (or Give) of a decode: instance inst of the job at
// position pos booked on (or given back by) server, whose free resources
// were old before.
type booking struct {
	server, pos, inst int32
	give              bool
	old               sim.Resources
}

// restart sets tr to src's trace up to job position t: src's ledger with
// the bookings from t on undone, and the log and steps before t.
func (tr *trace) restart(src *trace, t int) {
	tr.led.Free = append(tr.led.Free[:0], src.led.Free...)
	m := src.steps[t].mark
	for n := len(src.log) - 1; n >= m; n-- {
		tr.led.Free[src.log[n].server] = src.log[n].old
	}
	tr.log = append(tr.log[:0], src.log[:m]...)
	tr.steps = append(tr.steps[:0], src.steps[:t+1]...)
}

// problem is one decision's search space and surrogate objectives.
type problem struct {
	st    *sim.State
	jobs  []*sim.JobState // the searched jobs (oldest MaxJobs pending)
	rest  []*sim.JobState
	m     int
	js    []searchJob // what decode reads of each searched job
	waitS float64     // expected wait of a job left pending
	price float64
	ord   []int // the order of a solution that keeps none
	tr    trace // the trace of a solution that keeps none
	at    []int // scratch: a server's place in a server order
	// shrinks: no searched demand is negative (or NaN), so a Take
	// never adds to a server's free resources (fitsNowhere).
	shrinks bool
}

// searchJob is what a decode reads of a searched job, computed once a
// decision.
type searchJob struct {
	need []sim.Resources // its instances' demands
	sd   []float64       // its predicted slowdown on each server, now
	dur  float64         // its estimated standalone duration
	wait float64         // its time pending so far
	rate float64         // price × its GPUs
	// What it adds to the JCT and fee sums left pending.
	pendJCT, pendFee float64
}

const spanPenalty = 0.05 // surrogate run-time cost of each extra server a job spans

func newProblem(st *sim.State, maxJobs int, price float64, d Durations) *problem {
	p := &problem{st: st, m: len(st.Free), price: price, shrinks: true}
	k := min(len(st.Pending), maxJobs)
	p.jobs = st.Pending[:k]
	p.rest = st.Pending[k:]
	p.js = make([]searchJob, k)
	for i, j := range p.jobs {
		q := &p.js[i]
		q.dur = d.Duration(st, j)
		q.sd = make([]float64, p.m)
		for s := range q.sd {
			q.sd[s] = st.PredictSlowdown(j.Instances[0].Load, s, nil)
		}
		q.need = make([]sim.Resources, len(j.Instances))
		for n, in := range j.Instances {
			q.need[n] = in.Demand
			p.shrinks = p.shrinks && covers(in.Demand, sim.Resources{})
		}
		q.wait = st.Now - j.SubmitS
		q.rate = price * j.Total.GPU
	}
	// A job left pending waits, we guess, until the median running job ends.
	var rem []float64
	for _, j := range st.Running {
		rem = append(rem, d.Remaining(st, j))
	}
	if len(rem) > 0 {
		slices.Sort(rem)
		p.waitS = rem[len(rem)/2]
	}
	p.waitS = max(p.waitS, 60)
	for i := range p.js {
		q := &p.js[i]
		q.pendJCT = q.wait + p.waitS + q.dur
		q.pendFee = q.rate * q.dur / 3600
	}
	p.ord = make([]int, k+p.m)
	return p
}

func (p *problem) dim() int { return len(p.jobs) + p.m }

// decode places the searched jobs by the solution's keys and returns the
// placements (when want is true) and the surrogate objectives.
func (p *problem) decode(x []float64, want bool) ([]sim.Placement, [2]float64) {
	p.sort(x, p.ord)
	return p.decodeIn(p.ord, &p.tr, 0, want)
}

// sort sets ord to x's decoding order: the jobs' indices by key, then the
// servers'.
func (p *problem) sort(x []float64, ord []int) {
	k := len(p.jobs)
	orderDesc(ord[:k], x[:k])
	orderDesc(ord[k:], x[k:])
}

// decodeIn is decode in the decoding order ord, recorded in tr, from job
// position t: tr holds the trace of an order that agrees with ord on the
// jobs before t and on every booking they made (restart), or t is 0.
func (p *problem) decodeIn(ord []int, tr *trace, t int, want bool) ([]sim.Placement, [2]float64) {
	k := len(p.jobs)
	servers := ord[k:]
	if t == 0 {
		tr.led.CopyFrom(p.st)
		tr.log = tr.log[:0]
		tr.steps = append(tr.steps[:0], step{})
	}
	tr.steps = slices.Grow(tr.steps[:t+1], k-t)[:k+1]
	l := &tr.led
	var none fitsNowhere
	var out []sim.Placement
	jct, fee := tr.steps[t].jct, tr.steps[t].fee
	for ; t < k; t++ {
		i := ord[t]
		q := &p.js[i]
		var slots []sim.Slot
		if want {
			slots = make([]sim.Slot, 0, len(q.need))
		}
		ok := true
		worst, spans, last := 0.0, 0, -1
		booked := len(tr.log)
		// from is where the scan for an instance starts: an instance
		// asking what the one before it asked skips the servers that one
		// passed over, which have had nothing given back since.
		from := 0
		for n, need := range q.need {
			if n == 0 || need != q.need[n-1] {
				from = 0
				if none.covers(need) {
					ok = false
					break
				}
			}
			placed := -1
			for ; from < len(servers); from++ {
				if s := servers[from]; l.Fits(s, need) {
					placed = s
					break
				}
			}
			if placed < 0 {
				if p.shrinks {
					none.add(need)
				}
				ok = false
				break
			}
			tr.log = append(tr.log, booking{server: int32(placed), pos: int32(t), inst: int32(n), old: l.Free[placed]})
			l.Take(placed, need)
			if placed != last {
				spans++ // counts server changes: an upper bound on servers spanned
				last = placed
			}
			worst = max(worst, q.sd[placed])
			if want {
				slots = append(slots, sim.Slot{Server: placed, Socket: -1})
			}
		}
		if !ok {
			// Roll back the instances booked before the failure.
			for n, end := booked, len(tr.log); n < end; n++ {
				b := tr.log[n]
				tr.log = append(tr.log, booking{server: b.server, pos: b.pos, inst: b.inst, give: true, old: l.Free[b.server]})
				l.Give(int(b.server), q.need[b.inst])
				none.given(l.Free[b.server])
			}
			jct += q.pendJCT
			fee += q.pendFee
		} else {
			run := q.dur * (1 + worst) * (1 + spanPenalty*float64(spans-1))
			jct += q.wait + run
			fee += q.rate * run / 3600
			if want {
				out = append(out, sim.Placement{Job: p.jobs[i].Index, Slots: slots})
			}
		}
		tr.steps[t+1] = step{mark: len(tr.log), jct: jct, fee: fee}
	}
	return out, [2]float64{jct / float64(k) / 60, fee / float64(k)}
}

// fitsNowhere holds demands (at most four, none at least another) that
// fit on no server of a decode's ledger. While no Give adds to a server,
// its free resources only shrink (problem.shrinks), so a demand at least
// as large as one of them fits nowhere either, and a scan would find
// none; a Give drops those that fit on the server given to.
type fitsNowhere struct {
	d [4]sim.Resources
	n int
}

// covers reports whether r is at least one of f's demands.
func (f *fitsNowhere) covers(r sim.Resources) bool {
	for _, d := range f.d[:f.n] {
		if covers(r, d) {
			return true
		}
	}
	return false
}

// add records r, which fit nowhere, dropping the demands at least r.
func (f *fitsNowhere) add(r sim.Resources) {
	w := 0
	for _, d := range f.d[:f.n] {
		if !covers(d, r) {
			f.d[w] = d
			w++
		}
	}
	f.n = w
	if f.n < len(f.d) {
		f.d[f.n] = r
		f.n++
	}
}

// given drops the demands that fit in free, what a server has after a
// Give.
func (f *fitsNowhere) given(free sim.Resources) {
	w := 0
	for _, d := range f.d[:f.n] {
		if !d.Fits(free) {
			f.d[w] = d
			w++
		}
	}
	f.n = w
}

// swapped puts ord, key's order as orderDesc gives it but for the entries
// i and j, whose keys were swapped, back in that order, and returns the
// first place it changed (len(ord) if none). Where i and j can trade
// places, which the neighbours of both places tell (the order is total,
// so an order sorted pairwise is the one), they do; otherwise resort
// puts them back.
func swapped(ord []int, key []float64, i, j int) int {
	if i == j {
		return len(ord)
	}
	pi, pj := slices.Index(ord, i), slices.Index(ord, j)
	ord[pi], ord[pj] = j, i
	before := func(a, b int) bool { return key[a] > key[b] || key[a] == key[b] && a < b }
	inPlace := func(q int) bool {
		return (q == 0 || before(ord[q-1], ord[q])) && (q == len(ord)-1 || before(ord[q], ord[q+1]))
	}
	if inPlace(pi) && inPlace(pj) {
		return min(pi, pj)
	}
	ord[pi], ord[pj] = i, j
	old := slices.Clone(ord)
	resort(ord, key, i, j)
	t := 0
	for t < len(ord) && old[t] == ord[t] {
		t++
	}
	return t
}

// serverMoved returns the first job position of tr, the trace of a decode
// in order old, whose bookings a decode in order cur may change (K if
// none), where cur is old with server s moved from place u of the server
// order to place v. An instance that took server r first fit in old takes
// r in cur too, given the same ledger, unless s moved before r (v ≤ old
// place of r < u) and fits, or r is s and s moved later (some server
// after it in old now comes first); an instance that fit nowhere fits
// nowhere in any order.
func (p *problem) serverMoved(tr *trace, old []int, s, u, v int) int {
	k := len(p.jobs)
	switch {
	case u == v:
		return k
	case v > u:
		for _, b := range tr.log {
			if !b.give && int(b.server) == s {
				return int(b.pos)
			}
		}
		return k
	}
	if p.at == nil {
		p.at = make([]int, p.m)
	}
	for q, r := range old[k:] {
		p.at[r] = q
	}
	// Backwards through the log, free is s's free resources when booking
	// n was made, so the earliest booking that s would have taken is the
	// last one found.
	first, free := k, tr.led.Free[s]
	for n := len(tr.log) - 1; n >= 0; n-- {
		b := tr.log[n]
		if int(b.server) == s {
			free = b.old
			continue
		}
		if q := p.at[b.server]; !b.give && q >= v && q < u &&
			p.js[old[b.pos]].need[b.inst].Fits(free) {
			first = int(b.pos)
		}
	}
	return first
}

// orderDesc sets idx to 0, 1, …, len(key)−1 ordered by key, highest
// first, ties in index order: what slices.SortStableFunc with
// sortorder.Desc gives for keys without NaN (a solution's keys are in
// [0, 1]), by insertion, without a call per comparison; a decode sorts
// at most MaxJobs keys and a cluster's servers.
func orderDesc(idx []int, key []float64) {
	for i := range idx {
		v, j := key[i], i
		for ; j > 0 && key[idx[j-1]] < v; j-- {
			idx[j] = idx[j-1]
		}
		idx[j] = i
	}
}

// resort puts ord, key's order as orderDesc gives it but for the entries
// i and j (equal when one changed), back in that order: it takes them out
// and puts each back before the first entry it precedes (a higher key, or
// the same key and a lower index), which is where a stable sort puts it.
func resort(ord []int, key []float64, i, j int) {
	w := 0
	for _, v := range ord {
		if v != i && v != j {
			ord[w] = v
			w++
		}
	}
	for _, v := range [2]int{i, j} {
		q := 0
		for q < w && (key[ord[q]] > key[v] || key[ord[q]] == key[v] && ord[q] < v) {
			q++
		}
		copy(ord[q+1:w+1], ord[q:w])
		ord[q] = v
		w++
		if i == j {
			break
		}
	}
}

// finish appends the unsearched jobs, first fit in submission order, to the
// chosen placements.
func (p *problem) finish(pl []sim.Placement) []sim.Placement {
	if len(p.rest) == 0 {
		return pl
	}
	l := p.st.Ledger()
	byIndex := make(map[int]*sim.JobState, len(p.jobs))
	for _, j := range p.jobs {
		byIndex[j.Index] = j
	}
	for _, q := range pl {
		j := byIndex[q.Job]
		for i, sl := range q.Slots {
			l.Take(sl.Server, j.Instances[i].Demand)
		}
	}
	for _, j := range p.rest {
		if slots, ok := placeJob(p.st, l, FirstFit{}, j, nil, nil); ok {
			pl = append(pl, sim.Placement{Job: j.Index, Slots: slots})
		}
	}
	return pl
}

// eval evaluates s from its keys.
func (p *problem) eval(s *solution) {
	ord, tr := s.ord, &s.tr
	if ord == nil {
		ord, tr = p.ord, &p.tr
	}
	p.sort(s.x, ord)
	p.score(s, ord, tr, 0)
}

// score sets s's objectives and cost from a decode in order ord, recorded
// in tr, from job position t (decodeIn).
func (p *problem) score(s *solution, ord []int, tr *trace, t int) {
	_, s.f = p.decodeIn(ord, tr, t, false)
	s.cost = s.f[0] + s.f[1]
}

// evalChanged evaluates s, a copy of parent's keys and order with the keys
// i and j changed (equal when one changed; both jobs' or one server's),
// restarting the decode from parent's trace where it may first differ.
func (p *problem) evalChanged(s, parent *solution, i, j int) {
	k := len(p.jobs)
	var t int
	if i < k {
		t = swapped(s.ord[:k], s.x[:k], i, j)
	} else {
		resort(s.ord[k:], s.x[k:], i-k, j-k)
		t = p.serverMoved(&parent.tr, parent.ord, i-k,
			slices.Index(parent.ord[k:], i-k), slices.Index(s.ord[k:], i-k))
	}
	s.tr.restart(&parent.tr, t)
	p.score(s, s.ord, &s.tr, t)
}

// archive keeps the non-dominated solutions found (at most cap).
type archive struct {
	sols []solution
	cap  int
}

func dominates(a, b [2]float64) bool {
	return a[0] <= b[0] && a[1] <= b[1] && (a[0] < b[0] || a[1] < b[1])
}

func (a *archive) add(s solution) {
	for _, o := range a.sols {
		if dominates(o.f, s.f) || o.f == s.f {
			return
		}
	}
	k := 0
	for _, o := range a.sols {
		if !dominates(s.f, o.f) {
			a.sols[k] = o
			k++
		}
	}
	a.sols = a.sols[:k]
	if len(a.sols) < a.cap {
		a.sols = append(a.sols, solution{x: slices.Clone(s.x), f: s.f, cost: s.cost})
	}
}

// best is the archive member with the smallest sum of objectives each
// normalised by the archive's minimum (a knee choice that weighs JCT and fee
// equally in relative terms).
func (a *archive) best() solution {
	lo := [2]float64{math.Inf(1), math.Inf(1)}
	for _, s := range a.sols {
		lo[0] = min(lo[0], s.f[0])
		lo[1] = min(lo[1], s.f[1])
	}
	norm := func(v, l float64) float64 {
		if l > 0 {
			return v / l
		}
		return v
	}
	bi, bv := 0, math.Inf(1)
	for i, s := range a.sols {
		if v := norm(s.f[0], lo[0]) + norm(s.f[1], lo[1]); v < bv {
			bi, bv = i, v
		}
	}
	return a.sols[bi]
}

// seedSolution encodes the FIFO order and a first-fit server preference, so
// the search never does worse (by its surrogate) than FIFO-FirstFit.
func seedSolution(p *problem) solution {
	x := make([]float64, p.dim())
	k := len(p.jobs)
	for i := 0; i < k; i++ {
		x[i] = 1 - float64(i)/float64(k+1)
	}
	for s := 0; s < p.m; s++ {
		x[k+s] = 1 - float64(s)/float64(p.m+1)
	}
	return solution{x: x}
}

// anyFits reports whether some pending job could start now.
func anyFits(st *sim.State) bool {
	var free sim.Resources
	for _, f := range st.Free {
		free = free.Add(f)
	}
	for _, j := range st.Pending {
		if j.Total.Fits(free) {
			for _, in := range j.Instances {
				for _, f := range st.Free {
					if in.Demand.Fits(f) {
						return true
					}
				}
			}
		}
	}
	return false
}

func accept(r *rand.Rand, delta, temp float64) bool {
	return delta <= 0 || r.Float64() < math.Exp(-delta/temp)
}

func clamp01(v float64) float64 { return min(1, max(0, v)) }

// metaSearch is what MALO and MOSA share around their search loops: the
// configuration, the price their surrogate charges, the Durations it reads,
// the scheduler's name and the random stream.
type metaSearch struct {
	cfg   MetaConfig
	price float64
	dur   Durations
	name  string
	rng   *rand.Rand
	// spare holds the traces of the last search's solutions for the next
	// to reuse: storage only, since a decode from the start and restart
	// set all of a trace.
	spare []trace
}

// newMeta returns a MALO or a MOSA (S, a struct of one metaSearch) named
// name, or cfg's validation error prefixed with the name.
func newMeta[S ~struct{ metaSearch }](name string, cfg MetaConfig, price float64, d Durations, rng *rand.Rand) (*S, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("schedulers: %s.%w", name, err)
	}
	return &S{metaSearch{cfg: cfg, price: price, dur: d, name: name, rng: rng}}, nil
}

// Name implements sim.Scheduler.
func (m *metaSearch) Name() string { return m.name }

// IgnoresProgress implements sim.ProgressBlind: the search reads its
// Durations, which never read State.Since.Progress.
func (m *metaSearch) IgnoresProgress() {}

// problem lets the Durations observe st and returns the decision's search
// space, or nil when no pending job can start now.
func (m *metaSearch) problem(st *sim.State) *problem {
	m.dur.Observe(st)
	if len(st.Pending) == 0 || !anyFits(st) {
		return nil
	}
	return newProblem(st, m.cfg.MaxJobs, m.price, m.dur)
}

// population returns Population solutions, the seed first and the rest drawn
// uniformly from rng, each evaluated and offered to ar; with keep, each
// keeps its decoding order and trace (for evalChanged).
func (m *metaSearch) population(p *problem, ar *archive, keep bool) []solution {
	pop := make([]solution, m.cfg.Population)
	pop[0] = seedSolution(p)
	for i := 1; i < len(pop); i++ {
		pop[i] = solution{x: make([]float64, p.dim())}
		for d := range pop[i].x {
			pop[i].x[d] = m.rng.Float64()
		}
	}
	for i := range pop {
		if keep {
			pop[i].ord, pop[i].tr = make([]int, p.dim()), m.trace(p)
		}
		p.eval(&pop[i])
		ar.add(pop[i])
	}
	return pop
}

// trace returns a spare trace, or a new one for p.
func (m *metaSearch) trace(p *problem) trace {
	n := len(m.spare)
	if n == 0 {
		return p.newTrace()
	}
	tr := m.spare[n-1]
	m.spare = m.spare[:n-1]
	return tr
}

// newTrace returns an empty trace with room for a decode that places or
// tries two instances a job.
func (p *problem) newTrace() trace {
	k := len(p.jobs)
	return trace{
		led:   sim.Ledger{Free: make([]sim.Resources, 0, p.m)},
		log:   make([]booking, 0, 2*k),
		steps: make([]step, 0, k+1),
	}
}

// placements decodes the archive's knee into the decision's placements.
func (p *problem) placements(ar *archive) []sim.Placement {
	pl, _ := p.decode(ar.best().x, true)
	return p.finish(pl)
}
