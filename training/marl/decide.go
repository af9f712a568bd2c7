package marl

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/nn"
)

// decision is one recorded choice of an agent.
type decision struct {
	agent   int
	o       *obs
	action  int
	logp    float64
	value   float64
	job     int
	forward bool
}

// actor places pending jobs with the network, task by task (one inference
// per worker or PS, MARL paper §IV-B).
type actor struct {
	e       *evaluator
	v       *view
	rng     *rand.Rand
	greedy  bool
	record  func(decision) // nil: not training
	tape    nn.Tape
	zc      []float64 // per partition z⁰ with no task: what other agents see of it
	zStale  []bool
	last    *sim.State
	calls   int // inferences made (decisions, forwards included)
	scratch []sim.Resources
	// Per partition, cached inner-graph passes (nn.ECCStack, or
	// nn.ECCStack32 in single precision): one for the agent's own
	// decisions and one for its z⁰ without a task, whose observations
	// differ (the job being placed is in the first).
	acting, idle []innerPass
	// The inter-scheduler pass, shared by the agents: between decisions
	// their inputs differ in the acting agent's row (and the rows of the
	// pods just changed).
	inter *nn.ECCStack
	group []*nn.LinearRows // per partition, its candidates' scorer rows
	// forward is the forward scorer's candidate half, shared by the
	// agents: its rows are the schedulers' states, of which a decision
	// changes few.
	forward *nn.LinearRows
	// idleObs is z's observation, rewritten for each stale partition:
	// only its z⁰ is kept; valueObs is value's, of which only the value
	// is.
	idleObs, valueObs obs
}

// caches returns the cached passes of agent p's decisions.
func (a *actor) caches(p int) *passCache {
	if a.group == nil {
		a.group = make([]*nn.LinearRows, len(a.e.cg.parts))
	}
	if a.group[p] == nil {
		a.group[p] = nn.NewLinearRows(a.e.net.group.cand)
	}
	pc := &passCache{inner: a.inner(p, true), group: a.group[p]}
	if a.e.net.cfg.multi() {
		if a.inter == nil {
			a.inter = nn.NewECCStack(a.e.net.inter, a.e.cg.inter.graph)
			// A decision reads the schedulers' rows only (its own and
			// the forward targets'): the last layer's switch rows, half
			// its messages, are never computed.
			a.inter.Only(a.e.schedulerRows())
		}
		pc.inter = a.inter
		if a.forward == nil {
			a.forward = nn.NewLinearRows(a.e.net.forward.cand)
		}
		pc.forward = a.forward
	}
	return pc
}

// innerPass is a cached inference pass of the inner ECC stack.
type innerPass interface {
	Forward(x, ef []float64) []float64
	Invalidate()
}

// inner returns partition p's cached inner pass of the given kind, in
// the configured precision.
func (a *actor) inner(p int, acting bool) innerPass {
	cs := &a.idle
	if acting {
		cs = &a.acting
	}
	if *cs == nil {
		*cs = make([]innerPass, len(a.e.cg.parts))
	}
	if (*cs)[p] == nil {
		if g := a.e.cg.parts[p].graph; a.e.net.cfg.Precision == PrecisionFloat32 {
			(*cs)[p] = nn.NewECCStack32(a.e.net.inner, g)
		} else {
			s := nn.NewECCStack(a.e.net.inner, g)
			// embed reads the output at the candidates' rows alone.
			s.Reads(a.e.candidateRows(p))
			(*cs)[p] = s
		}
	}
	return (*cs)[p]
}

// paramsMoved drops every cached value computed with the old parameters.
func (a *actor) paramsMoved() {
	for p := range a.zStale {
		a.zStale[p] = true
	}
	for _, cs := range [][]innerPass{a.acting, a.idle} {
		for _, c := range cs {
			if c != nil {
				c.Invalidate()
			}
		}
	}
	if a.inter != nil {
		a.inter.Invalidate()
	}
	for _, c := range a.group {
		if c != nil {
			c.Invalidate()
		}
	}
	if a.forward != nil {
		a.forward.Invalidate()
	}
}

func newActor(e *evaluator, slots int, rng *rand.Rand, greedy bool) *actor {
	parts := len(e.cg.parts)
	return &actor{e: e, v: newView(e.cg, slots), rng: rng, greedy: greedy,
		zc: make([]float64, parts*e.net.cfg.InterDim), zStale: make([]bool, parts)}
}

// sync refreshes the view once per decision point.
func (a *actor) sync(st *sim.State) {
	if a.last == st {
		return
	}
	a.last = st
	a.v.refresh(st)
	for p := range a.zStale {
		a.zStale[p] = true
	}
}

// z returns the cache of every partition's z⁰, recomputing stale ones:
// within an interval a partition's graph changes only when a task is
// placed in it, so the other partitions' embeddings are reused.
func (a *actor) z(self int) []float64 {
	if !a.e.net.cfg.multi() {
		return a.zc
	}
	dz := a.e.net.cfg.InterDim
	for p, stale := range a.zStale {
		if !stale || p == self {
			continue // the acting agent's own row is replaced by its z⁰ with the task
		}
		a.tape.Reset()
		em := a.e.embed(&a.tape, []*obs{a.v.observeInto(&a.idleObs, p, nil, 0)}, a.inner(p, false), false, nil)
		copy(a.zc[p*dz:(p+1)*dz], em.z0.Data)
		a.zStale[p] = false
	}
	return a.zc
}

// value is V of agent p's observation with its first pending task (the
// bootstrap of the previous interval's last transition).
func (a *actor) value(p int, cur *sim.JobState) float64 {
	zc, mask := a.valueObs.zc, a.valueObs.mask
	o := a.v.observeInto(&a.valueObs, p, cur, 0)
	o.zc = append(zc[:0], a.z(p)...)
	o.mask = slices.Grow(mask[:0], a.actions(p))[:a.actions(p)]
	clear(o.mask)
	a.tape.Reset()
	_, values, _ := a.e.forward(&a.tape, []*obs{o}, a.caches(p))
	return values.Data[0]
}

func (a *actor) actions(p int) int {
	n := len(a.e.cg.parts[p].cands)
	if a.e.net.cfg.multi() {
		n += len(a.e.cg.parts)
	}
	return n
}

// decide places the pending jobs of st: agents in order, each agent's jobs
// in submission order, each job's instances in order. A job whose
// instances cannot all be placed is taken back and stays pending.
func (a *actor) decide(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	a.sync(st)
	parts := len(a.e.cg.parts)
	byAgent := make([][]*sim.JobState, parts)
	for _, js := range st.Pending {
		p := datasets.PodOf(js.Job, js.Index, parts)
		byAgent[p] = append(byAgent[p], js)
	}
	var out []sim.Placement
	var failed [][]datasets.Task
	for p, jobs := range byAgent {
		for _, js := range jobs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if !js.Total.Fits(a.freeTotal()) || slices.ContainsFunc(failed, func(f []datasets.Task) bool { return slices.Equal(f, js.Job.Tasks) }) || !a.packable(js) {
				continue
			}
			slots, ok := a.place(p, js)
			if !ok {
				// Within one decision free resources only shrink, so a job
				// shaped like this one would fail too.
				failed = append(failed, js.Job.Tasks)
				continue
			}
			out = append(out, sim.Placement{Job: js.Index, Slots: slots})
			// The job's flows load links other partitions see too.
			for _, q := range a.v.bookFlows(js, slots) {
				a.zStale[q] = true
			}
		}
	}
	return out, nil
}

// packable reports whether js's instances fit the free resources first-fit,
// a necessary condition for the policy to place it: a job that fails it
// would cost inferences (and, in training, zero-reward samples) for
// nothing.
func (a *actor) packable(js *sim.JobState) bool {
	a.scratch = append(a.scratch[:0], a.v.free...)
	for _, in := range js.Instances {
		ok := false
		for s := range a.scratch {
			if in.Demand.Fits(a.scratch[s]) {
				a.scratch[s] = a.scratch[s].Sub(in.Demand)
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func (a *actor) freeTotal() sim.Resources {
	var t sim.Resources
	for _, f := range a.v.free {
		t = t.Add(f)
	}
	return t
}

// place decides every instance of js, starting at agent p.
func (a *actor) place(p int, js *sim.JobState) ([]sim.Slot, bool) {
	slots := make([]sim.Slot, 0, len(js.Instances))
	parts := len(a.e.cg.parts)
	multi := a.e.net.cfg.multi()
	for i := range js.Instances {
		d := js.Instances[i].Demand
		agent := p
		visited := make([]bool, parts)
		for {
			visited[agent] = true
			pt := a.e.cg.parts[agent]
			m := len(pt.cands)
			mask := make([]bool, a.actions(agent))
			feasible := false
			for k := 0; k < m; k++ {
				mask[k] = a.v.fits(agent, k, d)
				feasible = feasible || mask[k]
			}
			if multi {
				for u := 0; u < parts; u++ {
					if !visited[u] && a.partFits(u, d) {
						mask[m+u] = true
						feasible = true
					}
				}
			}
			if !feasible {
				a.v.unbook(js, slots)
				for _, sl := range slots {
					a.zStale[a.e.cg.candIdx[sl.Server][sl.Socket].part] = true
				}
				return nil, false
			}
			o := a.v.observe(agent, js, i)
			o.zc = append(takeRows(&zcPool), a.z(agent)...)
			o.mask = mask
			a.tape.Reset()
			logits, values, _ := a.e.forward(&a.tape, []*obs{o}, a.caches(agent))
			a.calls++
			act, logp := a.choose(logits.Data, mask)
			if a.record != nil {
				// What the update will ask of this forward pass (the
				// parameters do not move before it).
				o.eval = &evaluation{gen: a.e.gen, action: act, value: values.Data[0],
					logp:    a.tape.CategoricalLogProb(logits, mask, []int{act}).Data[0],
					entropy: a.tape.CategoricalEntropy(logits, mask).Data[0]}
				a.record(decision{agent: agent, o: o, action: act, logp: logp, value: values.Data[0], job: js.Index, forward: act >= m})
			}
			if act >= m {
				agent = act - m
				continue
			}
			c := pt.cands[act]
			sock := c.socket
			if sock < 0 {
				sock = a.pickSocket(c.server, d)
			}
			a.v.book(js, i, c.server, sock)
			a.zStale[agent] = true
			slots = append(slots, sim.Slot{Server: c.server, Socket: sock})
			break
		}
	}
	return slots, true
}

// partFits reports whether any candidate of partition u can take demand d.
func (a *actor) partFits(u int, d sim.Resources) bool {
	for k := range a.e.cg.parts[u].cands {
		if a.v.fits(u, k, d) {
			return true
		}
	}
	return false
}

// pickSocket draws the GPU group of a server-level placement uniformly
// among the server's groups that have the task's GPUs (MARL paper §VI-A).
func (a *actor) pickSocket(server int, d sim.Resources) int {
	var ok []int
	for k := range a.v.sock[server] {
		if a.v.socketFits(server, k, d) {
			ok = append(ok, k)
		}
	}
	if len(ok) == 0 {
		return a.rng.IntN(len(a.v.sock[server]))
	}
	return ok[a.rng.IntN(len(ok))]
}

// choose samples an action from the masked softmax of logits (or takes
// the most likely one when greedy) and returns it with its log-probability.
func (a *actor) choose(logits []float64, mask []bool) (int, float64) {
	mx := math.Inf(-1)
	best := -1
	for k, z := range logits {
		if mask[k] && z > mx {
			mx, best = z, k
		}
	}
	var sum float64
	for k, z := range logits {
		if mask[k] {
			sum += math.Exp(z - mx)
		}
	}
	lse := mx + math.Log(sum)
	if a.greedy {
		return best, logits[best] - lse
	}
	u := a.rng.Float64() * sum
	last := best
	for k, z := range logits {
		if !mask[k] {
			continue
		}
		last = k
		u -= math.Exp(z - mx)
		if u < 0 {
			return k, z - lse
		}
	}
	return last, logits[last] - lse // rounding left u ≥ 0: the last allowed action
}
