package das

import (
	"errors"
	"fmt"
	"math"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/training/rl"
)

// Variants of the ablation study (DAS Table 1, bottom rows). They are
// switches of one implementation: MC turns the squeeze-and-communicate gate
// on, RWGP replaces the MLP placement head by the Random-Walk Gaussian
// Process.
const (
	VariantDA     = "da"      // no gate, MLP placement
	VariantDAMC   = "da+mc"   // gate, MLP placement
	VariantDARWGP = "da+rwgp" // no gate, RWGP placement
	VariantDAS    = "das"     // gate and RWGP: the full model
)

// Trainers: how the agents learn from the decisions they take.
const (
	// TrainerAlgorithm1 is the DAS paper's Algorithm 1: an update of the
	// critic and both agents at every decision, the critic a Q-function of
	// observation and both actions (Eq. 15) regressed on the target
	// policy's TD target (Eq. 16), the agents on the clipped surrogate
	// against the target policy (Eq. 17), the targets refreshed every
	// MAPPO.TargetEvery (z) decisions.
	TrainerAlgorithm1 = "algorithm1"
	// TrainerMAPPO is one MAPPO update per episode: a state-value critic,
	// GAE over the episode, MAPPO.PPO.Epochs passes of minibatches.
	TrainerMAPPO = "mappo"
)

// Rewards.
const (
	RewardEq3 = "eq3"
	RewardJCT = "jct"
)

// Variants lists the variant names, the full model first.
func Variants() []string { return []string{VariantDAS, VariantDA, VariantDAMC, VariantDARWGP} }

// Config is everything that fixes a DAS model and its training. The
// architecture fields (Variant, Jobs, Hidden, Heads, History, WalkLength)
// decide the checkpoint layout; the rest only how it is trained. Start
// from DefaultConfig; Validate before use.
type Config struct {
	Variant string `json:"variant"`
	// Jobs is N, the pending jobs the ordering agent sees; more are
	// sampled (training) or the N longest-waiting taken (evaluation),
	// fewer are padded and masked.
	Jobs       int `json:"jobs"`
	Hidden     int `json:"hidden"`      // e
	Heads      int `json:"heads"`       // h
	History    int `json:"history"`     // τ: placements the GP conditions on
	WalkLength int `json:"walk_length"` // L: random-walk terms kept (ℓ = 0..L)
	// MinStd floors the standard deviation of the placement affinities,
	// so that a confident GP posterior still explores a little and the
	// log-probabilities stay finite.
	MinStd float64 `json:"min_std"`

	// Reward is "eq3", the paper's Eq. 3, or "jct": minus the time every
	// job spent in the system (waiting or running) between a decision
	// and the next, over the mean standalone duration, whose sum over an
	// episode is −Σ JCT / mean duration: mean JCT exactly, as a dense
	// reward.
	Reward string `json:"reward"`
	// Alpha is α of Eq. 3, the penalty weight per GPU of a job left
	// pending.
	Alpha float64 `json:"alpha"`
	// RewardCap bounds a finished job's term 1/(fee·JCT) (both scaled by
	// their training-set means): a job with a near-zero fee would
	// otherwise dominate the return.
	RewardCap float64 `json:"reward_cap"`

	// Trainer is TrainerAlgorithm1 or TrainerMAPPO. Both read MAPPO's γ,
	// clip, entropy weight and z; only TrainerMAPPO its λ, epochs and
	// minibatch.
	Trainer string         `json:"trainer"`
	MAPPO   rl.MAPPOConfig `json:"mappo"`
	// LearningRates is the grid searched by validation (the paper's
	// {1e-4, 5e-5, 1e-5, 5e-6, 1e-6}); one value trains once.
	LearningRates []float64 `json:"learning_rates"`
	MaxGradNorm   float64   `json:"max_grad_norm"`
	Episodes      int       `json:"episodes"`
	// SegmentJobs is the jobs per training episode (1000 in the paper): a
	// random window of consecutive jobs of the training split.
	SegmentJobs int `json:"segment_jobs"`
	// MaxJobs is the jobs of the trace used (the first 20,000 by
	// submission in the paper), after pruning those that cannot fit.
	MaxJobs int `json:"max_jobs"`
	// ValFraction is the share of MaxJobs, the latest by submission, kept
	// for validation (0.2: the paper's 8:2 split).
	ValFraction float64 `json:"val_fraction"`
	// ValJobs caps the validation jobs simulated after each episode (the
	// first of the validation split); 0 means all.
	ValJobs int `json:"val_jobs"`
	// ValidateEvery is the episodes between validations (the last episode
	// is always validated).
	ValidateEvery int `json:"validate_every"`
}

// DefaultConfig is the paper's setting (§5.1.3, Appendix D): e = 64,
// h = 4, τ = 8, α = 0.1, Algorithm 1 with γ 0.98, entropy 0.03, clip 0.2,
// target copy every z = 2 decisions, episodes of 1000 jobs, the
// learning-rate grid.
// N = 128 and L = 8 are ours (the paper states neither). N bounds how far
// past blocked jobs the policy can look: on the PAI subset and the Small
// cluster the untrained policy (FIFO first-fit within the window) has a
// validation mean JCT of 539, 425 and 397 min at N = 32, 64 and 128, the
// last equal to FIFO first-fit over every pending job. β^L/L! < 3e-5 at
// β = 1.
func DefaultConfig() Config {
	m := rl.DefaultMAPPOConfig()
	return Config{
		Variant: VariantDAS, Jobs: 128, Hidden: 64, Heads: 4, History: 8, WalkLength: 8, MinStd: 0.1,
		Reward: RewardEq3, Alpha: 0.1, RewardCap: 10,
		Trainer:       TrainerAlgorithm1,
		MAPPO:         m,
		LearningRates: []float64{1e-4, 5e-5, 1e-5, 5e-6, 1e-6},
		MaxGradNorm:   1, Episodes: 50, SegmentJobs: 1000, MaxJobs: 20000, ValFraction: 0.2,
		ValJobs: 0, ValidateEvery: 1,
	}
}

func (c Config) gated() bool { return c.Variant == VariantDAMC || c.Variant == VariantDAS }
func (c Config) rwgp() bool  { return c.Variant == VariantDARWGP || c.Variant == VariantDAS }

// Validate reports every unusable setting, naming its key.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("das."+format, a...)) }
	switch c.Variant {
	case VariantDA, VariantDAMC, VariantDARWGP, VariantDAS:
	default:
		bad("variant: %q is not one of %v", c.Variant, Variants())
	}
	if c.Jobs < 1 {
		bad("jobs: must be ≥ 1, got %d", c.Jobs)
	}
	if c.Heads < 1 {
		bad("heads: must be ≥ 1, got %d", c.Heads)
	} else if c.Hidden < 1 || c.Hidden%c.Heads != 0 {
		bad("hidden: must be a positive multiple of heads (%d), got %d", c.Heads, c.Hidden)
	}
	if c.History < 1 {
		bad("history: must be ≥ 1, got %d", c.History)
	}
	if c.WalkLength < 1 || c.WalkLength > 30 {
		bad("walk_length: must be in [1, 30], got %d", c.WalkLength)
	}
	if !(c.MinStd > 0 && c.MinStd < 1) {
		bad("min_std: must be in (0, 1), got %v", c.MinStd)
	}
	if c.Reward != RewardEq3 && c.Reward != RewardJCT {
		bad("reward: must be %q or %q, got %q", RewardEq3, RewardJCT, c.Reward)
	}
	switch c.Trainer {
	case TrainerMAPPO:
	case TrainerAlgorithm1:
		if c.Reward != RewardEq3 {
			bad("reward: %q is known only at the episode's end; trainer %q updates at every decision and needs %q", c.Reward, c.Trainer, RewardEq3)
		}
	default:
		bad("trainer: must be %q or %q, got %q", TrainerAlgorithm1, TrainerMAPPO, c.Trainer)
	}
	if !(c.Alpha >= 0) || math.IsInf(c.Alpha, 0) {
		bad("alpha: must be ≥ 0 and finite, got %v", c.Alpha)
	}
	if !(c.RewardCap > 0) || math.IsInf(c.RewardCap, 0) {
		bad("reward_cap: must be > 0 and finite, got %v", c.RewardCap)
	}
	if err := c.MAPPO.Validate(); err != nil {
		bad("mappo: %w", err)
	}
	if len(c.LearningRates) == 0 {
		bad("learning_rates: need at least one")
	}
	for i, lr := range c.LearningRates {
		if !(lr > 0) || math.IsInf(lr, 0) {
			bad("learning_rates[%d]: must be > 0 and finite, got %v", i, lr)
		}
	}
	if !(c.MaxGradNorm >= 0) || math.IsInf(c.MaxGradNorm, 0) {
		bad("max_grad_norm: must be ≥ 0 and finite, got %v", c.MaxGradNorm)
	}
	if c.Episodes < 0 {
		bad("episodes: must be ≥ 0, got %d", c.Episodes)
	}
	if c.SegmentJobs < 1 {
		bad("segment_jobs: must be ≥ 1, got %d", c.SegmentJobs)
	}
	if c.MaxJobs < 2 {
		bad("max_jobs: must be ≥ 2, got %d", c.MaxJobs)
	}
	if !(c.ValFraction > 0 && c.ValFraction < 1) {
		bad("val_fraction: must be in (0, 1), got %v", c.ValFraction)
	}
	if c.ValJobs < 0 {
		bad("val_jobs: must be ≥ 0, got %d", c.ValJobs)
	}
	if c.ValidateEvery < 1 {
		bad("validate_every: must be ≥ 1, got %d", c.ValidateEvery)
	}
	return errors.Join(errs...)
}

// Hash is the sha256 of the configuration's JSON: it names the run that
// produced a checkpoint and is stored beside it.
func (c Config) Hash() string {
	h, err := pipeline.HashJSON(c)
	if err != nil {
		panic("das: config not serialisable: " + err.Error())
	}
	return h
}
