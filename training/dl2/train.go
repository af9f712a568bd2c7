package dl2

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/rl"
)

// Stage names DL²'s random streams.
const Stage = "train-dl2"

// keyWarmup is the key under Stage of the warm-up episodes' draws.
const keyWarmup pipeline.Key = "warmup"

// Evaluation is what the deterministic policy achieved on a job set.
type Evaluation = daspaper.Evaluation

// Result is a training run.
type Result struct {
	Model    *Model
	Curves   []training.Curve
	InitVal  Evaluation // untrained (FIFO first-fit)
	WarmVal  Evaluation // after the supervised warm-up
	FinalVal Evaluation // after RL
}

// TrainOptions are the inputs besides the Config.
type TrainOptions = daspaper.BaselineOptions

// Train warms the policy up on the heuristic's decisions, then trains it
// with PPO on random segments of split.Train, validating after every
// episode on split.Val.
func Train(ctx context.Context, cfg Config, split daspaper.Split, opts TrainOptions) (*Result, error) {
	if err := opts.Check("dl2", cfg, split); err != nil {
		return nil, err
	}
	m := NewModel(cfg, pipeline.Rand(opts.Seed, Stage, training.KeyInit))
	val := split.ValJobs(cfg.ValJobs)
	res := &Result{Model: m}
	s := newStreams(opts.Seed)
	segRng, actRng, updRng := rand.New(s.seg), rand.New(s.act), rand.New(s.upd)
	var saved resumeState
	_, resumed, err := opts.Resume.LoadState("dl2", resumeKey(cfg), &saved)
	if err != nil {
		return nil, err
	}
	if resumed {
		if err := saved.restore(res, s); err != nil {
			return nil, err
		}
	} else {
		if res.InitVal, err = Evaluate(ctx, m, opts.Cluster, opts.Sim, opts.Interference, val, split.Norm); err != nil {
			return nil, err
		}
		if err := warmup(ctx, m, split, opts, segRng); err != nil {
			return nil, err
		}
		if res.WarmVal, err = Evaluate(ctx, m, opts.Cluster, opts.Sim, opts.Interference, val, split.Norm); err != nil {
			return nil, err
		}
		res.FinalVal = res.WarmVal
	}
	loop := daspaper.PPOLoop{
		AC: m, PPO: cfg.PPO, Gamma: cfg.Gamma, Lambda: cfg.Lambda, Updates: updRng,
		Base: training.Curve{Family: "dl2", Variant: "dl2", Cluster: opts.ClusterName},
		Episode: func(ep int) (daspaper.PPOEpisode, error) {
			seg := daspaper.Segment(split.Train, cfg.SegmentJobs, segRng)
			out, err := run(ctx, m, opts.Cluster, opts.Sim, opts.Interference, seg, split.Norm, actRng, nil)
			if err != nil {
				return daspaper.PPOEpisode{}, fmt.Errorf("dl2: episode %d: %w", ep, err)
			}
			return daspaper.PPOEpisode{Return: out.ret, Metrics: out.metrics, Rollout: out.r}, nil
		},
		Validate: func() (Evaluation, error) {
			return Evaluate(ctx, m, opts.Cluster, opts.Sim, opts.Interference, val, split.Norm)
		},
		Final: &res.FinalVal, Curves: &res.Curves, OnEpisode: opts.OnEpisode,
	}
	if opts.Resume != nil {
		loop.Save = func(ep int) error {
			return opts.Resume.SaveState("dl2", resumeKey(cfg), ep+1, cfg.Episodes, capture(ep+1, res, s))
		}
	}
	if err := loop.Run(ctx, saved.Ep, cfg.Episodes); err != nil {
		return nil, err
	}
	return res, nil
}

// warmup is the supervised stage: cross-entropy towards the heuristic's
// picks, and the critic towards the heuristic's discounted returns.
func warmup(ctx context.Context, m *Model, split daspaper.Split, opts TrainOptions, segRng *rand.Rand) error {
	cfg := m.cfg
	if cfg.WarmupEpisodes == 0 || cfg.WarmupEpochs == 0 {
		return nil
	}
	var all rl.Rollout[*Obs]
	for i := 0; i < cfg.WarmupEpisodes; i++ {
		teacher, err := schedulers.New(schedulers.Name(cfg.Heuristic), schedulers.Options{PriceGPUHour: opts.Sim.PriceGPUHour})
		if err != nil {
			return fmt.Errorf("dl2: warm-up: %w", err)
		}
		out, err := run(ctx, m, opts.Cluster, opts.Sim, opts.Interference, daspaper.Segment(split.Train, cfg.SegmentJobs, segRng), split.Norm, nil, teacher)
		if err != nil {
			return fmt.Errorf("dl2: warm-up with %s: %w", cfg.Heuristic, err)
		}
		all.Steps = append(all.Steps, out.r.Steps...)
	}
	n := all.Len()
	if n == 0 {
		return nil
	}
	ret := make([]float64, n)
	rew, done := make([]float64, n), make([]bool, n)
	for i, s := range all.Steps {
		rew[i], done[i] = s.Reward, s.Done
	}
	rl.DiscountedReturns(ret, rew, done, cfg.Gamma)
	rng := pipeline.Rand(opts.Seed, Stage, keyWarmup)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	mb := min(cfg.PPO.Minibatch, n)
	steps := make([]*rl.Step[*Obs], 0, mb)
	lp, ent, val := make([]float64, mb), make([]float64, mb), make([]float64, mb)
	dlp, dent, dval := make([]float64, mb), make([]float64, mb), make([]float64, mb)
	for e := 0; e < cfg.WarmupEpochs; e++ {
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for lo := 0; lo < n; lo += mb {
			idx := perm[lo:min(lo+mb, n)]
			steps = steps[:0]
			for _, i := range idx {
				steps = append(steps, &all.Steps[i])
			}
			b := len(idx)
			m.Evaluate(steps, lp[:b], ent[:b], val[:b])
			for k, i := range idx {
				dlp[k] = -1 / float64(b) // minimise −log π(teacher's pick)
				dent[k] = 0
				dval[k] = 2 * cfg.PPO.ValueCoef * (val[k] - ret[i]) / float64(b)
			}
			m.Backward(dlp[:b], dent[:b], dval[:b])
			m.Step()
		}
	}
	return nil
}

// Evaluate runs the deterministic policy on jobs.
func Evaluate(ctx context.Context, m *Model, c *sim.Cluster, sc sim.Config, model sim.Interference, jobs []datasets.Job, norm daspaper.RewardNorm) (Evaluation, error) {
	out, err := run(ctx, m, c, sc, model, jobs, norm, nil, nil)
	if err != nil {
		return Evaluation{}, fmt.Errorf("dl2: evaluate: %w", err)
	}
	return Evaluation{Return: out.ret, Metrics: out.metrics}, nil
}

type runOut struct {
	ret     float64
	metrics sim.Metrics
	r       *rl.Rollout[*Obs]
}

// run drives one episode: the policy picks (sampling with rng, arg max
// without) or, with a teacher, the teacher decides and its picks are
// recorded as steps.
func run(ctx context.Context, m *Model, c *sim.Cluster, sc sim.Config, model sim.Interference, jobs []datasets.Job, norm daspaper.RewardNorm, rng *rand.Rand, teacher sim.Scheduler) (runOut, error) {
	out := runOut{r: &rl.Rollout[*Obs]{}}
	if err := m.checkCluster(c); err != nil {
		return out, err
	}
	s, err := sim.New(c, jobs, sc, model)
	if err != nil {
		return out, err
	}
	collect := rng != nil || teacher != nil
	n := m.cfg.Jobs
	decide := func(st *sim.State) ([]sim.Placement, error) {
		rows, chosen := daspaper.Observe(st, n, nil)
		led := st.Ledger()
		taken := make([]bool, len(chosen))
		ok := make([]bool, len(chosen))
		obs := func() *Obs {
			for r, js := range chosen {
				ok[r] = !taken[r] && fits(led, js)
			}
			o := &Obs{X: make([]float64, m.cfg.width()), Mask: make([]bool, n)}
			m.features(o, rows, ok, led, st)
			return o
		}
		if teacher != nil {
			tp, err := teacher.Schedule(ctx, st)
			if err != nil {
				return nil, err
			}
			for _, p := range tp {
				r := slices.IndexFunc(chosen, func(js *sim.JobState) bool { return js.Index == p.Job })
				if r >= 0 {
					o := obs()
					if o.Mask[r] {
						out.r.Add(rl.Step[*Obs]{Obs: o, Action: rl.Action{Index: r}})
					}
					taken[r] = true
				}
				js := s.Job(p.Job)
				for i, sl := range p.Slots {
					led.Take(sl.Server, js.Instances[i].Demand)
				}
			}
			return tp, nil
		}
		var pl []sim.Placement
		for {
			o := obs()
			a, lp, v := m.Pick(o, rng)
			if a < 0 {
				break
			}
			js := chosen[a]
			pl = append(pl, sim.Placement{Job: js.Index, Slots: firstFit(led, js)})
			taken[a] = true
			if collect {
				out.r.Add(rl.Step[*Obs]{Obs: o, Action: rl.Action{Index: a}, LogProb: lp, Value: v})
			}
		}
		return pl, nil
	}
	credit := func(r float64, done bool) {
		out.ret += r
		if k := out.r.Len(); collect && k > 0 {
			out.r.Steps[k-1].Reward += r
			out.r.Steps[k-1].Done = out.r.Steps[k-1].Done || done
		}
	}
	res, err := daspaper.Drive(ctx, s, norm, m.cfg.Alpha, m.cfg.RewardCap, decide, credit)
	if err != nil {
		return out, err
	}
	out.metrics = res.Metrics
	return out, nil
}
