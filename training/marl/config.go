package marl

import (
	"errors"
	"fmt"
	"math"
)

// Variants of the MARL scheduler (MARL paper §VI-A, §VI-E).
const (
	// VariantDevice: one agent per pod; the inner graph has GPU-group and
	// CPU nodes, and the policy picks the GPU group of every task.
	VariantDevice = "device"
	// VariantServer: one agent per pod; the inner graph has server nodes,
	// the policy picks a server and the GPU group is drawn at random among
	// those that fit.
	VariantServer = "server"
	// VariantSingle: one agent over the whole cluster (GPU groups), no
	// inter-scheduler graph and no forwarding.
	VariantSingle = "single"
)

// Variants lists the variant names, the default first.
func Variants() []string { return []string{VariantDevice, VariantServer, VariantSingle} }

// Config is the architecture and training setup of a MARL-GNN scheduler.
// It is plain data; start from DefaultConfig. The fields that shape the
// network (Variant through Hidden) must match between a checkpoint and the
// policy that loads it.
type Config struct {
	Variant string `json:"variant"`
	// Jobs is N, the number of concurrent jobs the observation describes:
	// the job being placed and the N−1 most recently started jobs with
	// tasks in the partition.
	Jobs int `json:"jobs"`
	// InnerDim and InnerLayers: width and depth of the inner-graph ECC
	// stack (the paper: 4 layers).
	InnerDim    int `json:"inner_dim"`
	InnerLayers int `json:"inner_layers"`
	// InterDim is the width of the encoder output z⁰ and of the
	// inter-scheduler ECC layers; InterLayers their number (the paper: 2).
	InterDim    int `json:"inter_dim"`
	InterLayers int `json:"inter_layers"`
	// Hidden is the hidden width of the actor and critic (the paper: 128).
	Hidden int `json:"hidden"`

	// LR is Adam's learning rate. The paper uses 1e-5 over hundreds of
	// epochs at 2000 servers; at our episode budgets (tens of episodes on
	// a scaled-down cluster) that moves the policy too little to measure
	// (see the package documentation), so the default is 1e-3.
	LR float64 `json:"lr"`
	// MaxGradNorm clips the global gradient norm of each update (0: off).
	MaxGradNorm float64 `json:"max_grad_norm"`
	Gamma       float64 `json:"gamma"`        // discount per inference (the paper: 0.9)
	ValueCoef   float64 `json:"value_coef"`   // weight of the critic's δ² loss
	EntropyCoef float64 `json:"entropy_coef"` // entropy bonus (the paper: none)
	// Reward is what a decision earns from its job in the following
	// interval: RewardProgress, the paper's epochs trained / max epochs
	// (the share of the job's work done), or RewardSpeed, that share times
	// the job's standalone duration over the interval length — the job's
	// mean speed relative to standalone, which does not depend on how long
	// the job is (a quantity the observation does not contain).
	Reward string `json:"reward"`
	// Episodes is the number of passes over the training jobs.
	Episodes int `json:"episodes"`
	// ValidateEvery runs the greedy policy on the validation jobs every so
	// many episodes (and after the last); 0 never.
	ValidateEvery int `json:"validate_every"`
	// Rollouts is the number of episodes collected side by side, in lock
	// step, per update: at each decision point one update learns the
	// segments of all of them, with the mean over the rollouts that have
	// segments there of each one's gradient summed over its agents, and
	// Adam takes one step (synchronous A2C over parallel environments).
	// The episodes of a training go in iterations of Rollouts (the last
	// may be shorter); an episode's random stream is named by its index,
	// as with one. The rollouts run on as many goroutines as
	// TrainOptions.Borrow lends, which never changes a bit. 0 and 1 both
	// mean one (the zero value is omitted from the JSON, so that a
	// sidecar of one rollout reads as before).
	Rollouts int `json:"rollouts,omitempty"`
	// Lag is how many intervals the update runs behind the decisions.
	// 0: each decision point's update (learning the interval it ends)
	// moves the parameters before anyone decides there (synchronous
	// A2C). 1: the agents decide at a decision point with the parameters
	// they have while the update learns the interval before, with the
	// values that decided it; its optimiser step then moves the
	// parameters for the next decision point (one interval of policy
	// lag, as in asynchronous actor-critic). The decisions, on one core,
	// and the update then share the machine's cores. The device- and
	// server-level variants learn as well with it (see the package
	// documentation); the single agent, one rollout per interval at a
	// learning rate of 1e-2, does not, and keeps 0. The zero value is
	// omitted from the JSON, so that a sidecar without lag reads as
	// before.
	Lag int `json:"lag,omitempty"`
	// Precision is the arithmetic of the actors' cached inner ECC passes
	// (most of a decision's work): PrecisionFloat64 ("" too, omitted
	// from the JSON) or PrecisionFloat32 (nn.ECCStack32: parameters and
	// activations rounded to float32, outputs within about 1e-6 relative
	// of float64's, another policy's bits). The learner's passes are
	// float64 either way.
	Precision string `json:"precision,omitempty"`
}

// Precisions of the actors' inner passes (Config.Precision).
const (
	PrecisionFloat64 = "float64"
	PrecisionFloat32 = "float32"
)

// MaxRollouts bounds Config.Rollouts: each rollout holds a simulation,
// its caches and an interval's decisions in memory.
const MaxRollouts = 64

// CheckRollouts is the one range check of a number of rollouts per
// update: Config.Rollouts, FamilyConfig.Rollouts and the run
// configuration's train.marl.rollouts, in [0, MaxRollouts].
func CheckRollouts(n int) error {
	if n < 0 || n > MaxRollouts {
		return fmt.Errorf("must be in [0, %d], got %d", MaxRollouts, n)
	}
	return nil
}

// rollouts is Rollouts with 0 read as 1.
func (c Config) rollouts() int { return max(c.Rollouts, 1) }

// Rewards.
const (
	RewardProgress = "progress"
	RewardSpeed    = "speed"
)

// PaperLR is the learning rate of the MARL paper (§VI-A).
const PaperLR = 1e-5

// DefaultConfig is the paper's architecture (4 inner and 2 inter ECC
// layers, actor and critic with one hidden layer of 128, γ = 0.9) with the
// learning rate raised for short runs and a small entropy bonus.
func DefaultConfig() Config {
	return Config{
		Variant: VariantDevice, Jobs: 6,
		InnerDim: 16, InnerLayers: 4, InterDim: 32, InterLayers: 2, Hidden: 128,
		LR: 3e-3, MaxGradNorm: 1, Gamma: 0.9, ValueCoef: 0.5, EntropyCoef: 0,
		Reward: RewardSpeed, Episodes: 30, ValidateEvery: 5, Lag: 1,
	}
}

// VariantConfig is DefaultConfig for a variant. The single agent gets a
// learning rate of 1e-2: with one rollout per interval instead of one per
// pod it barely moved at 3e-3 in our short runs (fattree(4), 0.2 jobs per
// pod per interval: training mean JCT 9.0 → 8.3 h over 8 episodes at 3e-3,
// 9.4 → 1.7 h over 10 at 1e-2), while the per-pod variants learn at 3e-3.
func VariantConfig(variant string) Config {
	c := DefaultConfig()
	c.Variant = variant
	if variant == VariantSingle {
		c.LR, c.Lag = 1e-2, 0
	}
	return c
}

// PaperConfig is the device-level variant trained as the paper trains
// it (§VI-A): learning rate 1e-5 and the progress reward (epochs trained /
// max epochs), no entropy bonus; the architecture and every other setting
// are DefaultConfig's, so that it differs from the tuned policy in exactly
// those two choices.
func PaperConfig() Config {
	c := DefaultConfig()
	c.LR, c.Reward = PaperLR, RewardProgress
	return c
}

// Validate reports every unusable field; messages name the JSON key.
func (c Config) Validate() error {
	var errs []error
	switch c.Variant {
	case VariantDevice, VariantServer, VariantSingle:
	default:
		errs = append(errs, fmt.Errorf("variant: must be device, server or single, got %q", c.Variant))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"jobs", c.Jobs}, {"inner_dim", c.InnerDim}, {"inner_layers", c.InnerLayers}, {"inter_dim", c.InterDim}, {"hidden", c.Hidden}} {
		if f.v < 1 {
			errs = append(errs, fmt.Errorf("%s: must be >= 1, got %d", f.name, f.v))
		}
	}
	if c.Reward != RewardProgress && c.Reward != RewardSpeed {
		errs = append(errs, fmt.Errorf("reward: must be %q or %q, got %q", RewardProgress, RewardSpeed, c.Reward))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"inter_layers", c.InterLayers}, {"episodes", c.Episodes}, {"validate_every", c.ValidateEvery}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s: must be >= 0, got %d", f.name, f.v))
		}
	}
	if err := CheckRollouts(c.Rollouts); err != nil {
		errs = append(errs, fmt.Errorf("rollouts: %w", err))
	}
	if p := c.Precision; p != "" && p != PrecisionFloat64 && p != PrecisionFloat32 {
		errs = append(errs, fmt.Errorf("precision: must be %s or %s, got %q", PrecisionFloat64, PrecisionFloat32, p))
	}
	if c.Lag != 0 && c.Lag != 1 {
		errs = append(errs, fmt.Errorf("lag: must be 0 or 1, got %d", c.Lag))
	}
	if !(c.LR > 0) || !(c.LR < 1) {
		errs = append(errs, fmt.Errorf("lr: must be in (0, 1), got %v", c.LR))
	}
	if !(c.Gamma >= 0 && c.Gamma <= 1) {
		errs = append(errs, fmt.Errorf("gamma: must be in [0, 1], got %v", c.Gamma))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"max_grad_norm", c.MaxGradNorm}, {"value_coef", c.ValueCoef}, {"entropy_coef", c.EntropyCoef}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s: must be >= 0 and finite, got %v", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// arch is the part of Config that fixes the parameter shapes.
func (c Config) arch() Config {
	return Config{Variant: c.Variant, Jobs: c.Jobs, InnerDim: c.InnerDim, InnerLayers: c.InnerLayers,
		InterDim: c.InterDim, InterLayers: c.InterLayers, Hidden: c.Hidden}
}
