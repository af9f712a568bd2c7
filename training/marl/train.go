package marl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
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
	// Borrow, if not nil, lends the learner one more worker
	// (pipeline.BorrowWorker) each time it asks, ok false when none is
	// idle: an interval's update learns the agents' segments on its own
	// goroutine and on one more for every worker it borrows, up to
	// GOMAXPROCS in all, and releases them at the update's end. Nil: up
	// to GOMAXPROCS goroutines, unasked. How many run never changes a bit
	// (trainer.learn).
	Borrow func() (release func(), ok bool)
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
// gradients of all agents' rollouts are summed and Adam takes one step.
// The last interval of an episode has no next decision point to measure
// its rewards at and is not learned from.
func Train(ctx context.Context, cfg Config, opts TrainOptions) (*Policy, []training.Curve, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("marl: %w", err)
	}
	if opts.Cluster == nil || len(opts.Train) == 0 {
		return nil, nil, errors.New("marl: Train needs a cluster and training jobs")
	}
	simCfg := opts.Sim
	if simCfg.IntervalS == 0 {
		simCfg.IntervalS = 1800
	}
	simCfg.Trigger = sim.TriggerInterval
	if err := simCfg.Validate(); err != nil {
		return nil, nil, err
	}
	pol := opts.Init
	if pol == nil {
		var err error
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
		opt:  nn.NewAdam(pol.net.ps, nn.AdamConfig{LR: cfg.LR, MaxGradNorm: cfg.MaxGradNorm}),
		segs: make([]segment, len(cg.parts)),
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
	for ep := saved.Ep; ep < cfg.Episodes; ep++ {
		c, err := tr.episode(ctx, opts, simCfg, ep)
		if err != nil {
			return nil, nil, err
		}
		emit(c)
		if cfg.ValidateEvery > 0 && ((ep+1)%cfg.ValidateEvery == 0 || ep+1 == cfg.Episodes) {
			if err := validate(ep); err != nil {
				return nil, nil, err
			}
		}
		if opts.Resume != nil {
			st := resumeState{Ep: ep + 1, Params: pol.net.ps.Values(), Opt: tr.opt.State(), Curves: curves}
			if err := opts.Resume.SaveState("marl", resumeKey(cfg), ep+1, cfg.Episodes, st); err != nil {
				return nil, nil, err
			}
		}
	}
	return pol, curves, nil
}

// segment is one agent's decisions of one interval.
type segment struct {
	roll rl.Rollout[*obs]
	jobs []int
}

type trainer struct {
	cfg  Config
	pol  *Policy
	e    *evaluator
	opt  *nn.Adam
	segs []segment
	jobs []datasets.Job // of the running episode, indexed as the simulator does
	// workers learn the agents' segments of an interval side by side
	// (update), each over a network of its own whose parameters share the
	// policy's values but not its gradients; grads[p] receives agent p's
	// gradient, and the policy's is their sum in agent order, so neither
	// the number of workers nor which one learned a segment changes a bit.
	workers []*learner
	grads   [][]float64
	borrow  func() (release func(), ok bool) // TrainOptions.Borrow
}

func (tr *trainer) episode(ctx context.Context, opts TrainOptions, simCfg sim.Config, ep int) (training.Curve, error) {
	s, err := sim.New(opts.Cluster, opts.Train, simCfg, opts.Interference)
	if err != nil {
		return training.Curve{}, err
	}
	rng := pipeline.Rand(opts.Seed, "train", "marl", tr.cfg.Variant, "episode", strconv.Itoa(ep))
	tr.jobs = opts.Train
	a := newActor(tr.e, tr.cfg.Jobs, rng, false)
	a.record = func(d decision) {
		sg := &tr.segs[d.agent]
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
	for p := range tr.segs {
		tr.segs[p].roll.Reset()
		tr.segs[p].jobs = tr.segs[p].jobs[:0]
	}
	var c training.Curve
	c.Episode, c.Split = int32(ep), "train"
	updates := 0
	for {
		st, err := s.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return c, fmt.Errorf("marl: episode %d: %w", ep, err)
		}
		if st2, ok := tr.update(a, st); ok {
			c.Return += st2.ret
			c.PolicyLoss += st2.PolicyLoss
			c.ValueLoss += st2.ValueLoss
			c.Entropy += st2.Entropy
			updates++
		}
		pl, err := a.decide(ctx, st)
		if err != nil {
			return c, err
		}
		if err := s.Apply(pl); err != nil {
			return c, fmt.Errorf("marl: episode %d: %w", ep, err)
		}
	}
	if updates > 0 {
		c.PolicyLoss /= float64(updates)
		c.ValueLoss /= float64(updates)
		c.Entropy /= float64(updates)
	}
	c.MeanJCT = s.Result().Metrics.MeanJCTS
	return c, nil
}

type updateStats struct {
	rl.UpdateStats
	ret float64
}

// update learns from the previous interval's segments, whose rewards st
// now reveals, and empties them.
func (tr *trainer) update(a *actor, st *sim.State) (updateStats, bool) {
	var out updateStats
	n := 0
	for _, sg := range tr.segs {
		n += sg.roll.Len()
	}
	if n == 0 {
		return out, false
	}
	progress := map[int]float64{}
	span := st.Now - st.Since.FromS
	for _, p := range st.Since.Progress {
		r := p.Fraction
		if tr.cfg.Reward == RewardSpeed && span > 0 {
			r *= tr.jobs[p.Job].DurationS / span
		}
		progress[p.Job] += r
	}
	a.sync(st)
	parts := len(tr.segs)
	first := make([]*sim.JobState, parts)
	for _, js := range st.Pending {
		if p := datasets.PodOf(js.Job, js.Index, parts); first[p] == nil {
			first[p] = js
		}
	}
	pg := rl.PGConfig{Gamma: tr.cfg.Gamma, ValueCoef: tr.cfg.ValueCoef, EntropyCoef: tr.cfg.EntropyCoef}
	var todo []int
	last := make([]float64, parts)
	for p := range tr.segs {
		sg := &tr.segs[p]
		if sg.roll.Len() == 0 {
			continue
		}
		for i := range sg.roll.Steps {
			r := progress[sg.jobs[i]] // 0 for forwards (job −1)
			sg.roll.Steps[i].Reward = r
			out.ret += r
		}
		last[p] = a.value(p, first[p])
		todo = append(todo, p)
	}
	stats := tr.learn(todo, pg, last)
	for _, p := range todo {
		sg := &tr.segs[p]
		k := float64(sg.roll.Len()) / float64(n)
		out.PolicyLoss += k * stats[p].PolicyLoss
		out.ValueLoss += k * stats[p].ValueLoss
		out.Entropy += k * stats[p].Entropy
		sg.roll.Reset()
		sg.jobs = sg.jobs[:0]
	}
	tr.opt.Step()
	// The parameters moved: every cached embedding and recorded
	// evaluation is stale.
	tr.e.gen++
	a.paramsMoved()
	return out, true
}

// learn runs the A2C update of the segments of agents todo (in order),
// their bootstrap values last, on up to GOMAXPROCS workers (the calling
// goroutine's and those TrainOptions.Borrow lends), and leaves the sum of
// their gradients, in agent order, on the policy's parameters.
func (tr *trainer) learn(todo []int, pg rl.PGConfig, last []float64) []rl.UpdateStats {
	stats := make([]rl.UpdateStats, len(tr.segs))
	if len(todo) == 0 {
		return stats
	}
	ps := tr.pol.net.ps.List()
	if tr.grads == nil {
		tr.grads = make([][]float64, len(tr.segs))
	}
	w := 1
	for want := min(runtime.GOMAXPROCS(0), len(todo)); w < want; w++ {
		if tr.borrow == nil {
			continue
		}
		release, ok := tr.borrow()
		if !ok {
			break
		}
		defer release()
	}
	for len(tr.workers) < w {
		// The initialisation is overwritten by sharing the policy's
		// values; any stream will do.
		net := newNetwork(tr.pol.net.cfg, rand.New(rand.NewPCG(0, 0)))
		tr.workers = append(tr.workers, &learner{e: newEvaluator(net, tr.e.cg), recorded: true})
	}
	for _, l := range tr.workers[:w] {
		// The values, not copies: the optimiser moves them in place.
		for i, p := range l.e.net.ps.List() {
			p.Data = ps[i].Data
		}
		l.e.gen = tr.e.gen
	}
	var next atomic.Int64
	work := func(l *learner) {
		for {
			i := int(next.Add(1)) - 1
			if i >= len(todo) {
				return
			}
			p := todo[i]
			stats[p] = rl.A2CUpdate[*obs](l, &tr.segs[p].roll, pg, last[p])
			tr.grads[p] = l.takeGrad(tr.grads[p])
		}
	}
	// The calling goroutine is the first worker; the borrowed ones start
	// beside it.
	var wg conc.WaitGroup
	for _, l := range tr.workers[1:w] {
		wg.Go(func() { work(l) })
	}
	work(tr.workers[0])
	wg.Wait()
	for _, p := range todo {
		g := tr.grads[p]
		for _, q := range ps {
			floats.Add(q.Grad, g[:len(q.Grad)])
			g = g[len(q.Grad):]
		}
	}
	return stats
}
