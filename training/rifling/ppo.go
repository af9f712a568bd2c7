package rifling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// PPOStage names the random streams of RIFLING's PPO form.
const PPOStage = "train-rifling-ppo"

// PPOConfig configures RIFLING in the form the DAS paper compared against
// (App. D, Table 2): the k-means job groups of RIFLING, a policy over the
// same placement actions trained by PPO. Start from DefaultPPOConfig.
type PPOConfig struct {
	// Clusters is k; 0 means √(N/2) for N training jobs (Table 2).
	Clusters    int          `json:"clusters"`
	KMeansIters int          `json:"kmeans_iters"`
	Hidden      int          `json:"hidden"`
	PPO         rl.PPOConfig `json:"ppo"`
	Gamma       float64      `json:"gamma"`
	Lambda      float64      `json:"lambda"`
	LR          float64      `json:"learning_rate"`
	// MaxGradNorm clips the gradient norm of each step (0: no clipping).
	MaxGradNorm float64 `json:"max_grad_norm"`
	Alpha       float64 `json:"alpha"`      // Eq. 3
	RewardCap   float64 `json:"reward_cap"` // Eq. 3, as in das.Config
	Episodes    int     `json:"episodes"`
	SegmentJobs int     `json:"segment_jobs"`
	ValJobs     int     `json:"val_jobs"` // 0: the whole validation split
}

// DefaultPPOConfig is Table 2's RIFLING (k = √(N/2), hidden 64, entropy
// 0.03, clip 0.2, γ 0.98, learning rate 1e-6, Adam) with DL²'s GAE λ,
// gradient clipping and PPO epochs, and the DAS episode length.
func DefaultPPOConfig() PPOConfig {
	p := rl.DefaultPPOConfig()
	p.EntropyCoef = 0.03
	return PPOConfig{KMeansIters: 50, Hidden: 64, PPO: p, Gamma: 0.98, Lambda: 0.95, LR: 1e-6, MaxGradNorm: 1,
		Alpha: 0.1, RewardCap: 10, Episodes: 50, SegmentJobs: 1000}
}

// Validate reports every unusable setting.
func (c PPOConfig) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("rifling-ppo."+format, a...)) }
	if c.Clusters < 0 || c.KMeansIters < 1 || c.Hidden < 1 {
		bad("clusters, kmeans_iters, hidden: must be ≥ 0, ≥ 1, ≥ 1, got %d, %d, %d", c.Clusters, c.KMeansIters, c.Hidden)
	}
	if err := c.PPO.Validate(); err != nil {
		bad("ppo: %w", err)
	}
	if !(c.Gamma >= 0 && c.Gamma <= 1) || !(c.Lambda >= 0 && c.Lambda <= 1) {
		bad("gamma, lambda: must be in [0, 1], got %v, %v", c.Gamma, c.Lambda)
	}
	if !(c.LR > 0) || math.IsInf(c.LR, 0) || !(c.MaxGradNorm >= 0) || math.IsInf(c.MaxGradNorm, 0) {
		bad("learning_rate, max_grad_norm: must be > 0 and ≥ 0, finite, got %v, %v", c.LR, c.MaxGradNorm)
	}
	if !(c.Alpha >= 0) || math.IsInf(c.Alpha, 0) || !(c.RewardCap > 0) || math.IsInf(c.RewardCap, 0) {
		bad("alpha, reward_cap: must be ≥ 0 and > 0, finite, got %v, %v", c.Alpha, c.RewardCap)
	}
	if c.Episodes < 0 || c.SegmentJobs < 1 || c.ValJobs < 0 {
		bad("episodes, segment_jobs, val_jobs: got %d, %d, %d", c.Episodes, c.SegmentJobs, c.ValJobs)
	}
	return errors.Join(errs...)
}

// Hash is the sha256 of the configuration's JSON.
func (c PPOConfig) Hash() string {
	h, _ := pipeline.HashJSON(c)
	return h
}

// PPOPolicy is RIFLING's PPO form. A job's state is the centroid of its
// k-means group (RIFLING's robust job representation, fitted on DAS job
// rows) concatenated with the cluster's state, the DAS machine rows (free
// GPU, CPU and memory as booked so far in the decision, NIC share,
// instances per GPU) — the DAS paper's "same features for all the RL
// baselines" and its concatenation of RIFLING's job states with the
// cluster states (§5.1). Jobs are taken first come first served; for each
// that fits, the policy picks pack, spread, best fit or wait (at most
// once per job, and only while a running job's end will bring another
// decision), as the tabular form does.
type PPOPolicy struct {
	Config    PPOConfig
	Centroids [][]float64 // JobFeatures wide
	M         int         // the machines trained on
	*daspaper.Categorical
}

func ppoWidth(M int) int { return daspaper.JobFeatures + M*daspaper.MachineFeatures }

// NewPPOPolicy builds an untrained policy, which packs every job: FIFO
// first fit.
func NewPPOPolicy(cfg PPOConfig, centroids [][]float64, M int, rng *rand.Rand) *PPOPolicy {
	return &PPOPolicy{Config: cfg, Centroids: centroids, M: M,
		Categorical: daspaper.NewCategorical(ppoWidth(M), cfg.Hidden, numActions, cfg.LR, cfg.MaxGradNorm, rng)}
}

// features is the input for row r of the observation, with the machines'
// free shares read from the decision's ledger.
func (p *PPOPolicy) features(rows *daspaper.Obs, r int, led *sim.Ledger, c *sim.Cluster) []float64 {
	const jf, mf = daspaper.JobFeatures, daspaper.MachineFeatures
	x := make([]float64, ppoWidth(p.M))
	copy(x, p.Centroids[nearest(p.Centroids, rows.Jobs[r*jf:(r+1)*jf])])
	m := x[jf:]
	copy(m, rows.Machines)
	for k, f := range led.Free {
		cp := c.Capacity(k)
		m[k*mf] = f.GPU / math.Max(cp.GPU, 1)
		m[k*mf+1] = f.CPU / math.Max(cp.CPU, 1)
		m[k*mf+2] = f.MemGiB / math.Max(cp.MemGiB, 1)
	}
	return x
}

// ppoDecider makes one run's decisions; with roll set it records them.
type ppoDecider struct {
	p      *PPOPolicy
	rng    *rand.Rand
	waited map[int]bool
	roll   *rl.Rollout[*daspaper.PolicyObs]
}

func (d *ppoDecider) decide(st *sim.State) ([]sim.Placement, error) {
	if n := len(st.Cluster.Servers); n != d.p.M {
		return nil, fmt.Errorf("rifling-ppo: a policy for %d machines on a cluster of %d", d.p.M, n)
	}
	rows, chosen := daspaper.Observe(st, len(st.Pending), nil)
	led := st.Ledger()
	var pl []sim.Placement
	for r, js := range chosen {
		mask := make([]bool, numActions)
		if !feasible(led, js, mask) {
			continue // nothing to decide: the job cannot start now
		}
		// Waiting needs a later decision point: a running job's end.
		// On an idle cluster with nothing left to arrive it would stall.
		mask[ActWait] = !d.waited[js.Index] && (len(st.Running) > 0 || len(pl) > 0)
		o := &daspaper.PolicyObs{X: d.p.features(rows, r, led, st.Cluster), Mask: mask}
		a, lp, v := d.p.Pick(o, d.rng)
		if d.roll != nil {
			d.roll.Add(rl.Step[*daspaper.PolicyObs]{Obs: o, Action: rl.Action{Index: a}, LogProb: lp, Value: v})
		}
		if a == ActWait {
			d.waited[js.Index] = true
			continue
		}
		pl = append(pl, sim.Placement{Job: js.Index, Slots: place(led, js, a)})
	}
	return pl, nil
}

type ppoRun struct {
	ret     float64
	metrics sim.Metrics
	roll    *rl.Rollout[*daspaper.PolicyObs]
}

// run drives one episode: sampled actions with rng (recorded with their
// Eq. 3 rewards, a decision interval's going to the last action before
// it), the arg max without.
func (p *PPOPolicy) run(ctx context.Context, c *sim.Cluster, sc sim.Config, model sim.Interference, jobs []datasets.Job, norm daspaper.RewardNorm, rng *rand.Rand) (ppoRun, error) {
	out := ppoRun{}
	s, err := sim.New(c, jobs, sc, model)
	if err != nil {
		return out, err
	}
	d := &ppoDecider{p: p, rng: rng, waited: map[int]bool{}}
	if rng != nil {
		d.roll = &rl.Rollout[*daspaper.PolicyObs]{}
	}
	credit := func(r float64, done bool) {
		out.ret += r
		if d.roll != nil && d.roll.Len() > 0 {
			last := &d.roll.Steps[d.roll.Len()-1]
			last.Reward += r
			last.Done = last.Done || done
		}
	}
	res, err := daspaper.Drive(ctx, s, norm, p.Config.Alpha, p.Config.RewardCap, d.decide, credit)
	if err != nil {
		return out, err
	}
	out.metrics, out.roll = res.Metrics, d.roll
	return out, nil
}

// Evaluate runs the deterministic policy on jobs.
func (p *PPOPolicy) Evaluate(ctx context.Context, c *sim.Cluster, sc sim.Config, model sim.Interference, jobs []datasets.Job, norm daspaper.RewardNorm) (Evaluation, error) {
	out, err := p.run(ctx, c, sc, model, jobs, norm, nil)
	if err != nil {
		return Evaluation{}, fmt.Errorf("rifling-ppo: evaluate: %w", err)
	}
	return Evaluation{Return: out.ret, Metrics: out.metrics}, nil
}

// PPOResult is a training run of the PPO form.
type PPOResult struct {
	Policy   *PPOPolicy
	Curves   []training.Curve
	InitVal  Evaluation // untrained: FIFO first fit
	FinalVal Evaluation
}

// ppoState is what a resumed training needs after Ep episodes.
type ppoState struct {
	Ep                int
	Centroids         [][]float64
	Params            [][]float64
	Opt               nn.AdamState
	Seg, Act, Upd     []byte
	Curves            []training.Curve
	InitVal, FinalVal Evaluation
}

// TrainPPO fits the job groups, then trains the policy with one PPO
// update (GAE) per episode on random segments of split.Train, validating
// the deterministic policy on split.Val after each.
func TrainPPO(ctx context.Context, cfg PPOConfig, split daspaper.Split, opts TrainOptions) (*PPOResult, error) {
	if err := opts.Check("rifling-ppo", cfg, split); err != nil {
		return nil, err
	}
	key := "rifling-ppo@" + cfg.Hash()
	seg, act, upd := pipeline.RandSource(opts.Seed, PPOStage, training.KeySegments), pipeline.RandSource(opts.Seed, PPOStage, training.KeyActions), pipeline.RandSource(opts.Seed, PPOStage, training.KeyMinibatches)
	val := split.ValJobs(cfg.ValJobs)
	var saved ppoState
	_, resumed, err := opts.Resume.LoadState("rifling-ppo", key, &saved)
	if err != nil {
		return nil, err
	}
	M := len(opts.Cluster.Servers)
	res := &PPOResult{}
	if resumed {
		res.Policy = NewPPOPolicy(cfg, saved.Centroids, M, pipeline.Rand(opts.Seed, PPOStage, training.KeyInit))
		for _, err := range []error{res.Policy.Params().SetValues(saved.Params), res.Policy.Optimizer().SetState(saved.Opt),
			training.SetRandState(seg, saved.Seg), training.SetRandState(act, saved.Act), training.SetRandState(upd, saved.Upd)} {
			if err != nil {
				return nil, fmt.Errorf("rifling-ppo: resume: %w", err)
			}
		}
		res.Curves, res.InitVal, res.FinalVal = saved.Curves, saved.InitVal, saved.FinalVal
	} else {
		cents, err := jobGroups(ctx, opts, split.Train, pipeline.Rand(opts.Seed, PPOStage, training.KeyKMeans), cfg.Clusters, cfg.KMeansIters)
		if err != nil {
			return nil, err
		}
		res.Policy = NewPPOPolicy(cfg, cents, M, pipeline.Rand(opts.Seed, PPOStage, training.KeyInit))
		if res.InitVal, err = res.Policy.Evaluate(ctx, opts.Cluster, opts.Sim, opts.Interference, val, split.Norm); err != nil {
			return nil, err
		}
		res.FinalVal = res.InitVal
	}
	p := res.Policy
	segRng, actRng, updRng := rand.New(seg), rand.New(act), rand.New(upd)
	loop := daspaper.PPOLoop{
		AC: p.Categorical, PPO: cfg.PPO, Gamma: cfg.Gamma, Lambda: cfg.Lambda, Updates: updRng,
		Base: training.Curve{Family: "rifling-ppo", Variant: "rifling-ppo", Cluster: opts.ClusterName},
		Episode: func(ep int) (daspaper.PPOEpisode, error) {
			out, err := p.run(ctx, opts.Cluster, opts.Sim, opts.Interference, daspaper.Segment(split.Train, cfg.SegmentJobs, segRng), split.Norm, actRng)
			if err != nil {
				return daspaper.PPOEpisode{}, fmt.Errorf("rifling-ppo: episode %d: %w", ep, err)
			}
			return daspaper.PPOEpisode{Return: out.ret, Metrics: out.metrics, Rollout: out.roll}, nil
		},
		Validate: func() (Evaluation, error) {
			return p.Evaluate(ctx, opts.Cluster, opts.Sim, opts.Interference, val, split.Norm)
		},
		Final: &res.FinalVal, Curves: &res.Curves, OnEpisode: opts.OnEpisode,
	}
	if opts.Resume != nil {
		loop.Save = func(ep int) error {
			st := ppoState{Ep: ep + 1, Centroids: p.Centroids, Params: p.Params().Values(), Opt: p.Optimizer().State(),
				Seg: training.RandState(seg), Act: training.RandState(act), Upd: training.RandState(upd),
				Curves: res.Curves, InitVal: res.InitVal, FinalVal: res.FinalVal}
			return opts.Resume.SaveState("rifling-ppo", key, ep+1, cfg.Episodes, st)
		}
	}
	if err := loop.Run(ctx, saved.Ep, cfg.Episodes); err != nil {
		return nil, err
	}
	return res, nil
}

// jobGroups fits k job groups (k = √(N/2) for N training jobs when k is
// 0) on the DAS job rows of the states a first-fit pass over jobs meets.
func jobGroups(ctx context.Context, opts TrainOptions, jobs []datasets.Job, rng *rand.Rand, k, iters int) ([][]float64, error) {
	points, err := sampleStates(ctx, DefaultConfig(), opts, jobs, maxStates, rng)
	if err != nil {
		return nil, fmt.Errorf("rifling-ppo: state sampling: %w", err)
	}
	if len(points) == 0 {
		return nil, errors.New("rifling-ppo: no job states to cluster")
	}
	for i, x := range points {
		points[i] = x[:daspaper.JobFeatures]
	}
	if k == 0 {
		k = max(1, int(math.Round(math.Sqrt(float64(len(jobs))/2))))
	}
	return kmeans(points, k, iters, rng), nil
}

// PPOScheduler runs a PPO policy deterministically as a sim.Scheduler;
// one value serves one run.
type PPOScheduler struct{ d *ppoDecider }

// NewPPOScheduler wraps a policy.
func NewPPOScheduler(p *PPOPolicy) *PPOScheduler {
	return &PPOScheduler{d: &ppoDecider{p: p, waited: map[int]bool{}}}
}

// Name is "rifling-ppo".
func (s *PPOScheduler) Name() string { return "rifling-ppo" }

// Schedule implements sim.Scheduler.
func (s *PPOScheduler) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.d.decide(st)
}

// PPOSidecar is the JSON beside a PPO policy's checkpoint.
type PPOSidecar struct {
	Family     string      `json:"family"`
	Config     PPOConfig   `json:"config"`
	ConfigHash string      `json:"config_hash"`
	Centroids  [][]float64 `json:"centroids"`
	Machines   int         `json:"machines"`
	Cluster    string      `json:"cluster,omitempty"`
}

func ppoSidecarPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
}

// SavePPO writes p's checkpoint to path and its sidecar beside it.
func SavePPO(path string, p *PPOPolicy, cluster string) error {
	b, err := json.MarshalIndent(PPOSidecar{Family: "rifling-ppo", Config: p.Config, ConfigHash: p.Config.Hash(),
		Centroids: p.Centroids, Machines: p.M, Cluster: cluster}, "", " ")
	if err != nil {
		return err
	}
	if err := nn.SaveCheckpoint(path, p.Params()); err != nil {
		return err
	}
	return os.WriteFile(ppoSidecarPath(path), append(b, '\n'), 0o644)
}

// LoadPPO reads a policy saved by SavePPO.
func LoadPPO(path string) (*PPOPolicy, error) {
	side := ppoSidecarPath(path)
	var sc PPOSidecar
	if err := readJSON("rifling-ppo", side, &sc); err != nil {
		return nil, err
	}
	if sc.Family != "rifling-ppo" || sc.Config.Hash() != sc.ConfigHash || sc.Machines < 1 || len(sc.Centroids) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotRIFLING, side)
	}
	if err := sc.Config.Validate(); err != nil {
		return nil, fmt.Errorf("rifling-ppo: %s: %w", side, err)
	}
	if i := slices.IndexFunc(sc.Centroids, func(c []float64) bool { return len(c) != daspaper.JobFeatures }); i >= 0 {
		return nil, fmt.Errorf("%w: %s: centroid %d of width %d, want %d", ErrNotRIFLING, side, i, len(sc.Centroids[i]), daspaper.JobFeatures)
	}
	p := NewPPOPolicy(sc.Config, sc.Centroids, sc.Machines, pipeline.Rand(0, PPOStage, training.KeyLoad))
	if err := nn.LoadCheckpoint(path, p.Params()); err != nil {
		return nil, fmt.Errorf("rifling-ppo: %w", err)
	}
	return p, nil
}
