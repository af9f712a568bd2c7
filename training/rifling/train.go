package rifling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/daspaper"
	"github.com/schedlab/schedlab/training/rl"
)

// Stage names RIFLING's random streams.
const Stage = "train-rifling"

// Evaluation is what the greedy policy achieved on a job set; Return is
// the sum of the placements' rewards (the PPO form's, of its Eq. 3
// rewards).
type Evaluation = daspaper.Evaluation

// Result is a training run.
type Result struct {
	Policy   *Policy
	Curves   []training.Curve
	InitVal  Evaluation // the untrained table: every job packed, FIFO first-fit
	FinalVal Evaluation
}

// TrainOptions are the inputs besides the Config.
type TrainOptions = daspaper.BaselineOptions

// Train fits the state groups and learns the Q-table.
func Train(ctx context.Context, cfg Config, split daspaper.Split, opts TrainOptions) (*Result, error) {
	if err := opts.Check("rifling", cfg, split); err != nil {
		return nil, err
	}
	s := newStreams(opts.Seed)
	var saved resumeState
	_, resumed, err := opts.Resume.LoadState("rifling", resumeKey(cfg), &saved)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	if resumed {
		if err := saved.restore(cfg, res, s); err != nil {
			return nil, err
		}
	} else if res, err = initial(ctx, cfg, split, opts); err != nil {
		return nil, err
	}
	return train(ctx, cfg, split, opts, res, saved.Ep, s)
}

// initial is a training's start: the state groups, fitted by k-means to
// the states met by a first-fit pass over the training jobs, the table
// of zeros, and its evaluation.
func initial(ctx context.Context, cfg Config, split daspaper.Split, opts TrainOptions) (*Result, error) {
	rng := pipeline.Rand(opts.Seed, Stage, training.KeyKMeans)
	points, err := sampleStates(ctx, cfg, opts, split.Train, maxStates, rng)
	if err != nil {
		return nil, fmt.Errorf("rifling: state sampling: %w", err)
	}
	if len(points) == 0 {
		return nil, errors.New("rifling: no job states to cluster")
	}
	k := cfg.Clusters
	if k == 0 {
		k = max(1, int(math.Round(math.Sqrt(float64(len(split.Train))/2))))
	}
	cents := kmeans(points, k, cfg.KMeansIters, rng)
	p := &Policy{Config: cfg, Centroids: cents, Q: rl.NewQTable(len(cents), numActions, cfg.Alpha, cfg.Gamma)}
	val := split.ValJobs(cfg.ValJobs)
	res := &Result{Policy: p}
	if res.InitVal, err = p.Evaluate(ctx, opts.Cluster, opts.Sim, opts.Interference, val); err != nil {
		return nil, err
	}
	res.FinalVal = res.InitVal
	return res, nil
}

// train runs the episodes after the first start of them.
func train(ctx context.Context, cfg Config, split daspaper.Split, opts TrainOptions, res *Result, start int, s streams) (*Result, error) {
	p, val := res.Policy, split.ValJobs(cfg.ValJobs)
	segRng, actRng := rand.New(s.seg), rand.New(s.act)
	base := training.Curve{Family: "rifling", Variant: "rifling", Cluster: opts.ClusterName}
	for ep := start; ep < cfg.Episodes; ep++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		seg := daspaper.Segment(split.Train, cfg.SegmentJobs, segRng)
		out, err := p.run(ctx, opts.Cluster, opts.Sim, opts.Interference, seg, actRng, true, nil)
		if err != nil {
			return nil, fmt.Errorf("rifling: episode %d: %w", ep, err)
		}
		ev, err := p.Evaluate(ctx, opts.Cluster, opts.Sim, opts.Interference, val)
		if err != nil {
			return nil, err
		}
		res.FinalVal = ev
		row := base.Row(ep, "train", out.Return, out.Metrics)
		v := base.Row(ep, "validation", ev.Return, ev.Metrics)
		res.Curves = append(res.Curves, row, v)
		if opts.OnEpisode != nil {
			opts.OnEpisode([]training.Curve{row, v})
		}
		if opts.Resume != nil {
			if err := opts.Resume.SaveState("rifling", resumeKey(cfg), ep+1, cfg.Episodes, capture(ep+1, res, s)); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// maxStates bounds the states k-means clusters: its cost is points × k ×
// iterations.
const maxStates = 20000

// sampleStates returns the states a first-fit pass over jobs meets, in the
// order met; when there are more than limit, the limit of them at
// rng.Perm(n)[:limit]. Every decision sees every pending job, so a pass
// over the nightly's 4,800 training jobs meets about ten million states:
// kept whole they held 850 MiB until the draw (issue 18). Instead a first
// pass counts them (keeping the first limit, all there is when n ≤
// limit), and a second, the same deterministic pass, keeps the drawn ones:
// the same states as keeping all and drawing after.
func sampleStates(ctx context.Context, cfg Config, opts TrainOptions, jobs []datasets.Job, limit int, rng *rand.Rand) ([][]float64, error) {
	probe := &Policy{Config: cfg, Centroids: [][]float64{make([]float64, stateWidth)}, Q: rl.NewQTable(1, numActions, cfg.Alpha, cfg.Gamma)}
	var points [][]float64
	n := 0
	first := func(x []float64) {
		if n < limit {
			points = append(points, x)
		}
		n++
	}
	if _, err := probe.run(ctx, opts.Cluster, opts.Sim, opts.Interference, jobs, nil, false, first); err != nil {
		return nil, err
	}
	if n <= limit {
		return points, nil
	}
	idx := rng.Perm(n)[:limit]
	slices.Sort(idx)
	points = points[:0]
	i := 0
	second := func(x []float64) {
		if len(points) < len(idx) && idx[len(points)] == i {
			points = append(points, x)
		}
		i++
	}
	if _, err := probe.run(ctx, opts.Cluster, opts.Sim, opts.Interference, jobs, nil, false, second); err != nil {
		return nil, err
	}
	if i != n {
		return nil, fmt.Errorf("the second pass met %d states, the first %d", i, n)
	}
	return points, nil
}

// Evaluate runs the greedy policy on jobs, learning nothing.
func (p *Policy) Evaluate(ctx context.Context, c *sim.Cluster, sc sim.Config, model sim.Interference, jobs []datasets.Job) (Evaluation, error) {
	ev, err := p.run(ctx, c, sc, model, jobs, nil, false, nil)
	if err != nil {
		return ev, fmt.Errorf("rifling: evaluate: %w", err)
	}
	return ev, nil
}

type waitedAt struct{ s int }

// run drives one episode. With rng the choices explore; with learn the
// table is updated online; collect, if set, receives every state met.
func (p *Policy) run(ctx context.Context, c *sim.Cluster, sc sim.Config, model sim.Interference, jobs []datasets.Job, rng *rand.Rand, learn bool, collect func([]float64)) (Evaluation, error) {
	var ev Evaluation
	s, err := sim.New(c, jobs, sc, model)
	if err != nil {
		return ev, err
	}
	d := newDecider(p, rng, learn, collect)
	for {
		st, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return ev, err
		}
		pl, starts := d.decide(st)
		if err := s.Apply(pl); err != nil {
			return ev, err
		}
		for _, x := range starts {
			r := s.Job(x.job).Rate() // processing rate relative to standalone
			ev.Return += r
			if learn {
				p.Q.Update(x.s, x.a, r, 0, true)
			}
		}
	}
	ev.Metrics = s.Result().Metrics
	return ev, nil
}

// decider makes one run's decisions; it remembers which jobs waited.
type decider struct {
	p       *Policy
	rng     *rand.Rand
	learn   bool
	collect func([]float64)
	waited  map[int]int // job index → the state it waited in
}

type start struct{ job, s, a int }

func newDecider(p *Policy, rng *rand.Rand, learn bool, collect func([]float64)) *decider {
	return &decider{p: p, rng: rng, learn: learn, collect: collect, waited: map[int]int{}}
}

// decide takes the pending jobs first come first served.
func (d *decider) decide(st *sim.State) ([]sim.Placement, []start) {
	rows, chosen := daspaper.Observe(st, len(st.Pending), nil)
	led := st.Ledger()
	total := st.ClusterTotal()
	var pl []sim.Placement
	var starts []start
	mask := make([]bool, numActions)
	for r, js := range chosen {
		x := state(rows, r, led, total)
		if d.collect != nil {
			d.collect(x)
		}
		g := d.p.group(x)
		if w, ok := d.waited[js.Index]; ok && w >= 0 {
			if d.learn {
				d.p.Q.Update(w, ActWait, 0, g, false)
			}
			d.waited[js.Index] = -1 // waited once, settled
		}
		if !feasible(led, js, mask) {
			continue // nothing to decide: the job cannot start now
		}
		_, did := d.waited[js.Index]
		mask[ActWait] = !did
		a := d.p.choose(g, mask, d.rng)
		if a == ActWait {
			d.waited[js.Index] = g
			continue
		}
		pl = append(pl, sim.Placement{Job: js.Index, Slots: place(led, js, a)})
		starts = append(starts, start{js.Index, g, a})
	}
	return pl, starts
}

// Scheduler runs a RIFLING policy greedily as a sim.Scheduler; one value
// serves one run.
type Scheduler struct{ d *decider }

// NewScheduler wraps a policy.
func NewScheduler(p *Policy) *Scheduler { return &Scheduler{d: newDecider(p, nil, false, nil)} }

// Name is "rifling".
func (s *Scheduler) Name() string { return "rifling" }

// Schedule implements sim.Scheduler.
func (s *Scheduler) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pl, _ := s.d.decide(st)
	return pl, nil
}

// File is the saved form of a policy.
type File struct {
	Family     string  `json:"family"`
	ConfigHash string  `json:"config_hash"`
	Cluster    string  `json:"cluster,omitempty"`
	Policy     *Policy `json:"policy"`
}

// ErrNotRIFLING means a file is not a RIFLING policy or its hash does not
// match its configuration.
var ErrNotRIFLING = errors.New("rifling: not a RIFLING policy")

// Save writes p to path as JSON (floats round-trip exactly).
func Save(path string, p *Policy, cluster string) error {
	b, err := json.MarshalIndent(File{Family: "rifling", ConfigHash: p.Config.Hash(), Cluster: cluster, Policy: p}, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Load reads a policy saved by Save.
func Load(path string) (*Policy, error) {
	var f File
	if err := readJSON("rifling", path, &f); err != nil {
		return nil, err
	}
	if f.Family != "rifling" || f.Policy == nil || f.Policy.Q == nil || f.Policy.Config.Hash() != f.ConfigHash {
		return nil, fmt.Errorf("%w: %s", ErrNotRIFLING, path)
	}
	q := f.Policy.Q
	if q.Actions != numActions || q.States != len(f.Policy.Centroids) || len(q.Q) != q.States*q.Actions || len(q.N) != len(q.Q) {
		return nil, fmt.Errorf("%w: %s: a %d×%d table for %d groups", ErrNotRIFLING, path, q.States, q.Actions, len(f.Policy.Centroids))
	}
	for _, c := range f.Policy.Centroids {
		if len(c) != stateWidth {
			return nil, fmt.Errorf("%w: %s: centroid of width %d, want %d", ErrNotRIFLING, path, len(c), stateWidth)
		}
	}
	return f.Policy, nil
}

// readJSON decodes the JSON file at path into v; its errors name the
// family, and the path where the file is not JSON.
func readJSON(family, path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", family, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %s: %w", family, path, err)
	}
	return nil
}

// Open loads a policy as a scheduler.
func Open(path string) (*Scheduler, error) {
	p, err := Load(path)
	if err != nil {
		return nil, err
	}
	return NewScheduler(p), nil
}
