package marl

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// Observation layout (MARL paper §IV-A, o_v = (x, r, H, p)).
var (
	numModels = len(sim.MARLModels) // Y
	jobWidth  = numModels + 8       // one job of x and r: model one-hot, then (workers, demand, PS, demand) with L = 3
	taskWidth = 1 + numModels + 8   // p: PS flag, model one-hot, the job's r row
)

// nodeWidth is |h⁰|: free GPU, CPU, memory, then workers and PS of each of
// the N concurrent jobs on the node, then workers and PS of the job being
// placed on the node's whole server. The last pair is ours, not the
// paper's: at device level it tells a GPU group that its job already has
// tasks behind the other socket of the same server (free traffic), which
// the 4-layer GNN could otherwise only learn through three hops and which
// took our short trainings far longer to find.
func nodeWidth(jobs int) int { return 3 + 2*jobs + 2 }

// network is the MARL-GNN: inner ECC stack, MLP encoder, inter ECC stack,
// actor heads and critic. All agents share it (the pods of our clusters
// are alike, so each agent's policy is the same function of its own
// observation; sharing multiplies the samples each parameter sees).
type network struct {
	cfg   Config
	ps    *nn.Params
	f0    int // node feature width
	ds    int // state width
	inner []*nn.ECC
	enc   *nn.MLP
	inter []*nn.ECC
	// The actor scores each action with one hidden layer of Hidden units:
	// group scores a candidate node from [s_v, h_m^K, h_m^0], forward
	// scores another scheduler from [s_v, s_u]; a masked softmax over all
	// scores is the policy. Scoring per candidate, rather than one output
	// unit per action, keeps the parameters independent of the pod size,
	// so a policy trained on one cluster runs on another.
	group, forward *scorer
	critic         *nn.MLP
}

// scorer is a one-hidden-layer MLP over [s, c] for a state s shared by
// many candidates c. Splitting the first layer, [s, c]·W = s·W_s + c·W_c,
// lets s·W_s be computed once per state rather than once per candidate
// (the candidates are most of the rows: a pod's GPU groups).
type scorer struct {
	self, cand, out *nn.Linear
}

func newScorer(ps *nn.Params, prefix string, selfIn, candIn, hidden int, rng *rand.Rand) *scorer {
	return &scorer{
		self: nn.NewLinear(ps, prefix+".l0.self", selfIn, hidden, nn.He, rng),
		cand: nn.NewLinear(ps, prefix+".l0.cand", candIn, hidden, nn.He, rng),
		out:  nn.NewLinear(ps, prefix+".l1", hidden, 1, nn.Glorot, rng),
	}
}

// forward scores candidate rows c (one per candidate), row i belonging to
// state rep[i] of s; the result is a column. With live, only the
// candidates live[i] are scored (the others' scores are 0).
// With a cache (inference), the candidates' half of the first layer comes
// from it: the same bits, recomputed for the candidates whose rows changed.
//
// With record set, the cache's rows go on the tape for a backward pass
// (nn.LinearRows.Record) rather than entering it as a constant. With pre,
// c·W_c is pre, computed elsewhere (c is not read): candidate i's row is
// row preRows[i] of it (nil: row i).
func (sc *scorer) forward(t *nn.Tape, s, c *nn.Node, rep []int, live []bool, cache *nn.LinearRows, record bool, pre *nn.Node, preRows []int) *nn.Node {
	self := sc.self.Forward(t, s)
	if pre != nil {
		// ReLU(s·W_s[rep] + (pre + b_c))·w + b, fused (nn.ReLUScore:
		// the same bits).
		return t.ReLUScoreRows(self, rep, pre, preRows, live, sc.cand.B, sc.out.W, sc.out.B)
	}
	var cand *nn.Node
	if cache != nil && record {
		cand = cache.Record(t, c)
	} else if cache != nil {
		cand = t.View(c.Rows, sc.cand.W.Cols, cache.Forward(c.Data))
	} else {
		cand = sc.cand.Forward(t, c)
	}
	return t.ReLUScoreRows(self, rep, cand, nil, live, nil, sc.out.W, sc.out.B)
}

func (c Config) multi() bool { return c.Variant != VariantSingle }

func newNetwork(cfg Config, rng *rand.Rand) *network {
	n := &network{cfg: cfg, ps: nn.NewParams(), f0: nodeWidth(cfg.Jobs)}
	in := n.f0
	for l := 0; l < cfg.InnerLayers; l++ {
		n.inner = append(n.inner, nn.NewECC(n.ps, fmt.Sprintf("inner%d", l), in, edgeFeatures, cfg.InnerDim, rng))
		in = cfg.InnerDim
	}
	encIn := cfg.Jobs*jobWidth + in + taskWidth
	n.enc = nn.NewMLP(n.ps, "encoder", []int{encIn, 2 * cfg.InterDim, cfg.InterDim}, nn.ReLU, rng)
	n.ds = cfg.InterDim
	if cfg.multi() {
		for l := 0; l < cfg.InterLayers; l++ {
			n.inter = append(n.inter, nn.NewECC(n.ps, fmt.Sprintf("inter%d", l), cfg.InterDim, edgeFeatures, cfg.InterDim, rng))
		}
		n.ds = cfg.InterDim * (1 + cfg.InterLayers)
	}
	n.group = newScorer(n.ps, "actor.group", n.ds, in+n.f0, cfg.Hidden, rng)
	if cfg.multi() {
		n.forward = newScorer(n.ps, "actor.forward", n.ds, n.ds, cfg.Hidden, rng)
	}
	n.critic = nn.NewMLP(n.ps, "critic", []int{n.ds, cfg.Hidden, 1}, nn.ReLU, rng)
	return n
}

// obs is one decision's observation, everything the network reads.
type obs struct {
	agent int
	x0    []float64 // M × f0, the agent's inner graph's candidate rows (its other nodes' are 0)
	jobs  []float64 // N × jobWidth
	task  []float64 // taskWidth
	zc    []float64 // P × InterDim: the other schedulers' z⁰ (own row unused)
	ctx   *edgeCtx  // edge features at the decision
	mask  []bool    // M candidates, then P forward targets (multi-agent)
	eval  *evaluation
}

// evaluation is what the learner needs of a step's forward pass: the
// log-probability of the action taken, the policy's entropy and the value.
type evaluation struct {
	gen                  uint64 // evaluator.gen at the pass
	action               int
	logp, entropy, value float64
}

// edgeCtx holds the edge features of every graph at one decision point.
type edgeCtx struct {
	inner [][]float64 // per partition, edges × 3
	inter []float64   // edges × 3
}

// evaluator runs the network over the graphs of one cluster.
type evaluator struct {
	// gen counts the trainer's optimiser steps: a recorded evaluation of
	// another generation is stale.
	gen    uint64
	net    *network
	cg     *clusterGraph
	blocks map[[2]int]*nn.Graph // (partition or −1 for inter, copies) → block-diagonal graph
	zc, x0 []float64            // forward's and embed's scratch
	zeros  []int                // repeat's one step: never written
}

// resize returns s with length n, reusing its storage when it can.
func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}

func newEvaluator(net *network, cg *clusterGraph) *evaluator {
	return &evaluator{net: net, cg: cg, blocks: map[[2]int]*nn.Graph{}}
}

// block returns b copies of g as one graph, cached.
func (e *evaluator) block(key int, g *nn.Graph, b int) *nn.Graph {
	if b == 1 {
		return g
	}
	if bg, ok := e.blocks[[2]int{key, b}]; ok {
		return bg
	}
	m := g.Edges()
	src, dst := make([]int, 0, b*m), make([]int, 0, b*m)
	for k := 0; k < b; k++ {
		for i := 0; i < m; i++ {
			src = append(src, g.Src[i]+k*g.Nodes)
			dst = append(dst, g.Dst[i]+k*g.Nodes)
		}
	}
	bg, err := nn.NewGraph(b*g.Nodes, src, dst)
	if err != nil {
		panic("marl: " + err.Error()) // offsets stay in range by construction
	}
	if len(e.blocks) > 64 {
		clear(e.blocks) // bounded: segments vary in length
	}
	e.blocks[[2]int{key, b}] = bg
	return bg
}

// repeat returns each step's index b < B repeated n times (b·n + k ↦
// b), the state row of every candidate row. One step's is shared
// scratch, all 0: the operators only read it.
func (e *evaluator) repeat(B, n int) []int {
	if B == 1 {
		if len(e.zeros) < n {
			e.zeros = make([]int, n)
		}
		return e.zeros[:n:n]
	}
	rep := make([]int, 0, B*n)
	for b := 0; b < B; b++ {
		for k := 0; k < n; k++ {
			rep = append(rep, b)
		}
	}
	return rep
}

// passCache holds an actor's or a learner's cached passes for one
// forward pass (any may be nil: computed on the tape).
type passCache struct {
	inner   innerPass // inference only; *nn.ECCStack with record
	inter   *nn.ECCStack
	group   *nn.LinearRows // the group scorer's candidate half
	forward *nn.LinearRows // the forward scorer's candidate half (inference only)
	// innerOut, if not nil, is the inner ECC stack's output for the
	// pass, computed elsewhere (nn.ECCSegment): the pass starts there;
	// candOut, if not nil, the group scorer's candidate half without its
	// bias (the segment's head).
	innerOut, candOut *nn.Node
	candRows          []int // candOut's row of each candidate
	// record: the ECC stacks' layers and the group scorer's rows go on
	// the tape (nn.ECCStack.Record and RecordLayers, nn.LinearRows.Record)
	// for a backward pass, rather than entering it as constants.
	record bool
}

// embedded is the part of the forward pass up to z⁰.
type embedded struct {
	h0c, hc   *nn.Node // the candidates' features and embeddings (B·M rows each)
	z0        *nn.Node // B × InterDim
	partition *partition
}

// embed runs the inner ECC stack and the encoder for steps of one agent.
// With a cache (inference, one step), the stack's output comes from it,
// recomputed only where the graph changed since the cache's last pass:
// the same bits for nn.ECCStack, float32's for nn.ECCStack32
// (Config.Precision). With out (one step), the stack's output is out.
func (e *evaluator) embed(t *nn.Tape, steps []*obs, cache innerPass, record bool, out *nn.Node) embedded {
	net := e.net
	B, v := len(steps), steps[0].agent
	pt := e.cg.parts[v]
	n, m, f0 := pt.nodes, len(pt.cands), net.f0
	// x0: each step's candidate rows (obs.x0), B·M rows.
	var x0, ef, jobs, task []float64
	if B == 1 {
		// Every pass but a batched one: the nodes copy what they read.
		o := steps[0]
		x0, ef, jobs, task = o.x0, o.ctx.inner[v], o.jobs, o.task
	} else {
		x0 = make([]float64, 0, B*m*f0)
		ef = make([]float64, 0, B*len(pt.edges)*edgeFeatures)
		jobs = make([]float64, 0, B*len(steps[0].jobs))
		task = make([]float64, 0, B*taskWidth)
		for _, o := range steps {
			if o.agent != v {
				panic("marl: embed: steps of different agents in one batch")
			}
			x0 = append(x0, o.x0...)
			ef = append(ef, o.ctx.inner[v]...)
			jobs = append(jobs, o.jobs...)
			task = append(task, o.task...)
		}
	}
	// Views, not copies: observations and their edge features are never
	// written after they are made, nor a cache's output before its next
	// pass (after this one's backward pass).
	h0c := t.View(B*m, f0, x0)
	var h *nn.Node
	switch {
	case len(net.inner) == 0: // h is h⁰
		h = t.View(B*n, f0, e.nodeStates(x0, B, m, n))
	case out != nil:
		if B != 1 || out.Rows != n {
			panic("marl: embed: a given inner output of several steps or another graph")
		}
		h = out
	case cache != nil && !record:
		if B != 1 {
			panic("marl: embed: a cached inner pass of several steps")
		}
		h = t.View(n, net.cfg.InnerDim, cache.Forward(x0, ef))
	case cache != nil:
		if B != 1 {
			panic("marl: embed: a cached inner pass of several steps")
		}
		h = cache.(*nn.ECCStack).Record(t, t.View(n, f0, e.nodeStates(x0, B, m, n)), t.View(len(pt.edges), edgeFeatures, ef))
	default:
		h = t.View(B*n, f0, e.nodeStates(x0, B, m, n))
		efn := t.View(B*len(pt.edges), edgeFeatures, ef)
		g := e.block(v, pt.graph, B)
		for _, l := range net.inner {
			h = l.Forward(t, h, efn, g)
		}
	}
	rows := make([]int, 0, B*m)
	for b := 0; b < B; b++ {
		for k := 0; k < m; k++ {
			rows = append(rows, b*n+k)
		}
	}
	hc := t.GatherRows(h, rows)
	pooled := t.SegmentMeans(hc, m)
	in := t.ConcatCols(t.Const(B, net.cfg.Jobs*jobWidth, jobs), pooled, t.Const(B, taskWidth, task))
	return embedded{h0c: h0c, hc: hc, z0: net.enc.Forward(t, in), partition: pt}
}

// nodeStates returns B steps' node states (B·n rows) from their
// candidate rows x0 (B·m rows; the other nodes' states are 0), in the
// evaluator's scratch: the tape's views of it live until the pass's
// backward pass, and the next pass (after a Reset) rewrites it.
func (e *evaluator) nodeStates(x0 []float64, B, m, n int) []float64 {
	f0 := e.net.f0
	e.x0 = resize(e.x0, B*n*f0)
	clear(e.x0)
	for b := 0; b < B; b++ {
		copy(e.x0[b*n*f0:], x0[b*m*f0:(b+1)*m*f0])
	}
	return e.x0
}

// forward returns the masked-softmax logits (B × actions), the values
// (B × 1) and the concatenated masks of steps, all of one agent. The
// group actions the mask leaves out have logits of 0, never computed:
// read them through the mask only.
//
// With caches (inference, one step), the inner and inter-scheduler ECC
// stacks come from them (nn.ECCStack: the same bits, recomputing only
// what changed since their last pass).
func (e *evaluator) forward(t *nn.Tape, steps []*obs, pc *passCache) (logits, values *nn.Node, mask []bool) {
	net := e.net
	B, v := len(steps), steps[0].agent
	if pc == nil {
		pc = &passCache{}
	}
	em := e.embed(t, steps, pc.inner, pc.record, pc.innerOut)
	s := em.z0
	var targets *nn.Node
	parts := len(e.cg.parts)
	if net.cfg.multi() {
		ig := e.cg.inter
		pn, dz := ig.nodes, net.cfg.InterDim
		// Scratch: the tape's views of it live until the pass's backward
		// pass; the next pass (after a Reset) rewrites it.
		e.zc = resize(e.zc, B*pn*dz)
		zc := e.zc
		clear(zc)
		for b, o := range steps {
			copy(zc[b*pn*dz:], o.zc[:parts*dz]) // shared switches stay 0
		}
		var layers []*nn.Node
		if pc.inter != nil && !pc.record {
			if B != 1 {
				panic("marl: forward: a cached inter pass of several steps")
			}
			copy(zc[v*dz:(v+1)*dz], em.z0.Data)
			layers = append(layers, t.View(pn, dz, zc))
			if len(net.inter) > 0 {
				pc.inter.Forward(zc, steps[0].ctx.inter)
				for i := range net.inter {
					layers = append(layers, t.View(pn, dz, pc.inter.Layer(i)))
				}
			}
		} else {
			layers = e.interLayers(t, steps, zc, em.z0, pc.inter)
		}
		// A pass on the tape has only the scheduler rows in its last
		// layer (interLayers).
		if last := layers[len(layers)-1]; last.Rows < B*pn {
			for i, l := range layers[:len(layers)-1] {
				if B == 1 {
					layers[i] = t.SliceRows(l, 0, parts)
					continue
				}
				rows := make([]int, 0, B*parts)
				for b := 0; b < B; b++ {
					for u := 0; u < parts; u++ {
						rows = append(rows, b*pn+u)
					}
				}
				layers[i] = t.GatherRows(l, rows)
			}
			pn = parts
		}
		all := t.ConcatCols(layers...)
		self, others := make([]int, B), make([]int, 0, B*parts)
		for b := 0; b < B; b++ {
			self[b] = b*pn + v
			for u := 0; u < parts; u++ {
				others = append(others, b*pn+u)
			}
		}
		s = t.GatherRows(all, self)
		targets = t.GatherRows(all, others)
	}
	return e.heads(t, steps, em, s, targets, pc)
}

// schedulerRows returns the inter-scheduler graph's scheduler rows,
// 0..P−1: all forward reads of its layers.
func (e *evaluator) schedulerRows() []int {
	rows := make([]int, len(e.cg.parts))
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// candidateRows returns partition p's candidate rows, 0..M−1: the
// graph's first nodes, all embed reads of the inner stack's output.
func (e *evaluator) candidateRows(p int) []int {
	rows := make([]int, len(e.cg.parts[p].cands))
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// interLayers runs the inter-scheduler ECC stack on the tape: zc holds
// every step's schedulers' z⁰ (pn rows per step), the acting agent's row
// still to be replaced by its own z0 row. With a cache (one step), the
// layers are recorded from it (nn.ECCStack.RecordLayers: the same bits,
// recomputing the rows that changed since its last pass).
func (e *evaluator) interLayers(t *nn.Tape, steps []*obs, zc []float64, z0 *nn.Node, cache *nn.ECCStack) []*nn.Node {
	net := e.net
	B, v := len(steps), steps[0].agent
	ig := e.cg.inter
	pn, dz := ig.nodes, net.cfg.InterDim
	zcn := t.View(B*pn, dz, zc)
	var pieces []*nn.Node
	for b := 0; b < B; b++ {
		if v > 0 {
			pieces = append(pieces, t.SliceRows(zcn, b*pn, b*pn+v))
		}
		pieces = append(pieces, t.SliceRows(z0, b, b+1))
		if v+1 < pn {
			pieces = append(pieces, t.SliceRows(zcn, b*pn+v+1, (b+1)*pn))
		}
	}
	z := t.ConcatRows(pieces...)
	layers := []*nn.Node{z}
	if len(net.inter) > 0 {
		ei := steps[0].ctx.inter
		if B > 1 {
			ei = make([]float64, 0, B*len(steps[0].ctx.inter))
			for _, o := range steps {
				ei = append(ei, o.ctx.inter...)
			}
		}
		ein := t.View(B*ig.graph.Edges(), edgeFeatures, ei)
		if cache != nil {
			if B != 1 {
				panic("marl: interLayers: a cached pass of several steps")
			}
			return cache.RecordLayers(t, z, ein, layers)
		}
		g := e.block(-1, ig.graph, B)
		// The loss reads the last layer at the scheduler rows only:
		// it runs there alone (nn.ECC.ForwardRows), as the caches'
		// restricted stacks do.
		parts := len(e.cg.parts)
		rows := make([]int, 0, B*parts)
		for b := 0; b < B; b++ {
			for u := 0; u < parts; u++ {
				rows = append(rows, b*pn+u)
			}
		}
		for i, l := range net.inter {
			if i == len(net.inter)-1 {
				z = l.ForwardRows(t, z, ein, g, rows)
			} else {
				z = l.Forward(t, z, ein, g)
			}
			layers = append(layers, z)
		}
	}
	return layers
}

// heads runs the critic and the actor's scorers on states s (B rows) and
// forward targets (B·P rows, nil for the single agent).
func (e *evaluator) heads(t *nn.Tape, steps []*obs, em embedded, s, targets *nn.Node, pc *passCache) (logits, values *nn.Node, mask []bool) {
	net := e.net
	B := len(steps)
	m := len(em.partition.cands)
	parts := len(e.cg.parts)
	values = net.critic.Forward(t, s)

	rep := e.repeat(B, m)
	var cand *nn.Node // the candidates' rows [h_m, h⁰_m], unless the segment's head took them
	if pc.candOut == nil {
		cand = t.ConcatCols(em.hc, em.h0c)
	}
	// The group scores a step's mask leaves out are read nowhere (the
	// masked softmax skips them): they are not computed.
	live := steps[0].mask[:m]
	if B > 1 {
		live = make([]bool, 0, B*m)
		for _, o := range steps {
			live = append(live, o.mask[:m]...)
		}
	}
	gT := t.Transpose(net.group.forward(t, s, cand, rep, live, pc.group, pc.record, pc.candOut, pc.candRows)) // 1 × B·M
	var fT *nn.Node
	if targets != nil {
		fT = t.Transpose(net.forward.forward(t, s, targets, e.repeat(B, parts), nil, pc.forward, false, nil, nil))
	}
	// nn has no reshape: cut the score rows per step and stack them.
	rows := make([]*nn.Node, B)
	for b := 0; b < B; b++ {
		r := t.SliceCols(gT, b*m, (b+1)*m)
		if fT != nil {
			r = t.ConcatCols(r, t.SliceCols(fT, b*parts, (b+1)*parts))
		}
		rows[b] = r
	}
	logits = t.ConcatRows(rows...)
	for _, o := range steps {
		if len(o.mask) != logits.Cols {
			panic(fmt.Sprintf("marl: mask of %d for %d actions", len(o.mask), logits.Cols))
		}
		mask = append(mask, o.mask...)
	}
	return logits, values, mask
}

// learner adapts the network to rl.ActorCritic for one agent's segment.
// Step is deliberately empty: the trainer sums the gradients of every
// agent's segment of an interval and applies one optimiser step.
//
// The inner ECC stack, most of a pass's work, runs once for up to
// segmentChunk steps of the segment (nn.ECCSegment): one version of each
// row per run of steps over which its inputs stay the same, forward and
// backward, where a pass per step would cover the pod's whole graph at
// every step (consecutive steps differ in few rows); so does the group
// scorer's candidate half, the segment's head. The rest of the
// network runs one step at a time on a tape of a step's size, whose
// working set stays in cache (a batch of B steps stacks B copies of the
// graph: hundreds of megabytes at k = 20), the inner stack's output of
// the step entering it as a leaf whose gradient the segment gathers.
// The rows of the tape's parameter gradients are summed in the order of
// one batched pass (nn.Tape.DeferGrad).
type learner struct {
	e *evaluator
	// recorded: trust steps' recorded evaluations of the current
	// generation (the trainer bumps evaluator.gen at every optimiser
	// step; whoever moves the parameters otherwise leaves this off).
	recorded bool
	t        nn.Tape
	steps    []*obs
	actions  []int
	// inner is the inner stack's segment (with the group scorer's
	// candidate half as its head), retargeted to each partition in turn.
	inner *nn.ECCSegment
	cands []int // 0, 1, …: a partition's candidate rows
	// inter is the inter-scheduler stack's pass, shared by the
	// partitions: a segment's steps differ in the acting agent's row and
	// the rows of the pods placed in since.
	inter *nn.ECCStack
	gen   uint64
	// grad is the flat buffer the parameters' gradients are views of,
	// once takeGrad has run.
	grad []float64
}

// cache returns the backward passes' inter-scheduler cache, dropping the
// cached pass when the parameters moved.
func (l *learner) cache() *passCache {
	net := l.e.net
	if l.gen != l.e.gen && l.inter != nil {
		l.inter.Invalidate()
	}
	l.gen = l.e.gen
	pc := &passCache{record: true}
	if net.cfg.multi() && len(net.inter) > 0 {
		if l.inter == nil {
			l.inter = nn.NewECCStack(net.inter, l.e.cg.inter.graph)
			// The loss reads the schedulers' rows only: the last
			// layer is recorded at those rows (nn.ECCStack.RecordLayers).
			l.inter.Only(l.e.schedulerRows())
		}
		pc.inter = l.inter
	}
	return pc
}

// Evaluate implements rl.ActorCritic. With recorded set, a step recorded
// by the actor under the evaluator's current parameter generation carries
// its log-probability, entropy and value from the forward pass that chose
// it, and that pass is not run again; otherwise (or for any other step)
// the pass runs.
func (l *learner) Evaluate(steps []*rl.Step[*obs], logp, entropy, value []float64) {
	l.steps, l.actions = l.steps[:0], l.actions[:0]
	for i, s := range steps {
		o := s.Obs
		l.steps, l.actions = append(l.steps, o), append(l.actions, s.Action.Index)
		ev := o.eval
		if !l.recorded || ev == nil || ev.gen != l.e.gen || ev.action != s.Action.Index {
			l.t.Reset()
			logits, values, mask := l.e.forward(&l.t, []*obs{o}, nil)
			ev = &evaluation{action: s.Action.Index, value: values.Data[0],
				logp:    l.t.CategoricalLogProb(logits, mask, []int{s.Action.Index}).Data[0],
				entropy: l.t.CategoricalEntropy(logits, mask).Data[0]}
		}
		logp[i], entropy[i] = ev.logp, ev.entropy
		if value != nil {
			value[i] = ev.value
		}
	}
}

// segmentChunk is the most steps an inner segment holds: its versions
// and their gradients grow with the steps (a single agent's segment is
// an interval's every decision over the whole cluster's graph), while
// each chunk costs one full pass more.
const segmentChunk = 32

// Backward implements rl.ActorCritic: the inner stack's segment of each
// chunk of steps, then each step's forward pass from its output, on a
// tape of its own size, and its backward pass, then the segment's.
func (l *learner) Backward(dLogp, dEntropy, dValue []float64) {
	t := &l.t
	t.DeferGrad(true)
	defer func() {
		t.FlushGrad()
		t.DeferGrad(false)
	}()
	var seg *nn.ECCSegment // Config.Validate: every network has inner layers
	end := 0               // the steps before end are in the segment's chunk
	for i, o := range l.steps {
		if i == end {
			if seg != nil {
				seg.Backward()
			}
			seg = l.segment(o.agent)
			for end = i; end < len(l.steps) && end-i < segmentChunk && l.steps[end].agent == o.agent; end++ {
				seg.Add(l.steps[end].x0, l.steps[end].ctx.inner[o.agent])
			}
			seg.Forward()
		}
		t.Reset()
		pc := l.cache()
		pc.innerOut = seg.Output(seg.Len() - (end - i))
		pc.candOut, pc.candRows = seg.HeadVersions()
		logits, values, mask := l.e.forward(t, []*obs{o}, pc)
		lp := t.CategoricalLogProb(logits, mask, l.actions[i:i+1])
		ent := t.CategoricalEntropy(logits, mask)
		loss := t.Add(t.Sum(t.Mul(lp, t.Const(1, 1, dLogp[i:i+1]))), t.Sum(t.Mul(ent, t.Const(1, 1, dEntropy[i:i+1]))))
		if dValue != nil {
			loss = t.Add(loss, t.Sum(t.Mul(values, t.Const(1, 1, dValue[i:i+1]))))
		}
		t.Backward(loss)
		seg.Accumulate()
	}
	if seg != nil {
		seg.Backward()
	}
}

// segment returns the learner's inner segment over partition p's graph,
// empty, with the group scorer's candidate half as its head (the
// candidates are the graph's first nodes).
func (l *learner) segment(p int) *nn.ECCSegment {
	pt := l.e.cg.parts[p]
	if l.inner == nil {
		l.inner = nn.NewECCSegment(l.e.net.inner, pt.graph)
	}
	l.inner.Retarget(pt.graph)
	for len(l.cands) < len(pt.cands) {
		l.cands = append(l.cands, len(l.cands))
	}
	l.inner.SetHead(l.e.net.group.cand, l.cands[:len(pt.cands)])
	// embed reads the output at the candidates' rows alone.
	l.inner.Reads(l.cands[:len(pt.cands)])
	return l.inner
}

// Step implements rl.ActorCritic; see learner.
func (l *learner) Step() {}

// release drops the learner's references to the last segment's
// observations.
func (l *learner) release() {
	clear(l.steps)
	l.steps = l.steps[:0]
}

// takeGrad moves the gradient the learner's network holds into dst,
// which must be nil or all zero (rolloutGrad leaves the trainer's so;
// a phase that fails ends its trainer's use), and leaves the network
// dst's zeros. The parameters' gradients are
// views of one flat buffer, so the move is a swap: dst becomes that
// buffer and the old one is returned, the values in parameter order,
// neither copied nor cleared here.
func (l *learner) takeGrad(dst []float64) []float64 {
	ps := l.e.net.ps.List()
	n := gradSize(ps)
	if len(l.grad) != n {
		// Once: the gradients Params.New made move into one buffer.
		l.grad = make([]float64, 0, n)
		for _, p := range ps {
			l.grad = append(l.grad, p.Grad...)
		}
	}
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	g := l.grad
	l.grad = dst[:n]
	l.viewGrad(ps)
	return g
}

// viewGrad points each parameter's gradient at its span of l.grad.
func (l *learner) viewGrad(ps []*nn.Param) {
	off := 0
	for _, p := range ps {
		p.Grad = l.grad[off : off+len(p.Data) : off+len(p.Data)]
		off += len(p.Data)
	}
}
