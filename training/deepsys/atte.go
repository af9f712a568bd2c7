package deepsys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
)

// Widths of Atte's inputs.
const (
	taskFeatures   = 8 + 6 // model one-hot | PS flag, workers/4, PS/4, gradient GB, CPU/16, GPU/4 of the task
	serverFeatures = 4 + 3 // load (as DeepSys) | free memory share | the job's workers and PS already there (/4)
)

// AtteConfig configures Atte's attention and its training.
type AtteConfig struct {
	Dim      int     `json:"dim"`      // query/key width
	Episodes int     `json:"episodes"` // passes over the training jobs
	LR       float64 `json:"lr"`
}

// DefaultAtteConfig is width 32, 20 episodes, learning rate 3e-3.
func DefaultAtteConfig() AtteConfig { return AtteConfig{Dim: 32, Episodes: 20, LR: 3e-3} }

// Validate reports unusable settings.
func (c AtteConfig) Validate() error {
	if c.Dim < 1 || c.Episodes < 0 || !(c.LR > 0 && c.LR < 1) {
		return fmt.Errorf("deepsys: atte needs dim >= 1, episodes >= 0 and lr in (0, 1), got %+v", c)
	}
	return nil
}

// Atte scores servers for a task by scaled dot-product attention
// (Vaswani et al.): q = MLP_q(task), k_s = MLP_k(server s), score q·k_s/√d.
type Atte struct {
	cfg  AtteConfig
	ps   *nn.Params
	q, k *nn.MLP
	t    nn.Tape
}

// NewAtte draws an untrained Atte from rng.
func NewAtte(cfg AtteConfig, rng *rand.Rand) (*Atte, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ps := nn.NewParams()
	return &Atte{cfg: cfg, ps: ps,
		q: nn.NewMLP(ps, "atte.query", []int{taskFeatures, cfg.Dim, cfg.Dim}, nn.ReLU, rng),
		k: nn.NewMLP(ps, "atte.key", []int{serverFeatures, cfg.Dim, cfg.Dim}, nn.ReLU, rng)}, nil
}

// Params returns the parameters.
func (a *Atte) Params() *nn.Params { return a.ps }

// atteStep is one decision: the task, the candidate servers' features and
// the chosen candidate.
type atteStep struct {
	task   []float64
	server []float64 // candidates × serverFeatures
	action int
	job    int
}

// scores records the attention logits of steps, padded to the widest
// candidate set (mask false on the padding).
func (a *Atte) scores(t *nn.Tape, steps []*atteStep) (*nn.Node, []bool) {
	var task, srv []float64
	var owner []int
	width := 0
	for i, s := range steps {
		task = append(task, s.task...)
		srv = append(srv, s.server...)
		n := len(s.server) / serverFeatures
		for range n {
			owner = append(owner, i)
		}
		width = max(width, n)
	}
	q := a.q.Forward(t, t.Const(len(steps), taskFeatures, task))
	k := a.k.Forward(t, t.Const(len(owner), serverFeatures, srv))
	sc := t.Scale(t.RowSums(t.Mul(t.GatherRows(q, owner), k)), 1/math.Sqrt(float64(a.cfg.Dim)))
	flat := t.Transpose(sc)
	rows := make([]*nn.Node, len(steps))
	mask := make([]bool, 0, len(steps)*width)
	off := 0
	for i, s := range steps {
		n := len(s.server) / serverFeatures
		r := t.SliceCols(flat, off, off+n)
		if n < width {
			r = t.ConcatCols(r, t.Const(1, width-n, nil))
		}
		rows[i] = r
		for j := 0; j < width; j++ {
			mask = append(mask, j < n)
		}
		off += n
	}
	return t.ConcatRows(rows...), mask
}

// Scheduler returns Atte's placement: jobs in submission order, each task
// on the fitting server with the highest attention score (or, when rng is
// not nil, a server drawn from the softmax of the scores: training).
// Schedulers of one Atte may run concurrently (while it is not trained).
func (a *Atte) Scheduler() sim.Scheduler { return &atteScheduler{a: a} }

type atteScheduler struct {
	a      *Atte
	t      nn.Tape
	rng    *rand.Rand
	record func(*atteStep)
}

func (s *atteScheduler) Name() string { return "atte" }

func (s *atteScheduler) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	var pending []*atteStep
	return placeJobs(ctx, st, func(cl *cluster, js *sim.JobState, cands, srv []int) int {
		st := &atteStep{task: taskRow(js, len(srv)), job: js.Index}
		for _, c := range cands {
			st.server = append(st.server, serverRow(cl, js, srv, c)...)
		}
		s.t.Reset()
		logits, mask := s.a.scores(&s.t, []*atteStep{st})
		st.action = pickAction(logits.Data, mask, s.rng)
		pending = append(pending, st)
		return st.action
	}, func(placed bool) {
		if placed && s.record != nil {
			for _, p := range pending {
				s.record(p)
			}
		}
		pending = nil
	})
}

// pickAction takes the best allowed logit, or samples from the masked
// softmax when rng is not nil.
func pickAction(logits []float64, mask []bool, rng *rand.Rand) int {
	best := -1
	for i, z := range logits {
		if mask[i] && (best < 0 || z > logits[best]) {
			best = i
		}
	}
	if rng == nil {
		return best
	}
	var sum float64
	for i, z := range logits {
		if mask[i] {
			sum += math.Exp(z - logits[best])
		}
	}
	u := rng.Float64() * sum
	for i, z := range logits {
		if mask[i] {
			if u -= math.Exp(z - logits[best]); u < 0 {
				return i
			}
		}
	}
	return best
}

func taskRow(js *sim.JobState, i int) []float64 {
	r := make([]float64, taskFeatures)
	if k := slices.Index(sim.MARLModels, js.Profile.Name); k >= 0 && js.Profile.Known {
		r[k] = 1
	}
	in := js.Instances[i]
	if in.Role == datasets.RolePS {
		r[8] = 1
	}
	for _, x := range js.Instances {
		if x.Role == datasets.RolePS {
			r[10] += 0.25
		} else {
			r[9] += 0.25
		}
	}
	r[11] = js.Profile.GradientMB / 1000
	r[12], r[13] = in.Demand.CPU/16, in.Demand.GPU/4
	return r
}

func serverRow(cl *cluster, js *sim.JobState, srv []int, s int) []float64 {
	r := make([]float64, serverFeatures)
	cl.serverLoad(s, r[:4])
	r[4] = frac(cl.free[s].MemGiB, cl.capacity[s].MemGiB)
	for i, x := range srv {
		if x == s {
			if js.Instances[i].Role == datasets.RolePS {
				r[6] += 0.25
			} else {
				r[5] += 0.25
			}
		}
	}
	return r
}

// TrainAtte trains Atte by REINFORCE in the simulator (SCARL trains its
// attention by policy gradient): each episode simulates the training jobs
// with sampled placements; at every decision point the decisions of the
// previous interval earn their job's speed over it (share of work done ×
// standalone duration / interval), and one Adam step follows the gradient
// of −(1/n) Σ (r − r̄) log π(a|s), r̄ the interval's mean reward.
func TrainAtte(ctx context.Context, cfg AtteConfig, c *sim.Cluster, jobs []datasets.Job, simCfg sim.Config, model sim.Interference, seed uint64, episode func(training.Curve)) (*Atte, error) {
	a, _, err := trainAtte(ctx, cfg, c, jobs, simCfg, model, seed, episode, nil)
	return a, err
}

// trainAtte is TrainAtte that keeps its state in resume after every
// episode and continues from the state a previous attempt kept there
// (resume.go). It returns every episode's curve row, those of the
// episodes before the resumed one included.
func trainAtte(ctx context.Context, cfg AtteConfig, c *sim.Cluster, jobs []datasets.Job, simCfg sim.Config, model sim.Interference, seed uint64, episode func(training.Curve), resume *training.Resume) (*Atte, []training.Curve, error) {
	a, err := NewAtte(cfg, seedRand(seed, keyAtte, training.KeyInit))
	if err != nil {
		return nil, nil, err
	}
	if len(jobs) == 0 {
		return nil, nil, errors.New("deepsys: no training jobs")
	}
	if simCfg.IntervalS == 0 {
		simCfg.IntervalS = 1800
	}
	simCfg.Trigger = sim.TriggerInterval
	opt := nn.NewAdam(a.ps, nn.AdamConfig{LR: cfg.LR, MaxGradNorm: 1})
	saved, err := loadAtte(resume, cfg, a, opt)
	if err != nil {
		return nil, nil, err
	}
	curves := saved.Curves
	for ep := saved.Ep; ep < cfg.Episodes; ep++ {
		s, err := sim.New(c, jobs, simCfg, model)
		if err != nil {
			return nil, nil, err
		}
		var steps []*atteStep
		sch := &atteScheduler{a: a, rng: seedRand(seed, keyAtte, training.KeyEpisode, pipeline.Index(ep)), record: func(st *atteStep) { steps = append(steps, st) }}
		var ret float64
		for {
			st, err := s.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, nil, err
			}
			if len(steps) > 0 {
				ret += a.update(steps, st, jobs, opt)
				steps = steps[:0]
			}
			pl, err := sch.Schedule(ctx, st)
			if err != nil {
				return nil, nil, err
			}
			if err := s.Apply(pl); err != nil {
				return nil, nil, err
			}
		}
		row := training.Curve{Family: "deepsys", Variant: "atte", Episode: int32(ep), Split: "train", Return: ret, MeanJCT: s.Result().Metrics.MeanJCTS}
		curves = append(curves, row)
		if episode != nil {
			episode(row)
		}
		if err := saveAtte(resume, cfg, ep+1, a, opt, curves); err != nil {
			return nil, nil, err
		}
	}
	return a, curves, nil
}

// update takes one REINFORCE step on the previous interval's decisions and
// returns their summed reward.
func (a *Atte) update(steps []*atteStep, st *sim.State, jobs []datasets.Job, opt *nn.Adam) float64 {
	span := st.Now - st.Since.FromS
	speed := map[int]float64{}
	for _, p := range st.Since.Progress {
		if span > 0 {
			speed[p.Job] += p.Fraction * jobs[p.Job].DurationS / span
		}
	}
	r := make([]float64, len(steps))
	var mean float64
	for i, s := range steps {
		r[i] = speed[s.job]
		mean += r[i] / float64(len(steps))
	}
	actions := make([]int, len(steps))
	w := make([]float64, len(steps))
	for i, s := range steps {
		actions[i] = s.action
		w[i] = -(r[i] - mean) / float64(len(steps))
	}
	t := &a.t
	t.Reset()
	logits, mask := a.scores(t, steps)
	lp := t.CategoricalLogProb(logits, mask, actions)
	t.Backward(t.Sum(t.Mul(lp, t.Const(len(steps), 1, w))))
	opt.Step()
	return mean * float64(len(steps))
}
