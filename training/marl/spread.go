package marl

// Rollouts spread over a run's executor (issue 33, item 2): with
// TrainOptions.Spread, an iteration of several rollouts runs each
// rollout's step from one decision point to the next as a task of the
// executor, wherever it has workers (RunStep), and the driver adds their
// gradients in rollout order and takes the one optimiser step. A step is
// what the lock-step iteration does for one rollout between two updates:
// decide with the parameters and simulate to the next decision point,
// and learn the segments of the interval before (Config.Lag 1: with the
// values of the step before, which the process holds or replays) or of
// this one (Lag 0); so the bytes are the in-process training's.
//
// A process keeps each rollout it stepped (its simulation, actor and
// caches) for the rollout's next step. A process that does not hold the
// rollout at the step asked (another worker ran its last step, the
// worker restarted, or it dropped it for room) rebuilds it: it replays
// the episode's earlier steps, deciding with the parameters of each
// (every step's parameters are a blob the step reads) but not learning.
// An episode's actions come from its own stream, so the replay reaches
// the same simulation and the same stream position, bit for bit.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/schedlab/schedlab/pipeline"
	"github.com/schedlab/schedlab/sim"
	"github.com/schedlab/schedlab/training"
	"github.com/schedlab/schedlab/training/nn"
	"github.com/schedlab/schedlab/training/rl"
)

// stepPiece is one rollout's step: episode Episode's step from its
// decision point Step (0: from the start) to the next, with the
// parameters in the blob Params[Step]; Params[s] were those of its step
// s, read only to rebuild the rollout.
type stepPiece struct {
	Episode int      `json:"episode"`
	Step    int      `json:"step"`
	Params  []string `json:"params"`
}

// stepResult is what a step returns to the driver.
type stepResult struct {
	// Done: the episode ended (MeanJCT is its mean JCT).
	Done    bool
	MeanJCT float64
	// Calls are the actor's inferences in the step.
	Calls int
	// N are the steps learned (the previous step's segments); with N > 0,
	// Grad is the rollout's gradient (rolloutGrad), Ret the rewards' sum
	// and Upd the losses, weighted as gather weighs them.
	N    int
	Ret  float64
	Upd  rl.UpdateStats
	Grad []float64
}

// spreadIteration is iteration with each rollout's steps run by
// opts.Spread.
func (tr *trainer) spreadIteration(ctx context.Context, opts TrainOptions, first, n int) ([]training.Curve, error) {
	rs := make([]*rollout, n)
	calls := make([]int, n)
	for i := range rs {
		rs[i] = &rollout{ep: first + i}
		rs[i].c.Episode, rs[i].c.Split = int32(first+i), "train"
	}
	ps := tr.pol.net.ps.List()
	var names []string
	for step := 0; ; step++ {
		name := fmt.Sprintf("params-%d-%d", first, step)
		names = append(names, name)
		var pieces []training.Piece
		var idx []int
		for i, r := range rs {
			if r.done {
				continue
			}
			spec, err := json.Marshal(stepPiece{Episode: r.ep, Step: step, Params: names})
			if err != nil {
				return nil, err
			}
			pc := training.Piece{Spec: spec, Reads: names, Affinity: "episode-" + strconv.Itoa(r.ep)}
			pieces, idx = append(pieces, pc), append(idx, i)
		}
		if len(pieces) == 0 {
			break
		}
		outs, err := opts.Spread(ctx, training.Blob{Name: name, Data: encodeParams(ps)}, pieces)
		if err != nil {
			return nil, err
		}
		if len(outs) != len(pieces) {
			return nil, fmt.Errorf("marl: %d results for %d rollouts", len(outs), len(pieces))
		}
		contrib := 0
		for k, out := range outs {
			r := rs[idx[k]]
			var res stepResult
			if err := gob.NewDecoder(bytes.NewReader(out)).Decode(&res); err != nil {
				return nil, fmt.Errorf("marl: episode %d, step %d: result: %w", r.ep, step, err)
			}
			calls[idx[k]] += res.Calls
			if res.Done {
				r.done, r.c.MeanJCT = true, res.MeanJCT
			} else {
				r.points++
			}
			if res.N == 0 {
				continue
			}
			if len(res.Grad) != gradSize(ps) {
				return nil, fmt.Errorf("marl: episode %d, step %d: a gradient of %d values for %d parameters", r.ep, step, len(res.Grad), gradSize(ps))
			}
			contrib++
			addGrad(ps, res.Grad)
			r.account(res.Ret, res.Upd, res.N)
		}
		if contrib == 0 {
			continue
		}
		tr.step(contrib)
	}
	cs := make([]training.Curve, n)
	for i, r := range rs {
		cs[i] = r.curve(calls[i])
	}
	return cs, nil
}

// encodeParams writes the parameters' values, parameter after parameter,
// as little-endian float64s.
func encodeParams(ps []*nn.Param) []byte {
	b := make([]byte, 0, 8*gradSize(ps))
	for _, p := range ps {
		for _, v := range p.Data {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// decodeParams sets the parameters' values from encodeParams' bytes.
func decodeParams(ps []*nn.Param, b []byte) error {
	if len(b) != 8*gradSize(ps) {
		return fmt.Errorf("marl: parameters of %d bytes, want %d", len(b), 8*gradSize(ps))
	}
	for _, p := range ps {
		for i := range p.Data {
			p.Data[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
	}
	return nil
}

// stepped is a rollout kept between its steps: its own trainer (a
// policy network whose values each step sets, learners), the rollout,
// the step it is at and the blob its values came from.
type stepped struct {
	key    string
	tr     *trainer
	r      *rollout
	next   int
	params [sha256.Size]byte // of the values the network holds
	at     time.Time         // when it was last kept
}

// kept are the rollouts this process keeps between their steps, the
// least recently stepped first; at most keepRollouts(), none kept
// longer than keepIdle (the training that stepped it has moved it to
// another worker, or ended, or its driver died).
var kept struct {
	sync.Mutex
	list []*stepped
}

// keepRollouts bounds the rollouts a process keeps: one per core, at
// least four (each holds a simulation and its caches: about 0.35 GB at
// k = 20).
func keepRollouts() int { return max(4, runtime.GOMAXPROCS(0)) }

// keepIdle is how long a rollout is kept without a step: a step at
// k = 20 takes seconds, and the driver asks for the next as soon as every
// rollout of the iteration has stepped.
const keepIdle = 10 * time.Minute

// take removes and returns the kept rollout of (key, ep), nil if none.
func take(key string, ep int) *stepped {
	kept.Lock()
	defer kept.Unlock()
	for i, s := range kept.list {
		if s.key == key && s.r.ep == ep {
			kept.list = append(kept.list[:i], kept.list[i+1:]...)
			return s
		}
	}
	return nil
}

// keep puts s back as the most recently stepped, dropping the least
// recently stepped beyond the bound.
func keep(s *stepped) {
	kept.Lock()
	defer kept.Unlock()
	s.at = time.Now()
	kept.list = append(kept.list, s)
	over := len(kept.list) - keepRollouts()
	for over < len(kept.list) && kept.list[max(over, 0)].at.Before(s.at.Add(-keepIdle)) {
		over = max(over, 0) + 1
	}
	if over > 0 {
		clear(kept.list[:over])
		kept.list = kept.list[over:]
	}
}

// testHookRebuild, when set, is told of every rollout a step rebuilt,
// from the goroutine of the step (steps run side by side).
var testHookRebuild func(ep, step int)

// RunStep runs one piece of a spread training (TrainOptions.Spread):
// one rollout's step, with the parameters piece names, read by read.
// key names the training; build gives its Config and TrainOptions, and
// is called only when this process does not hold the rollout at that
// step and must rebuild it. The result is for the driver
// (spreadIteration).
func RunStep(ctx context.Context, key string, build func() (Config, TrainOptions, error), read func(string) ([]byte, error), piece []byte) ([]byte, error) {
	var p stepPiece
	if err := json.Unmarshal(piece, &p); err != nil {
		return nil, fmt.Errorf("marl: step: %w", err)
	}
	if p.Step < 0 || len(p.Params) != p.Step+1 {
		return nil, fmt.Errorf("marl: step %d of episode %d names %d parameter sets, want %d", p.Step, p.Episode, len(p.Params), p.Step+1)
	}
	s := take(key, p.Episode)
	if s == nil || s.next != p.Step {
		var err error
		if s, err = rebuild(ctx, key, build, read, p); err != nil {
			return nil, err
		}
	}
	res, err := s.step(ctx, read, p.Params[p.Step])
	if err != nil {
		return nil, err
	}
	if !res.Done {
		s.next++
		keep(s)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(res); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// built is a training's configuration, options and graphs as a step
// built them, kept for the rollouts of the training's next episodes.
type built struct {
	key    string
	cfg    Config
	opts   TrainOptions
	simCfg sim.Config
	cg     *clusterGraph
}

// builds are the last trainings whose steps this process built (their
// jobs and graphs, shared read-only by their rollouts), the latest last.
var builds struct {
	sync.Mutex
	list []*built
}

// buildOf returns the training key's built options, building them when
// this process has none.
func buildOf(key string, build func() (Config, TrainOptions, error)) (*built, error) {
	builds.Lock()
	defer builds.Unlock()
	for _, b := range builds.list {
		if b.key == key {
			return b, nil
		}
	}
	cfg, opts, err := build()
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("marl: %w", err)
	}
	if opts.Cluster == nil || len(opts.Train) == 0 {
		return nil, errors.New("marl: a step needs a cluster and training jobs")
	}
	b := &built{key: key, cfg: cfg, opts: opts}
	if b.simCfg, err = trainSim(opts.Sim); err != nil {
		return nil, err
	}
	if b.cg, err = buildGraphs(opts.Cluster, cfg.Variant); err != nil {
		return nil, err
	}
	builds.list = append(builds.list, b)
	if over := len(builds.list) - 2; over > 0 {
		clear(builds.list[:over])
		builds.list = builds.list[over:]
	}
	return b, nil
}

// rebuild starts episode p.Episode afresh and replays its steps before
// p.Step, deciding with each one's parameters, learning nothing.
func rebuild(ctx context.Context, key string, build func() (Config, TrainOptions, error), read func(string) ([]byte, error), p stepPiece) (*stepped, error) {
	b, err := buildOf(key, build)
	if err != nil {
		return nil, err
	}
	cfg := b.cfg
	pol, err := NewPolicy(cfg, b.opts.Seed)
	if err != nil {
		return nil, err
	}
	tr := &trainer{cfg: cfg, pol: pol, e: newEvaluator(pol.net, b.cg)}
	r, err := tr.newRollout(b.opts, b.simCfg, tr.e, p.Episode)
	if err != nil {
		return nil, err
	}
	if testHookRebuild != nil {
		testHookRebuild(p.Episode, p.Step)
	}
	s := &stepped{key: key, tr: tr, r: r}
	for step := range p.Step {
		if err := s.load(read, p.Params[step]); err != nil {
			return nil, err
		}
		if err := r.advance(ctx, cfg); err != nil {
			return nil, err
		}
		if r.done {
			return nil, fmt.Errorf("marl: episode %d ended at step %d of a replay to step %d", p.Episode, step, p.Step)
		}
		// With Config.Lag 1 each step learns the segments of the step
		// before: the last replayed step's are the asked step's.
		for i := range r.pending {
			r.pending[i].reset()
		}
		r.shift()
	}
	if cfg.Lag == 0 {
		for i := range r.pending {
			r.pending[i].reset()
		}
		r.pn, r.pret = 0, 0
	}
	s.next = p.Step
	return s, nil
}

// load sets the network's values to the blob name's, unless they are
// those already (an update that learnt nothing moved nothing); values
// that moved make every cached value stale.
func (s *stepped) load(read func(string) ([]byte, error), name string) error {
	b, err := read(name)
	if err != nil {
		return fmt.Errorf("marl: parameters %s: %w", name, err)
	}
	sum := sha256.Sum256(b)
	if sum == s.params {
		return nil
	}
	if err := decodeParams(s.tr.pol.net.ps.List(), b); err != nil {
		return err
	}
	s.params = sum
	s.tr.e.gen++
	s.r.a.paramsMoved()
	return nil
}

// step runs the rollout's step with the parameters of blob name, as the
// in-process iteration does: with Config.Lag 0, advance, then learn the
// segments it prepared into the rollout's gradient; with 1, learn the
// segments of the step before with the values that decided them (those
// the network holds) while it advances with name's.
func (s *stepped) step(ctx context.Context, read func(string) ([]byte, error), name string) (stepResult, error) {
	tr, r := s.tr, s.r
	if tr.cfg.Lag > 0 {
		tr.hold()
	}
	if err := s.load(read, name); err != nil {
		return stepResult{}, err
	}
	// The learner spreads over the idle workers of the task's process,
	// as a training task's does (pipeline.BorrowWorker).
	tr.borrow = func() (func(), bool) { return pipeline.BorrowWorker(ctx) }
	calls := r.a.calls
	rs := []*rollout{r}
	todo, _, stats, err := tr.update(ctx, rs, func(r *rollout) error { return r.advance(ctx, tr.cfg) })
	if err != nil {
		return stepResult{}, err
	}
	res := stepResult{Calls: r.a.calls - calls, Done: r.done, MeanJCT: r.c.MeanJCT}
	if len(todo) > 0 {
		res.Grad = rolloutGrad(nil, tr.grads[:len(todo)], gradSize(tr.pol.net.ps.List()))
		res.Upd, res.N, res.Ret = learnt(stats), r.pn, r.pret
	}
	tr.settle(rs)
	return res, nil
}
