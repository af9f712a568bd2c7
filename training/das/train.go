package das

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// Stage is the name every DAS random stream is derived under
// (pipeline.Rand(seed, Stage, ...)).
const Stage = "train-das"

// The DAS trainings' own key parts under Stage, beside the families'
// shared ones (training.KeyInit, ...): the critics' initialisations and
// the untrained model's draws.
const (
	keyQCriticInit pipeline.Key = "qcritic-init"
	keyCriticInit  pipeline.Key = "critic-init"
	keyUntrained   pipeline.Key = "untrained"
)

// TrainOptions are the inputs of a training run besides its Config.
type TrainOptions struct {
	Cluster     *sim.Cluster
	ClusterName string     // for the curves (e.g. "small")
	Sim         sim.Config // the simulator episodes run in
	// Interference is the speed model of every simulation (nil:
	// sim.DefaultInterference).
	Interference sim.Interference
	Seed         uint64
	// OnEpisode, if set, is called after every training episode (and its
	// validation, if any) with that episode's curve rows.
	OnEpisode func(lr float64, rows []training.Curve)
	// Resume, if set, keeps the training's state after every episode and
	// continues from the state a previous attempt kept (resume.go).
	Resume *training.Resume
}

// Evaluation is what the deterministic policy achieved on a job set.
type Evaluation struct {
	Return  float64     `json:"return"`
	Metrics sim.Metrics `json:"metrics"`
	// Decisions taken, and the share of them that placed other jobs or
	// on other servers than FIFO-FirstFit would have on the same state.
	Decisions int     `json:"decisions"`
	NotFIFO   float64 `json:"not_fifo"`
}

// RunResult is one training run at one learning rate.
type RunResult struct {
	LR       float64
	Model    *Model
	Curves   []training.Curve
	InitVal  Evaluation // the untrained initialisation on the validation jobs
	FinalVal Evaluation // the trained policy on the validation jobs
}

// Result is a whole training: one run per learning rate of the grid, and
// the one chosen by validation (lowest mean JCT of the final policy).
type Result struct {
	Runs   []RunResult
	Chosen int
	// Untrained is the untrained reference (UntrainedReference) on the
	// validation jobs: how far from FIFO-FirstFit a policy that learned
	// nothing already decides, the share a trained one must exceed.
	Untrained Evaluation
}

// Best is the chosen run.
func (r *Result) Best() *RunResult { return &r.Runs[r.Chosen] }

// Train trains one model per learning rate of cfg.LearningRates on
// split.Train with MAPPO, validates on split.Val, and picks the rate whose
// final policy has the lowest validation mean JCT. Every run starts from
// the same initialisation (pipeline.Rand(seed, Stage, training.KeyInit)); episode
// sampling and minibatches draw from streams keyed by the rate. The same
// inputs and seed give bit-identical models.
func Train(ctx context.Context, cfg Config, split daspaper.Split, opts TrainOptions) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Cluster == nil {
		return nil, errors.New("das: Train: no cluster")
	}
	if len(split.Train) == 0 || len(split.Val) == 0 {
		return nil, errors.New("das: Train: empty training or validation jobs")
	}
	res := &Result{}
	var saved resumeState
	_, resumed, err := opts.Resume.LoadState("das", resumeKey(cfg), &saved)
	if err != nil {
		return nil, err
	}
	if len(saved.Done) > len(cfg.LearningRates) {
		return nil, fmt.Errorf("das: %w: %d learning rates done, the grid has %d", training.ErrResumeMismatch, len(saved.Done), len(cfg.LearningRates))
	}
	for _, d := range saved.Done {
		r, err := d.finished(cfg, opts.Seed)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, r)
	}
	// One validation run, repeated on resume: it is the same at every rate.
	ref := UntrainedReference(cfg, opts.Seed)
	if res.Untrained, err = Evaluate(ctx, ref, opts.Cluster, opts.Sim, opts.Interference, split.ValJobs(cfg.ValJobs), split.Norm); err != nil {
		return nil, err
	}
	for i, lr := range cfg.LearningRates[len(res.Runs):] {
		i += len(saved.Done)
		var cur *runState
		if resumed && i == len(saved.Done) {
			cur = &saved.Cur
		}
		var save func(runState) error
		if opts.Resume != nil {
			save = func(st runState) error {
				all := resumeState{Cur: st}
				for _, r := range res.Runs {
					all.Done = append(all.Done, doneRun{LR: r.LR, Params: r.Model.ps.Values(), Curves: r.Curves, InitVal: r.InitVal, FinalVal: r.FinalVal})
				}
				return opts.Resume.SaveState("das", resumeKey(cfg), i*cfg.Episodes+st.Ep, len(cfg.LearningRates)*cfg.Episodes, all)
			}
		}
		run, err := trainRun(ctx, cfg, split, opts, lr, res.Untrained.NotFIFO, cur, save)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, *run)
	}
	for i, r := range res.Runs {
		if r.FinalVal.Metrics.MeanJCTS < res.Runs[res.Chosen].FinalVal.Metrics.MeanJCTS {
			res.Chosen = i
		}
	}
	return res, nil
}

// UntrainedReference is what a network that learned nothing decides: the
// model every training starts from (the stream training.KeyInit), its ranking heads,
// which start at zero, drawn from N(0, untrainedScale²) (the stream
// "untrained"). The zero heads tie every job and machine, and the decoder
// breaks ties as FIFO-FirstFit does; any training, even at a learning rate
// of 1e-12, moves the heads off zero and breaks them by whatever the
// trunk's features rank first. The reference's share of decisions unlike
// FIFO-FirstFit's is that of such a policy: a trained model that is no
// further from FIFO-FirstFit did not learn to schedule.
func UntrainedReference(cfg Config, seed uint64) *Model {
	m := NewModel(cfg, pipeline.Rand(seed, Stage, training.KeyInit))
	rng := pipeline.Rand(seed, Stage, keyUntrained)
	for _, w := range m.rankingHeads() {
		for i := range w.Data {
			w.Data[i] = untrainedScale * rng.NormFloat64()
		}
	}
	return m
}

// trainRun trains at one learning rate; from cur, if not nil, a state
// save (if not nil) kept after an episode of an earlier attempt. Its
// validation rows carry untrained, the untrained reference's share of
// decisions unlike FIFO-FirstFit's.
func trainRun(ctx context.Context, cfg Config, split daspaper.Split, opts TrainOptions, lr, untrained float64, cur *runState, save func(runState) error) (*RunResult, error) {
	key := strconv.FormatFloat(lr, 'g', -1, 64)
	m := NewModel(cfg, pipeline.Rand(opts.Seed, Stage, training.KeyInit))
	M := len(opts.Cluster.Servers)
	ord := &orderAgent{m: m, opt: newAgentAdam(m, lr, cfg.MaxGradNorm)}
	plc := &placeAgent{m: m, opt: newAgentAdam(m, lr, cfg.MaxGradNorm)}
	crit := newCritic(cfg, M, lr, pipeline.Rand(opts.Seed, Stage, keyCriticInit))
	mappo := &rl.MAPPO[*Obs]{Actors: []rl.ActorCritic[*Obs]{ord, plc}, Critic: crit, Config: cfg.MAPPO}
	streams := newRunStreams(opts.Seed, key)
	segRng, actRng, updRng := rand.New(streams.seg), rand.New(streams.act), rand.New(streams.upd)
	var a1 *algorithm1
	if cfg.Trainer == TrainerAlgorithm1 {
		a1 = newAlgorithm1(cfg, m, ord, plc, M, lr, opts.Seed, updRng)
	}
	val := split.ValJobs(cfg.ValJobs)
	run := &RunResult{LR: lr, Model: m}
	start := 0
	if cur != nil {
		if err := cur.restore(run, ord, plc, crit, mappo, a1, streams); err != nil {
			return nil, err
		}
		start = cur.Ep
	} else {
		var err error
		if run.InitVal, err = Evaluate(ctx, m, opts.Cluster, opts.Sim, opts.Interference, val, split.Norm); err != nil {
			return nil, err
		}
		run.FinalVal = run.InitVal
	}
	base := training.Curve{Family: "das", Variant: cfg.Variant, Cluster: opts.ClusterName}
	for ep := start; ep < cfg.Episodes; ep++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		seg := daspaper.Segment(split.Train, cfg.SegmentJobs, segRng)
		before := int64(0)
		if a1 != nil {
			before = a1.adam
		}
		out, err := runEpisode(ctx, m, opts.Cluster, opts.Sim, opts.Interference, seg, split.Norm, episodeMode{rng: actRng, collect: a1 == nil, learn: a1})
		if err != nil {
			return nil, fmt.Errorf("das: lr %s episode %d: %w", key, ep, err)
		}
		row := base.Row(ep, "train", out.ret, out.metrics)
		if a1 != nil {
			row.PolicyLoss, row.ValueLoss, row.Entropy = a1.episodeStats()
			row.AdamSteps = a1.adam - before
		} else if out.ord.Len() > 0 {
			stats, vloss := mappo.Update([]*rl.Rollout[*Obs]{out.ord, out.plc}, 0, updRng)
			if err := errors.Join(ord.err, plc.err); err != nil {
				return nil, fmt.Errorf("das: lr %s episode %d: update: %w", key, ep, err)
			}
			row.PolicyLoss = (stats[0].PolicyLoss + stats[1].PolicyLoss) / 2
			row.Entropy = (stats[0].Entropy + stats[1].Entropy) / 2
			row.ValueLoss = vloss
			// The critic fits as many minibatches as an actor.
			row.AdamSteps = int64(2*stats[0].Minibatches + stats[1].Minibatches)
		}
		rows := []training.Curve{row}
		if (ep+1)%cfg.ValidateEvery == 0 || ep == cfg.Episodes-1 {
			ev, err := Evaluate(ctx, m, opts.Cluster, opts.Sim, opts.Interference, val, split.Norm)
			if err != nil {
				return nil, err
			}
			run.FinalVal = ev
			v := base.Row(ep, "validation", ev.Return, ev.Metrics)
			v.NotFIFO, v.UntrainedNotFIFO = &ev.NotFIFO, &untrained
			rows = append(rows, v)
		}
		run.Curves = append(run.Curves, rows...)
		if opts.OnEpisode != nil {
			opts.OnEpisode(lr, rows)
		}
		if save != nil {
			if err := save(capture(ep+1, run, ord, plc, crit, mappo, a1, streams)); err != nil {
				return nil, err
			}
		}
	}
	return run, nil
}

// Evaluate runs the deterministic policy (means, no sampling) of m on
// jobs and reports its return and the simulator's metrics.
func Evaluate(ctx context.Context, m *Model, c *sim.Cluster, sc sim.Config, model sim.Interference, jobs []datasets.Job, norm daspaper.RewardNorm) (Evaluation, error) {
	out, err := runEpisode(ctx, m, c, sc, model, jobs, norm, episodeMode{fifo: true})
	if err != nil {
		return Evaluation{}, fmt.Errorf("das: evaluate: %w", err)
	}
	ev := Evaluation{Return: out.ret, Metrics: out.metrics, Decisions: out.decisions}
	if out.decisions > 0 {
		ev.NotFIFO = float64(out.notFIFO) / float64(out.decisions)
	}
	return ev, nil
}

type episodeOut struct {
	ret      float64
	metrics  sim.Metrics
	ord, plc *rl.Rollout[*Obs]
	// decisions taken, and how many of them placed other jobs or on other
	// servers than FIFO-FirstFit would have (episodeMode.fifo).
	decisions, notFIFO int
}

// episodeMode says how runEpisode acts and learns.
type episodeMode struct {
	rng     *rand.Rand  // sample actions from it (training); nil: the means
	collect bool        // keep every decision in the rollouts (MAPPO)
	learn   *algorithm1 // learn after every decision (Algorithm 1)
	fifo    bool        // compare every decision with FIFO-FirstFit's
}

// runEpisode drives the simulator with the policy over jobs. With rng the
// agents sample (training); with collect every decision is stored as a
// step of each agent's rollout, with learn it is learnt from as soon as
// its reward is known; the reward of a decision is Eq. 3 over what
// happened until the next one.
func runEpisode(ctx context.Context, m *Model, c *sim.Cluster, sc sim.Config, model sim.Interference, jobs []datasets.Job, norm daspaper.RewardNorm, mode episodeMode) (episodeOut, error) {
	rng, collect := mode.rng, mode.collect || mode.learn != nil
	out := episodeOut{ord: &rl.Rollout[*Obs]{}, plc: &rl.Rollout[*Obs]{}}
	s, err := sim.New(c, jobs, sc, model)
	if err != nil {
		return out, err
	}
	fifo := schedulers.NewGreedy("fifo-firstfit", schedulers.FIFO, schedulers.FirstFit{})
	var t nn.Tape
	var hist []*HistEntry
	var times []float64 // decision instants
	last := -1
	lastNow := 0.0
	for {
		st, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		times = append(times, st.Now)
		if last >= 0 && m.cfg.Reward == RewardEq3 {
			r := reward(st.Since.Finished, st.Since.Unplaced, norm, m.cfg)
			out.ret += r
			if collect {
				out.ord.Steps[last].Reward = r
				out.plc.Steps[last].Reward = r
			}
		}
		o, chosen := observe(st, m.cfg.Jobs, rng)
		o.Hist = hist
		ag := m.act(&t, o, rng)
		pl, placed, err := decode(st, chosen, ag)
		if err != nil {
			return out, err
		}
		d := &ag.d
		o.Placed = placed
		out.decisions++
		if mode.fifo {
			ff, err := fifo.Schedule(ctx, st)
			if err != nil {
				return out, err
			}
			if !samePlacements(pl, ff) {
				out.notFIFO++
			}
		}
		if err := s.Apply(pl); err != nil {
			return out, err
		}
		lastNow = st.Now
		if collect {
			vec := make([]float64, 0, len(placed)*o.M)
			lp := 0.0
			for _, r := range placed {
				vec = append(vec, d.aff[r]...)
				lp += d.affLogp[r]
			}
			out.ord.Add(rl.Step[*Obs]{Obs: o, Action: rl.Action{Vec: d.prio}, LogProb: d.prioLogp})
			out.plc.Add(rl.Step[*Obs]{Obs: o, Action: rl.Action{Vec: vec}, LogProb: lp})
			last = out.ord.Len() - 1
			if mode.learn != nil && last > 0 {
				if err := mode.learn.learn(out.ord.Steps[last-1], out.plc.Steps[last-1], o, ag); err != nil {
					return out, fmt.Errorf("das: at t=%gs: %w", st.Now, err)
				}
				// Learnt from: drop the step's observation.
				out.ord.Steps[last-1], out.plc.Steps[last-1] = rl.Step[*Obs]{}, rl.Step[*Obs]{}
			}
		} else {
			last = 0
		}
		hist = pushHistory(hist, ag, placed, m.cfg.History)
	}
	res := s.Result()
	out.metrics = res.Metrics
	// Jobs that finished after the last decision reward it.
	var tail []sim.JobResult
	for _, j := range res.Jobs {
		if j.FinishS > lastNow {
			tail = append(tail, j)
		}
	}
	if last >= 0 && m.cfg.Reward == RewardJCT {
		rs := timeInSystem(res.Jobs, times, norm)
		for _, r := range rs {
			out.ret += r
		}
		if collect {
			for i, r := range rs {
				out.ord.Steps[i].Reward = r
				out.plc.Steps[i].Reward = r
			}
			out.ord.Steps[last].Done = true
			out.plc.Steps[last].Done = true
		}
	} else if last >= 0 {
		r := reward(tail, nil, norm, m.cfg)
		out.ret += r
		if collect {
			out.ord.Steps[last].Reward = r
			out.plc.Steps[last].Reward = r
			out.ord.Steps[last].Done = true
			out.plc.Steps[last].Done = true
		}
		if mode.learn != nil {
			if err := mode.learn.learn(out.ord.Steps[last], out.plc.Steps[last], nil, nil); err != nil {
				return out, fmt.Errorf("das: end of episode: %w", err)
			}
		}
	}
	return out, nil
}

// samePlacements reports whether two decisions start the same jobs on
// the same servers (in any order of jobs).
func samePlacements(a, b []sim.Placement) bool {
	if len(a) != len(b) {
		return false
	}
	servers := make(map[int][]sim.Slot, len(a))
	for _, p := range a {
		servers[p.Job] = p.Slots
	}
	for _, p := range b {
		s, ok := servers[p.Job]
		if !ok || len(s) != len(p.Slots) {
			return false
		}
		for i := range s {
			if s[i].Server != p.Slots[i].Server {
				return false
			}
		}
	}
	return true
}

// timeInSystem is the "jct" reward of each decision: minus the seconds
// that jobs spent between submission and finish within [t_k, t_{k+1})
// (the last interval open-ended), over the mean standalone duration.
func timeInSystem(jobs []sim.JobResult, times []float64, norm daspaper.RewardNorm) []float64 {
	rs := make([]float64, len(times))
	for _, j := range jobs {
		// The decisions whose intervals the job overlaps.
		k := max(0, sort.SearchFloat64s(times, j.SubmitS)-1)
		for ; k < len(times) && times[k] < j.FinishS; k++ {
			hi := j.FinishS
			if k+1 < len(times) {
				hi = min(hi, times[k+1])
			}
			if lo := max(j.SubmitS, times[k]); hi > lo {
				rs[k] -= (hi - lo) / norm.JCTS
			}
		}
	}
	return rs
}
