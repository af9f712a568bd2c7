package dl2

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/rl"
)

// Config fixes a DL² model and its training. Start from DefaultConfig.
type Config struct {
	Jobs   int `json:"jobs"`   // N job slots
	Hidden int `json:"hidden"` // units per hidden layer
	// Machines, when > 0, gives the policy the DAS observation's machine
	// rows of a cluster of that many servers (the DAS paper's "same
	// features for all the RL baselines"); 0 pools the cluster into its
	// free shares of GPU, CPU and memory (the dl2 row).
	Machines int `json:"machines,omitempty"`

	PPO    rl.PPOConfig `json:"ppo"`
	Gamma  float64      `json:"gamma"`
	Lambda float64      `json:"lambda"`
	LR     float64      `json:"learning_rate"`
	// MaxGradNorm clips the gradient norm of each step (0: no clipping).
	MaxGradNorm float64 `json:"max_grad_norm"`

	Heuristic      string `json:"heuristic"`       // the warm-up teacher, a schedulers name
	WarmupEpisodes int    `json:"warmup_episodes"` // teacher segments collected
	WarmupEpochs   int    `json:"warmup_epochs"`   // supervised passes over them

	Alpha     float64 `json:"alpha"`      // Eq. 3
	RewardCap float64 `json:"reward_cap"` // Eq. 3, as in das.Config

	Episodes    int `json:"episodes"`
	SegmentJobs int `json:"segment_jobs"`
	ValJobs     int `json:"val_jobs"` // 0: the whole validation split
}

// DefaultConfig is the DAS paper's DL² setting (Table 2: hidden 64,
// entropy 0.03, clip 0.2, γ 0.98, learning rate 1e-6, Adam) with our
// warm-up length and the DAS episode length.
func DefaultConfig() Config {
	p := rl.DefaultPPOConfig()
	p.EntropyCoef = 0.03
	return Config{
		Jobs: 32, Hidden: 64, PPO: p, Gamma: 0.98, Lambda: 0.95, LR: 1e-6, MaxGradNorm: 1,
		Heuristic: "drf-firstfit", WarmupEpisodes: 5, WarmupEpochs: 20,
		Alpha: 0.1, RewardCap: 10, Episodes: 50, SegmentJobs: 1000,
	}
}

// Validate reports every unusable setting, one message per key.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("dl2."+format, a...)) }
	atLeast := func(key string, v, lo int) {
		if v < lo {
			bad("%s: must be ≥ %d, got %d", key, lo, v)
		}
	}
	atLeast("jobs", c.Jobs, 1)
	atLeast("hidden", c.Hidden, 1)
	atLeast("machines", c.Machines, 0)
	if err := c.PPO.Validate(); err != nil {
		bad("ppo: %w", err)
	}
	if !(c.Gamma >= 0 && c.Gamma <= 1) {
		bad("gamma: must be in [0, 1], got %v", c.Gamma)
	}
	if !(c.Lambda >= 0 && c.Lambda <= 1) {
		bad("lambda: must be in [0, 1], got %v", c.Lambda)
	}
	if !(c.LR > 0) || math.IsInf(c.LR, 0) {
		bad("learning_rate: must be > 0 and finite, got %v", c.LR)
	}
	if !(c.MaxGradNorm >= 0) || math.IsInf(c.MaxGradNorm, 0) {
		bad("max_grad_norm: must be ≥ 0 and finite, got %v", c.MaxGradNorm)
	}
	if c.Heuristic == "" {
		bad("heuristic: must name the warm-up teacher, a heuristic scheduler")
	}
	atLeast("warmup_episodes", c.WarmupEpisodes, 0)
	atLeast("warmup_epochs", c.WarmupEpochs, 0)
	if !(c.Alpha >= 0) || math.IsInf(c.Alpha, 0) {
		bad("alpha: must be ≥ 0 and finite, got %v", c.Alpha)
	}
	if !(c.RewardCap > 0) || math.IsInf(c.RewardCap, 0) {
		bad("reward_cap: must be > 0 and finite, got %v", c.RewardCap)
	}
	atLeast("episodes", c.Episodes, 0)
	atLeast("segment_jobs", c.SegmentJobs, 1)
	atLeast("val_jobs", c.ValJobs, 0)
	return errors.Join(errs...)
}

// Obs is one pick's input: the flat feature vector and the slots that may
// be chosen.
type Obs = daspaper.PolicyObs

func (c Config) width() int {
	if c.Machines > 0 {
		return c.Jobs*(daspaper.JobFeatures+1) + c.Machines*daspaper.MachineFeatures
	}
	return c.Jobs*(daspaper.JobFeatures+1) + 3
}

// Model is DL²'s policy and value networks (daspaper.Categorical: the
// rl.ActorCritic that PPO trains) over the job slots.
type Model struct {
	cfg Config
	*daspaper.Categorical
}

// NewModel builds a freshly initialised model: zero logits, so every
// allowed slot is alike and the deterministic policy FIFO.
func NewModel(cfg Config, rng *rand.Rand) *Model {
	if err := cfg.Validate(); err != nil {
		panic("dl2: NewModel: " + err.Error())
	}
	return &Model{cfg: cfg, Categorical: daspaper.NewCategorical(cfg.width(), cfg.Hidden, cfg.Jobs, cfg.LR, cfg.MaxGradNorm, rng)}
}

// Config is the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// features fills o for the slots of jobs, allowed where ok, with the
// ledger's free share of st's cluster: pooled, or per machine (the
// observation's machine rows with the free GPU, CPU and memory as booked
// so far) when the model has machine rows.
func (m *Model) features(o *Obs, rows *daspaper.Obs, ok []bool, led *sim.Ledger, st *sim.State) {
	n := len(o.Mask)
	for r := 0; r < n; r++ {
		row := o.X[r*(daspaper.JobFeatures+1) : (r+1)*(daspaper.JobFeatures+1)]
		copy(row, rows.Jobs[r*daspaper.JobFeatures:(r+1)*daspaper.JobFeatures])
		o.Mask[r] = r < len(ok) && ok[r]
		row[daspaper.JobFeatures] = 0
		if o.Mask[r] {
			row[daspaper.JobFeatures] = 1
		}
	}
	tail := o.X[n*(daspaper.JobFeatures+1):]
	if M := m.cfg.Machines; M > 0 {
		const mf = daspaper.MachineFeatures
		copy(tail, rows.Machines)
		for k, f := range led.Free {
			cp := st.Cluster.Capacity(k)
			tail[k*mf] = f.GPU / math.Max(cp.GPU, 1)
			tail[k*mf+1] = f.CPU / math.Max(cp.CPU, 1)
			tail[k*mf+2] = f.MemGiB / math.Max(cp.MemGiB, 1)
		}
		return
	}
	var free sim.Resources
	for _, f := range led.Free {
		free = free.Add(f)
	}
	total := st.ClusterTotal()
	tail[0] = free.GPU / math.Max(total.GPU, 1)
	tail[1] = free.CPU / math.Max(total.CPU, 1)
	tail[2] = free.MemGiB / math.Max(total.MemGiB, 1)
}

// checkCluster refuses a cluster other than the one a model with machine
// rows was built for.
func (m *Model) checkCluster(c *sim.Cluster) error {
	if M := m.cfg.Machines; M > 0 && len(c.Servers) != M {
		return fmt.Errorf("dl2: a policy for %d machines on a cluster of %d", M, len(c.Servers))
	}
	return nil
}

// firstFit books js on the lowest-index servers with room, or books
// nothing and returns nil.
func firstFit(led *sim.Ledger, js *sim.JobState) []sim.Slot {
	slots := make([]sim.Slot, 0, len(js.Instances))
	for _, in := range js.Instances {
		k := 0
		for ; k < len(led.Free); k++ {
			if led.Fits(k, in.Demand) {
				break
			}
		}
		if k == len(led.Free) {
			led.GiveBack(js, slots)
			return nil
		}
		led.Take(k, in.Demand)
		slots = append(slots, sim.Slot{Server: k, Socket: -1})
	}
	return slots
}

// fits reports whether js would fit by first fit, booking nothing.
func fits(led *sim.Ledger, js *sim.JobState) bool {
	slots := firstFit(led, js)
	led.GiveBack(js, slots)
	return slots != nil
}
