package deepsys

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
)

// Sample is one logged placement: its features and the speed the job then
// ran at, relative to standalone (standalone duration / run time, in (0, 1]).
type Sample struct {
	X     []float64
	Speed float64
}

// DefaultHeuristics are the schedulers whose placements DeepSys learns
// from (the MARL paper's heuristic baselines).
var DefaultHeuristics = []string{"tetris-pack", "load-balancing", "lif"}

// Collect runs each named heuristic over jobs on c and logs every
// placement it makes with the job's resulting speed.
func Collect(ctx context.Context, c *sim.Cluster, jobs []datasets.Job, heuristics []string, cfg sim.Config, model sim.Interference) ([]Sample, error) {
	var out []Sample
	for _, name := range heuristics {
		inner, err := schedulers.New(schedulers.Name(name), schedulers.Options{PriceGPUHour: cfg.PriceGPUHour})
		if err != nil {
			return nil, err
		}
		lg := &logger{inner: inner}
		res, err := sim.Run(ctx, c, jobs, lg, cfg, model)
		if err != nil {
			return nil, fmt.Errorf("deepsys: logging %s: %w", name, err)
		}
		speed := make(map[int]float64, len(res.Jobs))
		for _, r := range res.Jobs {
			if r.RunS > 0 {
				speed[r.Index] = math.Min(1, r.DurationS/r.RunS)
			} else {
				speed[r.Index] = 1
			}
		}
		for _, l := range lg.logged {
			if v, ok := speed[l.job]; ok {
				out = append(out, Sample{X: l.x, Speed: v})
			}
		}
	}
	return out, nil
}

type logged struct {
	job int
	x   []float64
}

// logger wraps a heuristic and records the features of its placements.
type logger struct {
	inner  sim.Scheduler
	logged []logged
}

func (l *logger) Name() string { return l.inner.Name() }

func (l *logger) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	pl, err := l.inner.Schedule(ctx, st)
	if err != nil {
		return nil, err
	}
	cl := newCluster(st)
	for _, p := range pl {
		js := findJob(st, p.Job)
		srv := make([]int, len(p.Slots))
		for i, sl := range p.Slots {
			srv[i] = sl.Server
		}
		x := make([]float64, speedFeatures)
		placementFeatures(x, js, srv, cl)
		l.logged = append(l.logged, logged{job: p.Job, x: x})
		cl.commit(js, srv)
	}
	return pl, nil
}

func findJob(st *sim.State, idx int) *sim.JobState {
	for _, js := range st.Pending {
		if js.Index == idx {
			return js
		}
	}
	panic(fmt.Sprintf("deepsys: placed job %d is not pending", idx))
}

// commit books a whole placement into the picture, so that later jobs of
// the same decision see it as load.
func (cl *cluster) commit(js *sim.JobState, srv []int) {
	var seen []int
	for i, s := range srv {
		cl.free[s] = cl.free[s].Sub(js.Instances[i].Demand)
		if js.Instances[i].Role != datasets.RolePS {
			cl.gradMB[s] += js.Profile.GradientMB
		}
		if !containsInt(seen, s) {
			seen = append(seen, s)
		}
	}
	if len(seen) > 1 {
		for _, s := range seen {
			cl.flows[s]++
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// SpeedConfig configures the speed model and its training.
type SpeedConfig struct {
	Hidden    int     `json:"hidden"`    // width of the two hidden layers
	Epochs    int     `json:"epochs"`    // passes over the samples
	Minibatch int     `json:"minibatch"` // samples per Adam step
	LR        float64 `json:"lr"`
}

// DefaultSpeedConfig is two hidden layers of 64, 30 epochs of minibatches
// of 64 at learning rate 1e-3.
func DefaultSpeedConfig() SpeedConfig {
	return SpeedConfig{Hidden: 64, Epochs: 30, Minibatch: 64, LR: 1e-3}
}

// Validate reports unusable settings.
func (c SpeedConfig) Validate() error {
	if c.Hidden < 1 || c.Epochs < 0 || c.Minibatch < 1 || !(c.LR > 0 && c.LR < 1) {
		return fmt.Errorf("deepsys: hidden, minibatch >= 1, epochs >= 0 and lr in (0, 1) required, got %+v", c)
	}
	return nil
}

// SpeedModel predicts a placement's speed: an MLP with a sigmoid output.
type SpeedModel struct {
	cfg SpeedConfig
	ps  *nn.Params
	mlp *nn.MLP
	t   nn.Tape
}

// NewSpeedModel draws an untrained model from rng.
func NewSpeedModel(cfg SpeedConfig, rng *rand.Rand) (*SpeedModel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ps := nn.NewParams()
	return &SpeedModel{cfg: cfg, ps: ps, mlp: nn.NewMLP(ps, "speed", []int{speedFeatures, cfg.Hidden, cfg.Hidden, 1}, nn.ReLU, rng)}, nil
}

// Params returns the model's parameters.
func (m *SpeedModel) Params() *nn.Params { return m.ps }

// Fit trains the model on samples by mean squared error and returns the
// mean squared error of the last epoch.
func (m *SpeedModel) Fit(ctx context.Context, samples []Sample, rng *rand.Rand) (float64, error) {
	if len(samples) == 0 {
		return 0, errors.New("deepsys: no samples to fit")
	}
	opt := nn.NewAdam(m.ps, nn.AdamConfig{LR: m.cfg.LR})
	idx := make([]int, len(samples))
	for i := range idx {
		idx[i] = i
	}
	var mse float64
	for ep := 0; ep < m.cfg.Epochs; ep++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		mse = 0
		for lo := 0; lo < len(idx); lo += m.cfg.Minibatch {
			b := idx[lo:min(lo+m.cfg.Minibatch, len(idx))]
			x := make([]float64, 0, len(b)*speedFeatures)
			y := make([]float64, 0, len(b))
			for _, i := range b {
				x = append(x, samples[i].X...)
				y = append(y, samples[i].Speed)
			}
			m.t.Reset()
			pred := m.t.Sigmoid(m.mlp.Forward(&m.t, m.t.Const(len(b), speedFeatures, x)))
			d := m.t.Sub(pred, m.t.Const(len(b), 1, y))
			loss := m.t.Mean(m.t.Mul(d, d))
			mse += loss.Scalar() * float64(len(b))
			m.t.Backward(loss)
			opt.Step()
		}
		mse /= float64(len(idx))
	}
	return mse, nil
}

// Predict fills out[i] with the predicted speed of row i of x (rows of
// speedFeatures). It is not safe for concurrent use; schedulers keep
// their own tapes.
func (m *SpeedModel) Predict(x []float64, out []float64) { m.predict(&m.t, x, out) }

func (m *SpeedModel) predict(t *nn.Tape, x []float64, out []float64) {
	n := len(x) / speedFeatures
	t.Reset()
	pred := t.Sigmoid(m.mlp.Forward(t, t.Const(n, speedFeatures, x)))
	copy(out, pred.Data)
}

// Scheduler returns DeepSys: jobs in submission order; each instance goes
// to the fitting server that maximises the predicted speed of the job's
// placement so far (one batched inference over the candidate servers per
// instance); a job that does not fit stays pending. Schedulers of one
// model may run concurrently (while it is not being fitted).
func (m *SpeedModel) Scheduler() sim.Scheduler { return &speedScheduler{m: m} }

type speedScheduler struct {
	m    *SpeedModel
	t    nn.Tape
	x    []float64
	pred []float64
}

func (s *speedScheduler) Name() string { return "deepsys" }

func (s *speedScheduler) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	return placeJobs(ctx, st, func(cl *cluster, js *sim.JobState, cands, srv []int) int {
		s.x = s.x[:0]
		row := make([]float64, speedFeatures)
		for _, c := range cands {
			placementFeatures(row, js, append(srv, c), cl)
			s.x = append(s.x, row...)
		}
		s.pred = append(s.pred[:0], make([]float64, len(cands))...)
		s.m.predict(&s.t, s.x, s.pred)
		best := 0
		for i, p := range s.pred {
			if p > s.pred[best] {
				best = i
			}
		}
		return best
	}, nil)
}

// placeJobs is the decision of both learned schedulers: st's pending
// jobs in order, each placed instance by instance by search with pick,
// and booked in the cluster when all its instances fit. done, if not nil,
// is told after each job's search whether the job was placed.
func placeJobs(ctx context.Context, st *sim.State, pick func(cl *cluster, js *sim.JobState, cands, srv []int) int, done func(placed bool)) ([]sim.Placement, error) {
	cl := newCluster(st)
	var out []sim.Placement
	for _, js := range st.Pending {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		srv, ok := search(cl, js, func(cands, srv []int) int { return pick(cl, js, cands, srv) })
		if done != nil {
			done(ok)
		}
		if !ok {
			continue
		}
		cl.commit(js, srv)
		out = append(out, placementOf(js, srv))
	}
	return out, nil
}

// search places js's instances one by one on servers chosen by pick among
// those that fit what is left (the job's own earlier instances booked);
// ok is false when some instance fits nowhere.
func search(cl *cluster, js *sim.JobState, pick func(cands, srv []int) int) (srv []int, ok bool) {
	booked := map[int]sim.Resources{}
	var cands []int
	type key struct {
		free        sim.Resources
		grad, flows float64
		kind        string
	}
	seen := map[key]bool{}
	for i, in := range js.Instances {
		cands = cands[:0]
		clear(seen)
		for s := range cl.free {
			if !in.Demand.Fits(cl.free[s].Sub(booked[s])) {
				continue
			}
			// Servers alike in load and kind that the job does not use yet
			// score alike: score the lowest-indexed one only (most of a
			// large cluster is such servers).
			if _, used := booked[s]; !used {
				k := key{cl.free[s], cl.gradMB[s], cl.flows[s], cl.c.Servers[s].Kind.Name}
				if seen[k] {
					continue
				}
				seen[k] = true
			}
			cands = append(cands, s)
		}
		if len(cands) == 0 {
			return nil, false
		}
		c := cands[pick(cands, srv)]
		booked[c] = booked[c].Add(js.Instances[i].Demand)
		srv = append(srv, c)
	}
	return srv, true
}

func placementOf(js *sim.JobState, srv []int) sim.Placement {
	slots := make([]sim.Slot, len(srv))
	for i, s := range srv {
		slots[i] = sim.Slot{Server: s, Socket: -1}
	}
	return sim.Placement{Job: js.Index, Slots: slots}
}

// The keys of DeepSys' streams, under training.Stream: the family's
// (streamKey), then the model's (keySpeed, keyAtte), then what is drawn.
const (
	streamKey  pipeline.Key = "deepsys"
	keySpeed   pipeline.Key = "speed"
	keyAtte    pipeline.Key = "atte"
	keyShuffle pipeline.Key = "shuffle"
)

// seedRand derives the package's random streams.
func seedRand(seed uint64, key ...pipeline.Key) *rand.Rand {
	return pipeline.Rand(seed, training.Stream, append([]pipeline.Key{streamKey}, key...)...)
}
