package daspaper

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/rl"
)

// Drive runs s to its end, asking decide for each decision point's
// placements, and hands credit each decision interval's Eq. 3 reward
// (norm, alpha, rewardCap) when it ends: the jobs that finished and those
// left unplaced since the decision before it, then, with done set, the
// jobs that finished after the last decision. It returns s's result.
// This is the episode of every RL baseline the DAS paper trains with PPO
// (DL², RIFLING's PPO form): a reward belongs to the last action before
// it.
func Drive(ctx context.Context, s *sim.Sim, norm RewardNorm, alpha, rewardCap float64,
	decide func(*sim.State) ([]sim.Placement, error), credit func(r float64, done bool)) (*sim.Result, error) {
	first, lastNow := true, 0.0
	for {
		st, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !first {
			credit(Eq3(st.Since.Finished, st.Since.Unplaced, norm, alpha, rewardCap), false)
		}
		first = false
		pl, err := decide(st)
		if err != nil {
			return nil, err
		}
		if err := s.Apply(pl); err != nil {
			return nil, err
		}
		lastNow = st.Now
	}
	res := s.Result()
	var tail []sim.JobResult
	for _, j := range res.Jobs {
		if j.FinishS > lastNow {
			tail = append(tail, j)
		}
	}
	credit(Eq3(tail, nil, norm, alpha, rewardCap), true)
	return res, nil
}

// Evaluation is what a baseline's deterministic policy achieved on a job
// set: its return and metrics.
type Evaluation struct {
	Return  float64
	Metrics sim.Metrics
}

// PPOEpisode is one training episode of a PPO baseline: its return, its
// metrics and the steps it sampled.
type PPOEpisode struct {
	Return  float64
	Metrics sim.Metrics
	Rollout *rl.Rollout[*PolicyObs]
}

// PPOLoop is the training loop the DAS paper's PPO baselines share:
// per episode, a sampled run, one PPO update with GAE over its steps, and
// a validation of the deterministic policy, each giving a curve row.
type PPOLoop struct {
	AC            rl.ActorCritic[*PolicyObs]
	PPO           rl.PPOConfig
	Gamma, Lambda float64
	Base          training.Curve // the rows' family, variant and cluster
	Updates       *rand.Rand     // the minibatches' shuffles
	// Episode runs training episode ep, sampling.
	Episode func(ep int) (PPOEpisode, error)
	// Validate runs the deterministic policy on the validation jobs;
	// Final receives each validation.
	Validate func() (Evaluation, error)
	Final    *Evaluation
	// Curves receives each episode's train and validation rows, which
	// OnEpisode (if set) is then told of.
	Curves    *[]training.Curve
	OnEpisode func([]training.Curve)
	// Save, if set, saves the resume state after episode ep.
	Save func(ep int) error
}

// Run trains episodes from to to−1.
func (l PPOLoop) Run(ctx context.Context, from, to int) error {
	for ep := from; ep < to; ep++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := l.Episode(ep)
		if err != nil {
			return err
		}
		row := l.Base.Row(ep, "train", out.Return, out.Metrics)
		if out.Rollout.Len() > 0 {
			out.Rollout.ComputeGAE(l.Gamma, l.Lambda, 0)
			st := rl.PPOUpdate(l.AC, out.Rollout, l.PPO, true, l.Updates)
			row.PolicyLoss, row.ValueLoss, row.Entropy, row.AdamSteps = st.PolicyLoss, st.ValueLoss, st.Entropy, int64(st.Minibatches)
		}
		ev, err := l.Validate()
		if err != nil {
			return err
		}
		*l.Final = ev
		rows := []training.Curve{row, l.Base.Row(ep, "validation", ev.Return, ev.Metrics)}
		*l.Curves = append(*l.Curves, rows...)
		if l.OnEpisode != nil {
			l.OnEpisode(rows)
		}
		if l.Save != nil {
			if err := l.Save(ep); err != nil {
				return err
			}
		}
	}
	return nil
}
