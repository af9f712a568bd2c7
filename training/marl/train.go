package marl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/sourcegraph/conc"
	"gonum.org/v1/gonum/floats"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// TrainOptions is what Train runs on.
type TrainOptions struct {
	Cluster *sim.Cluster
	// ClusterName labels the curves (e.g. "fattree-k4-power8").
	ClusterName string
	// Train are the training jobs; Validation, if any, are simulated with
	// the greedy policy every Config.ValidateEvery episodes.
	Train, Validation []datasets.Job
	// Sim configures the simulator; the trigger is forced to 30-minute
	// (IntervalS) intervals, the MARL setting.
	Sim sim.Config
	// Interference is the speed model (nil: sim.DefaultInterference).
	Interference sim.Interference
	Seed         uint64
	// Init, if not nil, is the policy to start from, trained in place (its
	// Config must equal the one given to Train in the architecture
	// fields); otherwise a new policy is drawn from Seed.
	Init *Policy
	// Episode, if not nil, is called after every training episode and
	// every validation run with its curve row.
	Episode func(training.Curve)
	// Resume, if not nil, keeps the training's state after every episode
	// and continues from the state a previous attempt kept (resume.go).
	Resume *training.Resume
	// Borrow, if not nil, lends the trainer one more worker
	// (pipeline.BorrowWorker) each time it asks, ok false when none is
	// idle: the rollouts of an iteration decide and simulate, and an
	// interval's update learns the segments, side by side on the
	// trainer's own goroutine and on one more for every worker it
	// borrows, up to GOMAXPROCS in all, released at the end of each
	// phase. Nil: up to GOMAXPROCS goroutines, unasked. How many run
	// never changes a bit (trainer.phase).
	Borrow func() (release func(), ok bool)
	// Spread, if not nil, runs the rollouts of each iteration as pieces
	// of the training's steps, each a task of a run's executor
	// (spread.go); the bytes are those of the training without.
	Spread training.Spread
}

// Train trains a policy with advantage actor-critic (rl.A2CUpdate, TD(0)
// advantage, MARL paper §IV-C) and returns it with one curve row per
// training episode and per validation run.
//
// An episode simulates the training jobs from the start. At each decision
// point (every IntervalS) the agents place the pending jobs task by task,
// sampling from the policy; every decision is a sample whose reward is the
// share of its job's work done in the following interval (epochs trained /
// max epochs; 0 if the job could not be placed). At the next decision
// point, each agent's decisions of the interval form one rollout,
// bootstrapped from the value of the agent's first observation there; the
// gradients of all agents' rollouts are summed and Adam takes one step
// (with Config.Lag 1 while the agents decide there, with the parameters
// before the step). The last interval of an episode has no next decision point to measure
// its rewards at and is not learned from. With Config.Rollouts > 1 the
// episodes go in iterations of that many, run side by side in lock step,
// and each update learns from the segments of all (iteration).
func Train(ctx context.Context, cfg Config, opts TrainOptions) (*Policy, []training.Curve, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("marl: %w", err)
	}
	if opts.Cluster == nil || len(opts.Train) == 0 {
		return nil, nil, errors.New("marl: Train needs a cluster and training jobs")
	}
	simCfg, err := trainSim(opts.Sim)
	if err != nil {
		return nil, nil, err
	}
	pol := opts.Init
	if pol == nil {
		if pol, err = NewPolicy(cfg, opts.Seed); err != nil {
			return nil, nil, err
		}
	} else if pol.cfg.arch() != cfg.arch() {
		return nil, nil, fmt.Errorf("marl: initial policy's architecture %+v differs from the config's %+v", pol.cfg.arch(), cfg.arch())
	}
	pol.cfg = cfg
	cg, err := buildGraphs(opts.Cluster, cfg.Variant)
	if err != nil {
		return nil, nil, err
	}
	tr := &trainer{
		cfg: cfg, pol: pol, e: newEvaluator(pol.net, cg), borrow: opts.Borrow,
		opt: nn.NewAdam(pol.net.ps, nn.AdamConfig{LR: cfg.LR, MaxGradNorm: cfg.MaxGradNorm}),
	}
	var saved resumeState
	if _, ok, err := opts.Resume.LoadState("marl", resumeKey(cfg), &saved); err != nil {
		return nil, nil, err
	} else if ok {
		if err := saved.restore(pol, tr.opt); err != nil {
			return nil, nil, err
		}
	}
	curves := saved.Curves
	emit := func(c training.Curve) {
		c.Family, c.Variant, c.Cluster = "marl", cfg.Variant, opts.ClusterName
		curves = append(curves, c)
		if opts.Episode != nil {
			opts.Episode(c)
		}
	}
	validate := func(ep int) error {
		if len(opts.Validation) == 0 {
			return nil
		}
		res, err := sim.Run(ctx, opts.Cluster, opts.Validation, pol.Scheduler(SchedulerOptions{Seed: opts.Seed}), simCfg, opts.Interference)
		if err != nil {
			return fmt.Errorf("marl: validation after episode %d: %w", ep, err)
		}
		emit(training.Curve{Episode: int32(ep), Split: "validation", MeanJCT: res.Metrics.MeanJCTS})
		return nil
	}
	// Episodes go in iterations of cfg.rollouts() collected side by side
	// (a resumed training starts at an iteration's first: it kept its
	// state after each whole one).
	for first := saved.Ep; first < cfg.Episodes; first += cfg.rollouts() {
		n := min(cfg.rollouts(), cfg.Episodes-first)
		cs, err := tr.iteration(ctx, opts, simCfg, first, n)
		if err != nil {
			return nil, nil, err
		}
		check := false
		for _, c := range cs {
			emit(c)
			ep := int(c.Episode)
			check = check || cfg.ValidateEvery > 0 && ((ep+1)%cfg.ValidateEvery == 0 || ep+1 == cfg.Episodes)
		}
		last := first + n
		if check {
			if err := validate(last - 1); err != nil {
				return nil, nil, err
			}
		}
		if opts.Resume != nil {
			st := resumeState{Ep: last, Params: pol.net.ps.Values(), Opt: tr.opt.State(), Curves: curves}
			if err := opts.Resume.SaveState("marl", resumeKey(cfg), last, cfg.Episodes, st); err != nil {
				return nil, nil, err
			}
		}
	}
	return pol, curves, nil
}

// trainSim is the simulator's configuration of a training: opts.Sim
// with 30-minute (IntervalS) decision intervals.
func trainSim(c sim.Config) (sim.Config, error) {
	if c.IntervalS == 0 {
		c.IntervalS = 1800
	}
	c.Trigger = sim.TriggerInterval
	return c, c.Validate()
}

// segment is one agent's decisions of one interval.
type segment struct {
	roll rl.Rollout[*obs]
	jobs []int
	last float64 // the bootstrap value, V of the agent's next observation
}

type trainer struct {
	cfg Config
	pol *Policy
	e   *evaluator
	opt *nn.Adam
	// evals are the evaluators of rollouts 1, 2, …, each over a network
	// of its own whose parameters share the policy's values (rollout 0
	// acts with e): the rollouts of an iteration decide side by side.
	evals []*evaluator
	// workers learn the segments of an interval side by side (phase),
	// each over a network of its own whose parameters share the values
	// the segments were decided with (behav) but not the policy's
	// gradients; grads[i] receives segment i's gradient (rollout by
	// rollout, agent by agent; zero again once summed), and the
	// policy's is their sum in that order, so neither the number of
	// workers nor which one learned a segment changes a bit.
	workers []*learner
	grads   [][]float64
	// behav are the parameters' values the rollouts' pending segments
	// were decided with, one slice per parameter, and behavGen the
	// evaluator generation of that decision point (hold).
	behav    [][]float64
	behavGen uint64
	acc      []float64                        // a rollout's gradient (rolloutGrad)
	borrow   func() (release func(), ok bool) // TrainOptions.Borrow
}

// rollout is one episode of an iteration: its simulation, its actor, the
// segments of the interval its last advance decided (segs) and those of
// the interval before (pending), which the next phase learns while the
// rollout advances again.
type rollout struct {
	ep      int
	s       *sim.Sim
	a       *actor
	jobs    []datasets.Job // indexed as the simulator does
	segs    []segment      // one per agent
	pending []segment      // one per agent
	st      *sim.State     // the decision point reached, nil before the first
	done    bool
	c       training.Curve
	// n is the number of steps in segs ready to learn and ret their
	// rewards' sum; pn and pret are pending's; updates counts the
	// updates that learnt from this rollout.
	n, pn     int
	ret, pret float64
	updates   int
	// points counts the decision points reached and learned the steps
	// the updates learnt from (testHookEpisode).
	points, learned int
}

// update is one decision point's work for the rollouts rs: a phase
// (advance, learning what was pending) and, with Config.Lag 0, a second
// that learns what the advance prepared. It returns phase's segments
// learned, their owners and losses.
func (tr *trainer) update(ctx context.Context, rs []*rollout, advance func(*rollout) error) ([]*segment, []*rollout, []rl.UpdateStats, error) {
	todo, owner, stats, err := tr.phase(ctx, rs, advance)
	if err != nil || tr.cfg.Lag > 0 {
		return todo, owner, stats, err
	}
	// Nothing was pending: learn what the advance prepared.
	tr.shift(rs)
	return tr.phase(ctx, rs, nil)
}

// settle, with Config.Lag 1, makes the segments the advance prepared the
// pending ones, once the learned ones are accounted for (their owners'
// pn and pret); with 0, update already did.
func (tr *trainer) settle(rs []*rollout) {
	if tr.cfg.Lag > 0 {
		tr.shift(rs)
	}
}

// shift makes the segments the rollouts' last advance prepared the
// pending ones, decided with the values the parameters hold (hold), once
// a phase has learned those before (learnt emptied them).
func (tr *trainer) shift(rs []*rollout) {
	tr.hold()
	for _, r := range rs {
		r.shift()
	}
}

// shift makes the segments the last advance prepared the pending ones.
func (r *rollout) shift() {
	r.segs, r.pending = r.pending, r.segs
	r.pn, r.pret = r.n, r.ret
	r.n, r.ret = 0, 0
}

// testHookEpisode, when set (by the package's benchmarks), is told each
// finished training episode's decisions (the actor's inferences,
// forwards included), decision points and learned steps.
var testHookEpisode func(decisions, points, learned int)

// iteration runs the episodes first, …, first+n−1 side by side, in lock
// step: at each decision point every rollout reaches it and one update
// learns the segments of all (in rollout order), with the values that
// decided them, and takes one optimiser step. With Config.Lag 0 that
// point's decisions wait for the update of the interval it ends; with 1
// they are made with the parameters there are while the update learns
// the interval before (phase), and its step moves the parameters for the
// next decision point. It returns their curves in episode order. With
// n = 1 this is one episode with an update per interval.
func (tr *trainer) iteration(ctx context.Context, opts TrainOptions, simCfg sim.Config, first, n int) ([]training.Curve, error) {
	if opts.Spread != nil {
		return tr.spreadIteration(ctx, opts, first, n) // spread.go
	}
	rs := make([]*rollout, n)
	ps := tr.pol.net.ps.List()
	for i := range rs {
		e := tr.e
		if i > 0 {
			for len(tr.evals) < i {
				// The initialisation is overwritten by sharing the
				// policy's values; any stream will do.
				net := newNetwork(tr.pol.net.cfg, rand.New(rand.NewPCG(0, 0)))
				tr.evals = append(tr.evals, newEvaluator(net, tr.e.cg))
			}
			e = tr.evals[i-1]
			// The values, not copies: the optimiser moves them in place.
			for k, p := range e.net.ps.List() {
				p.Data = ps[k].Data
			}
			e.gen = tr.e.gen
		}
		r, err := tr.newRollout(opts, simCfg, e, first+i)
		if err != nil {
			return nil, err
		}
		rs[i] = r
	}
	advance := func(r *rollout) error { return r.advance(ctx, tr.cfg) }
	for {
		todo, owner, stats, err := tr.update(ctx, rs, advance)
		if err != nil {
			return nil, err
		}
		contrib := tr.gather(todo, owner, stats)
		tr.settle(rs)
		live := false
		for _, r := range rs {
			live = live || !r.done
		}
		if contrib > 0 {
			tr.step(contrib)
			tr.moved(rs)
		}
		if !live {
			break
		}
	}
	cs := make([]training.Curve, n)
	for i, r := range rs {
		cs[i] = r.curve(r.a.calls)
	}
	return cs, nil
}

// newRollout starts episode ep's simulation and its actor, which acts
// with e.
func (tr *trainer) newRollout(opts TrainOptions, simCfg sim.Config, e *evaluator, ep int) (*rollout, error) {
	s, err := sim.New(opts.Cluster, opts.Train, simCfg, opts.Interference)
	if err != nil {
		return nil, err
	}
	// The episode's index is the rollout's in the stream's name: an
	// episode draws the same actions whichever iteration holds it.
	rng := pipeline.Rand(opts.Seed, training.Stream, streamKey, pipeline.Key(tr.cfg.Variant), training.KeyEpisode, pipeline.Index(ep))
	parts := len(e.cg.parts)
	r := &rollout{ep: ep, s: s, a: newActor(e, tr.cfg.Jobs, rng, false), jobs: opts.Train, segs: make([]segment, parts), pending: make([]segment, parts)}
	r.c.Episode, r.c.Split = int32(ep), "train"
	r.a.record = r.record
	return r, nil
}

// curve is the finished episode's curve row (its losses the means over
// its updates); calls is its actor's inferences, for testHookEpisode.
func (r *rollout) curve(calls int) training.Curve {
	if testHookEpisode != nil {
		testHookEpisode(calls, r.points, r.learned)
	}
	c := r.c
	if r.updates > 0 {
		c.PolicyLoss /= float64(r.updates)
		c.ValueLoss /= float64(r.updates)
		c.Entropy /= float64(r.updates)
	}
	return c
}

// record appends an actor's decision to its agent's segment.
func (r *rollout) record(d decision) {
	sg := &r.segs[d.agent]
	sg.roll.Add(rl.Step[*obs]{Obs: d.o, Action: rl.Action{Index: d.action}, Value: d.value, LogProb: d.logp})
	// A forward places nothing: it earns no reward of its own (else
	// every hop would collect the job's reward again, and agents learn
	// to pass tasks around); its effect reaches it through γV(s').
	j := d.job
	if d.forward {
		j = -1
	}
	sg.jobs = append(sg.jobs, j)
}

// advance places the pending jobs of the decision point reached (if any)
// with the current parameters, runs the simulation to the next one, and
// prepares the segments of the interval between for the update: their
// rewards, which that point reveals, and their bootstrap values. At the
// end of the episode the rollout is done and takes its mean JCT.
func (r *rollout) advance(ctx context.Context, cfg Config) error {
	if r.st != nil {
		pl, err := r.a.decide(ctx, r.st)
		if err != nil {
			return err
		}
		if err := r.s.Apply(pl); err != nil {
			return fmt.Errorf("marl: episode %d: %w", r.ep, err)
		}
	}
	st, err := r.s.Next(ctx)
	if err == io.EOF {
		r.done, r.n, r.ret = true, 0, 0
		r.c.MeanJCT = r.s.Result().Metrics.MeanJCTS
		return nil
	}
	if err != nil {
		return fmt.Errorf("marl: episode %d: %w", r.ep, err)
	}
	r.st = st
	r.points++
	r.prepare(cfg, st)
	return nil
}

// prepare sets the rewards and bootstrap values of the segments the
// decision point st ends.
func (r *rollout) prepare(cfg Config, st *sim.State) {
	r.n, r.ret = 0, 0
	for _, sg := range r.segs {
		r.n += sg.roll.Len()
	}
	if r.n == 0 {
		return
	}
	progress := map[int]float64{}
	span := st.Now - st.Since.FromS
	for _, p := range st.Since.Progress {
		x := p.Fraction
		if cfg.Reward == RewardSpeed && span > 0 {
			x *= r.jobs[p.Job].DurationS / span
		}
		progress[p.Job] += x
	}
	r.a.sync(st)
	parts := len(r.segs)
	first := make([]*sim.JobState, parts)
	for _, js := range st.Pending {
		if p := datasets.PodOf(js.Job, js.Index, parts); first[p] == nil {
			first[p] = js
		}
	}
	for p := range r.segs {
		sg := &r.segs[p]
		if sg.roll.Len() == 0 {
			continue
		}
		for i := range sg.roll.Steps {
			x := progress[sg.jobs[i]] // 0 for forwards (job −1)
			sg.roll.Steps[i].Reward = x
			r.ret += x
		}
		sg.last = r.a.value(p, first[p])
	}
}

// lend returns how many goroutines may work on want items (at least one,
// at most GOMAXPROCS): the calling one and one for every worker
// TrainOptions.Borrow lends (with no Borrow, as many as asked), and the
// release of those borrowed.
func (tr *trainer) lend(want int) (int, func()) {
	want = min(runtime.GOMAXPROCS(0), want)
	var releases []func()
	w := 1
	for ; w < want; w++ {
		if tr.borrow == nil {
			continue
		}
		release, ok := tr.borrow()
		if !ok {
			break
		}
		releases = append(releases, release)
	}
	return w, func() {
		for _, r := range releases {
			r()
		}
	}
}

// phase advances every live rollout of rs (decides with the parameters,
// simulates to the next decision point, prepares the interval's segments:
// rollout.advance) and, side by side, learns their pending segments (in
// rollout order, agent by agent) with the values those were decided with
// (hold): with Config.Lag 1 the segments of the interval before, so that
// the decisions of one interval do not wait for the update of the one
// before. Segment i's gradient is left in tr.grads[i] and its losses,
// weighted by its share of its rollout's steps, in stats[i]; the
// segments are emptied. The work runs on
// the calling goroutine and on the workers TrainOptions.Borrow lends (up
// to GOMAXPROCS), advances first: a goroutine done with its advance
// learns segments too. It returns the first advance's error in rollout
// order; advance is rollout.advance with the training's context and
// configuration, nil to learn only.
func (tr *trainer) phase(ctx context.Context, rs []*rollout, advance func(*rollout) error) (todo []*segment, owner []*rollout, stats []rl.UpdateStats, err error) {
	var live []*rollout
	for _, r := range rs {
		if !r.done && advance != nil {
			live = append(live, r)
		}
		if r.pn == 0 {
			continue
		}
		for p := range r.pending {
			if r.pending[p].roll.Len() > 0 {
				todo, owner = append(todo, &r.pending[p]), append(owner, r)
			}
		}
	}
	stats = make([]rl.UpdateStats, len(todo))
	for len(tr.grads) < len(todo) {
		tr.grads = append(tr.grads, nil)
	}
	errs := make([]error, len(live))
	w, release := tr.lend(len(live) + len(todo))
	defer release()
	ls := make([]*learner, w) // advances only: none
	if len(todo) > 0 {
		ls = tr.learners(w)
	}
	pg := rl.PGConfig{Gamma: tr.cfg.Gamma, ValueCoef: tr.cfg.ValueCoef, EntropyCoef: tr.cfg.EntropyCoef}
	var next atomic.Int64
	work := func(l *learner) {
		for ctx.Err() == nil {
			i := int(next.Add(1)) - 1
			if i < len(live) {
				errs[i] = advance(live[i])
				continue
			}
			if i -= len(live); i >= len(todo) {
				return
			}
			sg := todo[i]
			st := rl.A2CUpdate[*obs](l, &sg.roll, pg, sg.last)
			tr.grads[i] = l.takeGrad(tr.grads[i])
			stats[i] = weighted(st, sg.roll.Len(), owner[i].pn)
			// Learnt: its observations go now, not at the phase's end
			// (with a lag the next interval's are being recorded), their
			// buffers to the next decisions (the learner's segment
			// dropped them at its Backward).
			for _, st := range sg.roll.Steps {
				recycle(st.Obs)
			}
			sg.reset()
			l.release()
		}
	}
	// The calling goroutine is the first worker; the borrowed ones start
	// beside it.
	var wg conc.WaitGroup
	for _, l := range ls[1:] {
		wg.Go(func() { work(l) })
	}
	work(ls[0])
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return todo, owner, stats, ctx.Err()
}

// learners returns w learners over the behaviour values (hold).
func (tr *trainer) learners(w int) []*learner {
	for len(tr.workers) < w {
		net := newNetwork(tr.pol.net.cfg, rand.New(rand.NewPCG(0, 0)))
		tr.workers = append(tr.workers, &learner{e: newEvaluator(net, tr.e.cg), recorded: true})
	}
	tr.holdInit()
	for _, l := range tr.workers[:w] {
		for i, p := range l.e.net.ps.List() {
			p.Data = tr.behav[i]
		}
		l.e.gen = tr.behavGen
	}
	return tr.workers[:w]
}

// holdInit allocates the behaviour values.
func (tr *trainer) holdInit() {
	if tr.behav != nil {
		return
	}
	for _, p := range tr.pol.net.ps.List() {
		tr.behav = append(tr.behav, make([]float64, len(p.Data)))
	}
}

// hold copies the parameters' values and generation into the behaviour
// values, which the next phase's learners read: those of the decisions
// just made.
func (tr *trainer) hold() {
	tr.holdInit()
	for i, p := range tr.pol.net.ps.List() {
		copy(tr.behav[i], p.Data)
	}
	tr.behavGen = tr.e.gen
}

// gather adds each rollout's gradient of the segments phase learned
// (todo, their owners and losses), summed on its own, onto the
// parameters' in rollout order: the bits a rollout stepped in another
// process (spread.go) returns and the driver adds. Each rollout's curve
// takes its pending return and its losses weighted by its segments'
// lengths. It returns the number of rollouts that contributed.
func (tr *trainer) gather(todo []*segment, owner []*rollout, stats []rl.UpdateStats) int {
	ps := tr.pol.net.ps.List()
	size := gradSize(ps)
	contrib := 0
	for i := 0; i < len(todo); {
		j := i + 1
		for j < len(todo) && owner[j] == owner[i] {
			j++
		}
		tr.acc = rolloutGrad(tr.acc, tr.grads[i:j], size)
		addGrad(ps, tr.acc)
		r := owner[i]
		r.account(r.pret, learnt(stats[i:j]), r.pn)
		contrib++
		i = j
	}
	return contrib
}

// moved tells every cache that the parameters moved: every cached
// embedding and recorded evaluation is stale.
func (tr *trainer) moved(rs []*rollout) {
	tr.e.gen++
	for _, e := range tr.evals {
		e.gen = tr.e.gen
	}
	for _, r := range rs {
		if !r.done {
			r.a.paramsMoved()
		}
	}
}

// step takes the optimiser step on the sum of contrib rollouts'
// gradients the parameters hold: on their mean, one rollout's scale,
// whatever their number.
func (tr *trainer) step(contrib int) {
	if contrib > 1 {
		for _, q := range tr.pol.net.ps.List() {
			floats.Scale(1/float64(contrib), q.Grad)
		}
	}
	tr.opt.Step()
}

// weighted is the losses of a segment of n steps, learnt (u), weighted
// by its share of its rollout's steps, of; learnt sums them.
func weighted(u rl.UpdateStats, n, of int) rl.UpdateStats {
	k := float64(n) / float64(of)
	return rl.UpdateStats{PolicyLoss: k * u.PolicyLoss, ValueLoss: k * u.ValueLoss, Entropy: k * u.Entropy}
}

// learnt is the losses of a rollout's segments learnt (stats, in order,
// as weighted left them): summed before they join its curve's sums.
func learnt(stats []rl.UpdateStats) rl.UpdateStats {
	var u rl.UpdateStats
	for _, st := range stats {
		u.PolicyLoss += st.PolicyLoss
		u.ValueLoss += st.ValueLoss
		u.Entropy += st.Entropy
	}
	return u
}

// reset empties the segment.
func (sg *segment) reset() {
	sg.roll.Reset()
	sg.jobs = sg.jobs[:0]
}

// account adds an update's return, losses and steps learned to the
// rollout's curve.
func (r *rollout) account(ret float64, upd rl.UpdateStats, n int) {
	r.c.Return += ret
	r.c.PolicyLoss += upd.PolicyLoss
	r.c.ValueLoss += upd.ValueLoss
	r.c.Entropy += upd.Entropy
	r.updates++
	r.learned += n
}

// rolloutGrad is one rollout's gradient: the sum from zero, in agent
// order, of its segments' (grads, as learn left them), in acc (reused
// when large enough), of size entries. It clears each segment's
// gradient once added, while it is in cache, for the next phase's
// takeGrad.
func rolloutGrad(acc []float64, grads [][]float64, size int) []float64 {
	if cap(acc) < size {
		acc = make([]float64, size)
	}
	acc = acc[:size]
	clear(acc)
	for _, g := range grads {
		floats.Add(acc, g[:size])
		clear(g[:size])
	}
	return acc
}

// addGrad adds a flat gradient g onto the parameters' gradients,
// parameter after parameter.
func addGrad(ps []*nn.Param, g []float64) {
	for _, q := range ps {
		floats.Add(q.Grad, g[:len(q.Grad)])
		g = g[len(q.Grad):]
	}
}

// gradSize is the number of parameters.
func gradSize(ps []*nn.Param) int {
	n := 0
	for _, q := range ps {
		n += len(q.Grad)
	}
	return n
}
