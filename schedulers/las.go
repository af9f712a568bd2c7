package schedulers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/schedlab/schedlab/sim"
)

// TiresiasConfig holds the keys of Tiresias' discretised 2D-LAS and its
// Gittins variant. The zero value is the reference's defaults (Tiresias
// simulator, jobs.py and run_sim.py at 959f9b0).
type TiresiasConfig struct {
	// ThresholdsGPUS are the queue limits in GPU-seconds of attained
	// service: a job in queue k moves to queue k+1 once its executed
	// time × GPUs reaches ThresholdsGPUS[k]. Empty: {3250, 7200}, the
	// reference's queue_limit with num_queue = 3 (three queues; its third
	// limit, 18000, is never read).
	ThresholdsGPUS []float64
	// Promote is the reference's solve_starvation knob: a job that has run
	// and has since waited Promote × its executed time goes back to the
	// top queue with its executed time reset. 0 (the reference's dlas-gpu
	// and dlas-gpu-gittins) turns promotion off.
	Promote float64
	// ExactWake makes the decision that checks demotions come when a
	// job's executed time × GPUs reaches its queue's limit. The reference
	// (false) computes that time as now + ⌊(limit − executed)/GPUs⌋, a
	// GPU-second limit minus plain seconds under Python 2's integer
	// division, so its demotions come late; the checks happen at every
	// event all the same.
	ExactWake bool
	// OneDimensional uses executed time alone, not × GPUs (the
	// reference's "dlas" rather than "dlas-gpu").
	OneDimensional bool
	// GittinsSamples is the file of job GPU-time samples the Gittins
	// variant builds its index from (CSV with a duration column). Empty:
	// tiresias/yarn-gput1000.csv under Options.DataDir, as the reference
	// reads yarn-gput1000.csv.
	GittinsSamples string
	// GittinsDeltaGPUS is the Gittins index's service quantum Δ in
	// GPU-seconds; 0: 3250 (the reference's gittins_delta).
	GittinsDeltaGPUS float64
}

// Validate checks the keys; messages name them.
func (c TiresiasConfig) Validate() error {
	for i, t := range c.ThresholdsGPUS {
		if !(t > 0) || math.IsInf(t, 0) || (i > 0 && t <= c.ThresholdsGPUS[i-1]) {
			return fmt.Errorf("tiresias.thresholds_gpus: must be positive, finite and increasing, got %v", c.ThresholdsGPUS)
		}
	}
	if !(c.Promote >= 0) || math.IsInf(c.Promote, 0) {
		return fmt.Errorf("tiresias.promote: must be >= 0 and finite, got %v", c.Promote)
	}
	if !(c.GittinsDeltaGPUS >= 0) || math.IsInf(c.GittinsDeltaGPUS, 0) {
		return fmt.Errorf("tiresias.gittins_delta_gpus: must be >= 0 and finite, got %v", c.GittinsDeltaGPUS)
	}
	return nil
}

func (c TiresiasConfig) thresholds() []float64 {
	if len(c.ThresholdsGPUS) == 0 {
		return []float64{3250, 7200}
	}
	return c.ThresholdsGPUS
}

// LAS is Tiresias' discretised two-dimensional least-attained-service
// policy (Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep
// Learning", NSDI 2019, §3.2; the reference is its simulator,
// SymbioticLab/Tiresias simulator/run_sim.py, dlas_sim_jobs, schedule
// "dlas-gpu"). Jobs enter the top queue; a running job whose attained
// service (executed time × GPUs) reaches its queue's limit moves one queue
// down, at the next event. At every arrival, completion and demotion check
// the queues are walked top to bottom, each in its order, admitting what
// fits and preempting running jobs that no longer do; then each queue puts
// its pending jobs behind its running ones (keeping their order), so a
// queue is FIFO among the jobs that wait. It reads no duration.
//
// The reference's odd rules, kept: a job moves down at most one queue per
// event; the time of the next demotion check is computed as
// TiresiasConfig.ExactWake describes; new jobs and demoted jobs join the
// end of their queue. Promotion (TiresiasConfig.Promote) is off by
// default, as in the reference's dlas-gpu.
type LAS struct {
	name     string
	cfg      TiresiasConfig
	limits   []float64
	queues   [][]*rjob
	gittins  *gittinsIndex // nil: FIFO within a queue
	scratch  []*rjob
	down     []*rjob // scratch of advanceRunning
	qRunning []int32 // per queue, its running jobs after a decision's walk
	runnable
}

var (
	_ sim.Decider       = (*LAS)(nil)
	_ sim.ProgressBlind = (*LAS)(nil)
	_ sim.PendingBlind  = (*LAS)(nil)
)

// NewLAS returns Tiresias' discretised 2D-LAS with cfg's keys.
func NewLAS(cfg TiresiasConfig) (*LAS, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := cfg.thresholds()
	name := "tiresias-las"
	if cfg.OneDimensional {
		name = "tiresias-las-1d"
	}
	return &LAS{name: name, cfg: cfg, limits: l, queues: make([][]*rjob, len(l)+1)}, nil
}

// Name implements sim.Scheduler.
func (p *LAS) Name() string { return p.name }

// ForgetsState implements sim.StateForgetter: LAS keeps its own records
// (rjob) and nothing of a State past its decision.
func (p *LAS) ForgetsState() {}

// IgnoresProgress implements sim.ProgressBlind: LAS's clocks are its own
// (rjob), never State.Since.Progress.
func (p *LAS) IgnoresProgress() {}

// IgnoresPending implements sim.PendingBlind: LAS's queues are its own,
// kept from State.Arrived and its decisions.
func (p *LAS) IgnoresPending() {}

// Schedule implements sim.Scheduler (see scheduleVia).
func (p *LAS) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	return scheduleVia(ctx, p, st)
}

// service is the attained service that ranks a job: executed GPU-seconds
// (or seconds, one-dimensional).
func (p *LAS) service(j *rjob) float64 {
	if p.cfg.OneDimensional {
		return j.executed
	}
	return j.executed * j.gpus
}

// Decide implements sim.Decider.
func (p *LAS) Decide(_ context.Context, st *sim.State) (sim.Decision, error) {
	now := st.Now
	p.sync(st, func(j *rjob) { p.queues[j.queue] = removeGone(p.queues[j.queue]) }, func(j *rjob) {
		j.queue = 0
		p.queues[0] = append(p.queues[0], j)
	})
	last := len(p.queues) - 1
	if p.runningOnly() {
		p.advanceRunning(st, last)
	} else {
		p.advanceAll(now, last)
	}
	if p.gittins != nil {
		for _, q := range p.queues {
			// Highest index first, then earliest submission (the
			// reference sorts by (rank, −submit) in reverse, stably).
			slices.SortStableFunc(q, func(a, b *rjob) int {
				if c := cmp.Compare(b.key, a.key); c != 0 {
					return c
				}
				return cmp.Compare(a.js.SubmitS, b.js.SubmitS)
			})
		}
	}
	d := p.walk(st, p.queues...)
	// The running jobs now: the engine's, less the preempted, and the
	// starts. Without promotion only they can be due a check, and they
	// say which queues hold a running job behind a pending one.
	runs := slices.Grow(p.qRunning[:0], len(p.queues))[:len(p.queues)]
	clear(runs)
	var wake float64
	for _, js := range st.Running {
		if j := p.get(js.Index); j != nil && j.running {
			runs[j.queue]++
			wake = p.wakeOf(j, now, last, wake)
		}
	}
	for _, pl := range d.Start {
		j := p.get(pl.Job)
		runs[j.queue]++
		wake = p.wakeOf(j, now, last, wake)
	}
	p.qRunning = runs
	for qi, q := range p.queues {
		// Running jobs first, then the pending ones, each in order. Only
		// the part from the first pending job moves, and only if a
		// running job follows it: a queue rewritten at every decision is
		// a pointer write per job, each one a write barrier while the
		// collector runs. The jobs before the first pending one all run,
		// so one follows it exactly when the queue runs more than them.
		f := slices.IndexFunc(q, func(j *rjob) bool { return !j.running })
		if f < 0 || runs[qi] == int32(f) {
			continue
		}
		k := f
		pend := p.scratch[:0]
		for _, j := range q[f:] {
			if j.running {
				q[k] = j
				k++
			} else {
				pend = append(pend, j)
			}
		}
		copy(q[k:], pend)
		p.scratch = pend[:0]
		p.queues[qi] = q
	}
	if p.cfg.Promote > 0 {
		wake = p.nextCheck(now) // pending jobs are due promotions too
	}
	d.WakeS = wake
	return d, nil
}

// runningOnly reports whether a decision need advance only the running
// jobs: without promotion and the Gittins index nothing reads a pending
// job's clocks (walk sets lastCheck when it starts one), and a pending
// job changes no queue.
func (p *LAS) runningOnly() bool { return p.cfg.Promote == 0 && p.gittins == nil }

// advanceAll is the reference's update loop over every runnable job:
// clocks advanced, demotions and promotions made in the list's order.
func (p *LAS) advanceAll(now float64, last int) {
	for _, j := range p.list {
		wasRunning := j.running
		j.advance(now)
		if wasRunning {
			if q := int(j.queue); q < last && p.service(j) >= p.limits[q] {
				p.move(j, q+1)
			}
		} else if p.cfg.Promote > 0 && j.queue > 0 && j.total > 0 && j.executed > 0 && j.lastPending >= math.Trunc(j.executed*p.cfg.Promote) {
			j.executed, j.lastPending = 0, 0
			p.move(j, 0)
		}
		if p.gittins != nil {
			j.key = p.gittins.rank(math.Trunc(p.service(j)))
		}
	}
}

// advanceRunning is advanceAll where runningOnly holds: the engine's
// running jobs (st.Running), which are the policy's, are advanced; a
// pending job's clocks, which nothing reads without promotion, are not.
// The demotions are made in the list's order, as advanceAll makes them:
// LAS never reorders its list, so that is arrival order (rjob.seq).
func (p *LAS) advanceRunning(st *sim.State, last int) {
	down := p.down[:0]
	for _, js := range st.Running {
		j := p.get(js.Index)
		if j == nil || !j.running {
			continue
		}
		j.advance(st.Now)
		if q := int(j.queue); q < last && p.service(j) >= p.limits[q] {
			down = append(down, j)
		}
	}
	if len(down) > 1 {
		slices.SortFunc(down, func(a, b *rjob) int { return cmp.Compare(a.seq, b.seq) })
	}
	for _, j := range down {
		p.move(j, int(j.queue)+1)
	}
	clear(down)
	p.down = down[:0]
}

// move puts j at the end of queue q.
func (p *LAS) move(j *rjob, q int) {
	old := p.queues[j.queue]
	if k := slices.Index(old, j); k >= 0 {
		p.queues[j.queue] = slices.Delete(old, k, k+1)
	}
	j.queue = int32(q)
	p.queues[q] = append(p.queues[q], j)
}

// nextCheck is when the next demotion (or promotion) is due, 0 for none,
// over every runnable job.
func (p *LAS) nextCheck(now float64) float64 {
	var best float64
	last := len(p.queues) - 1
	for _, j := range p.list {
		switch {
		case j.running:
			best = p.wakeOf(j, now, last, best)
		case p.cfg.Promote > 0 && j.queue > 0 && j.total > 0 && j.executed > 0:
			if diff := math.Trunc(j.executed*p.cfg.Promote - j.lastPending); diff > 0 {
				best = wakeAt(now, now+diff, best)
			}
		}
	}
	return best
}

// wakeOf is best brought to the running job j's demotion check (wakeAt):
// none in the last queue. The earliest time does not depend on the order
// the jobs are visited in.
func (p *LAS) wakeOf(j *rjob, now float64, last int, best float64) float64 {
	if int(j.queue) >= last {
		return best
	}
	lim := p.limits[j.queue]
	var t float64
	switch {
	case p.cfg.ExactWake:
		t = now + (lim-p.service(j))/max(j.gpus, 1)
		if p.cfg.OneDimensional {
			t = now + lim - j.executed
		}
	case p.cfg.OneDimensional:
		t = math.Trunc(now + lim - j.executed)
	default:
		t = math.Trunc(now + math.Floor((lim-j.executed)/j.gpus))
	}
	return wakeAt(now, t, best)
}
