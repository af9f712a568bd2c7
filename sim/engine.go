package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/schedlab/schedlab/datasets"
)

var inf = math.Inf(1)

// Errors of the simulator. Each is wrapped with the job, server or scheduler
// it concerns.
var (
	// ErrInfeasible: a placement names an unknown or non-pending job, has the
	// wrong number of slots, names a server or socket that does not exist, or
	// over-commits a server. The whole decision is rejected.
	ErrInfeasible = errors.New("infeasible placement")
	// ErrStalled: jobs are pending, nothing runs, no job is still to arrive,
	// and the scheduler placed nothing; the run could never end.
	ErrStalled = errors.New("scheduler stalled")
	// ErrDisconnected: a server cannot reach the others.
	ErrDisconnected = errors.New("disconnected server")
	// ErrBadJob: a job has a non-finite or negative time or resource, or no
	// instances.
	ErrBadJob = errors.New("invalid job")
	// ErrOversized: a job cannot fit the empty cluster and pruning is off.
	ErrOversized = errors.New("job larger than the cluster")
)

// Trigger modes.
const (
	TriggerEvent    = "event"    // decide after every batch of arrivals/completions (DAS)
	TriggerInterval = "interval" // decide every IntervalS seconds (MARL)
)

// Config is the simulator's configuration.
type Config struct {
	// Trigger is "event" or "interval".
	Trigger string `mapstructure:"trigger" yaml:"trigger" json:"trigger"`
	// IntervalS is the period of interval triggers, seconds.
	IntervalS float64 `mapstructure:"interval_s" yaml:"interval_s" json:"interval_s"`
	// PriceGPUHour is the fee per GPU-hour, dollars.
	PriceGPUHour float64 `mapstructure:"price_gpu_hour" yaml:"price_gpu_hour" json:"price_gpu_hour"`
	// PruneOversized drops (and counts) jobs that cannot fit the empty
	// cluster; when false such a job is an error.
	PruneOversized bool `mapstructure:"prune_oversized" yaml:"prune_oversized" json:"prune_oversized"`
	// Speed is "model" (or empty: interference and communication slow jobs
	// down, DESIGN.md §4) or "standalone" (every job runs at its recorded
	// duration wherever it is placed: a pure trace replay, as the DAS
	// paper's simulator).
	Speed string `mapstructure:"speed" yaml:"speed" json:"speed"`
}

// Speed models.
const (
	SpeedModel      = "model"
	SpeedStandalone = "standalone"
)

// DefaultConfig is on-event triggering, 30-minute intervals when interval
// triggering is chosen, 2.84 $/GPU-hour (V100, Alibaba Cloud, Aug 2022, DAS
// §5.1.3), oversized jobs pruned, the full speed model.
func DefaultConfig() Config {
	return Config{Trigger: TriggerEvent, IntervalS: 1800, PriceGPUHour: 2.84, PruneOversized: true, Speed: SpeedModel}
}

// Validate checks the config; messages name the key.
func (c Config) Validate() error {
	switch c.Trigger {
	case TriggerEvent, TriggerInterval:
	default:
		return fmt.Errorf("sim.trigger: must be %q or %q, got %q", TriggerEvent, TriggerInterval, c.Trigger)
	}
	if c.Trigger == TriggerInterval && !(c.IntervalS > 0 && !math.IsInf(c.IntervalS, 0)) {
		return fmt.Errorf("sim.interval_s: must be > 0 and finite, got %v", c.IntervalS)
	}
	switch c.Speed {
	case "", SpeedModel, SpeedStandalone:
	default:
		return fmt.Errorf("sim.speed: must be %q or %q, got %q", SpeedModel, SpeedStandalone, c.Speed)
	}
	if !(c.PriceGPUHour >= 0) || math.IsInf(c.PriceGPUHour, 0) {
		return fmt.Errorf("sim.price_gpu_hour: must be >= 0 and finite, got %v", c.PriceGPUHour)
	}
	return nil
}

// flow is one point-to-point transfer of a job per iteration. Links are
// full duplex: a hop is a directed link id, 2·link + 0 from Link.A to Link.B
// and 2·link + 1 the other way, and flows share a direction's capacity only
// with the flows crossing the link the same way. A duplex flow (a worker–PS
// pair) sends half its volume along links (push) and then half back (pull);
// the other flows (ring all-reduce hops) send all of it along links.
type flow struct {
	links  []int32 // directed hops from source to destination
	volume float64 // Gbit per iteration, both ways together for a duplex flow
	duplex bool
}

// take is what one instance took from one socket.
type take struct {
	server, socket int32
	gpu, cpu       float64
}

type instRef struct {
	job    int32
	inst   int32
	socket int32
}

type event struct {
	t   float64
	job int32
	ver uint32
}

// Sim is one simulation run: the cluster, the jobs, and the clock. Drive it
// with Next and Apply (or let Run do it). A Sim is not safe for concurrent
// use; distinct Sims may share a Cluster and the jobs slice.
type Sim struct {
	cfg     Config
	cluster *Cluster
	model   Interference
	jobs    []JobState
	order   []int32 // accepted jobs by (submit, index)
	pruned  []PrunedJob

	now       float64
	nextArr   int // cursor into order
	nextTrig  float64
	pending   []*JobState
	running   []*JobState
	free      []Resources
	sockFree  [][]Resources
	srvInst   [][]instRef
	linkCount []int32   // flows per directed link (2·link + direction)
	linkJobs  [][]int32 // per link, the job of each flow crossing it (either way)
	dists     [][]int32 // hop distances to each destination node, built on demand
	heap      []event
	dirty     []*JobState

	// decision bookkeeping
	awaiting      bool // Next returned a State; Apply not yet called
	stalled       bool
	decisions     int
	lastDecisionS float64
	sinceFinished []JobResult
	unplaced      int // pending jobs left by the last decision: a prefix of pending
	progressBuf   []Progress
	leftFit       int8 // could a job left pending by the last decision fit now? (fitUnknown until checked)
	results       []JobResult
	gpuSeconds    float64

	sameBuf, otherBuf []JobLoad
	serverSeen        []int32 // per server, stamp of last job that touched it
	stamp             int32
	total             Resources
	standalone        bool
	scratch           []Resources // check's working copy of free
	seen              []uint32    // per job, checkStamp when placed in the decision being checked
	checkStamp        uint32
}

// PrunedJob is a job dropped before the run, with the reason.
type PrunedJob struct {
	Index  int    `parquet:"index" json:"index"`
	JobID  string `parquet:"job_id" json:"job_id"`
	Reason string `parquet:"reason" json:"reason"`
}

// New validates the cluster, config and jobs and returns a simulation at
// time 0. A nil model means DefaultInterference. The jobs slice is read, not
// retained beyond pointers into it (do not modify it during the run).
func New(c *Cluster, jobs []datasets.Job, cfg Config, model Interference) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if model == nil {
		model = DefaultInterference()
	}
	n := len(c.Servers)
	s := &Sim{
		cfg: cfg, cluster: c, model: model,
		jobs:       make([]JobState, len(jobs)),
		nextTrig:   inf,
		free:       make([]Resources, n),
		sockFree:   make([][]Resources, n),
		srvInst:    make([][]instRef, n),
		linkCount:  make([]int32, 2*len(c.Topology.Links)),
		linkJobs:   make([][]int32, len(c.Topology.Links)),
		dists:      make([][]int32, len(c.Topology.Nodes)),
		serverSeen: make([]int32, n),
		standalone: cfg.Speed == SpeedStandalone,
	}
	for i := range c.Servers {
		s.free[i] = c.Capacity(i)
		for _, so := range c.Servers[i].Kind.Sockets {
			s.sockFree[i] = append(s.sockFree[i], Resources{GPU: so.GPUs, CPU: so.Cores})
		}
	}
	caps := make([]Resources, n)
	copy(caps, s.free)
	for _, c := range caps {
		s.total = s.total.Add(c)
	}
	for i := range jobs {
		j := &jobs[i]
		js := &s.jobs[i]
		js.Index = i
		js.Job = j
		js.SubmitS = j.SubmitS
		js.DurationS = j.DurationS
		js.Status = StatusFuture
		if err := s.initJob(js); err != nil {
			return nil, err
		}
		if reason := fitsEmpty(caps, js); reason != "" {
			if !cfg.PruneOversized {
				return nil, fmt.Errorf("sim: job %q (index %d): %w: %s", j.JobID, i, ErrOversized, reason)
			}
			js.Status = StatusPruned
			s.pruned = append(s.pruned, PrunedJob{Index: i, JobID: j.JobID, Reason: reason})
			continue
		}
		s.order = append(s.order, int32(i))
	}
	s.results = make([]JobResult, 0, len(s.order))
	slices.SortStableFunc(s.order, func(a, b int32) int {
		ta, tb := s.jobs[a].SubmitS, s.jobs[b].SubmitS
		switch {
		case ta < tb:
			return -1
		case ta > tb:
			return 1
		}
		return int(a - b)
	})
	return s, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (s *Sim) initJob(js *JobState) error {
	j := js.Job
	bad := func(format string, a ...any) error {
		return fmt.Errorf("sim: job %q (index %d): %w: %s", j.JobID, js.Index, ErrBadJob, fmt.Sprintf(format, a...))
	}
	if !finite(j.SubmitS) || j.SubmitS < 0 {
		return bad("submit_s = %v, want finite and >= 0", j.SubmitS)
	}
	if !finite(j.DurationS) || j.DurationS < 0 {
		return bad("duration_s = %v, want finite and >= 0", j.DurationS)
	}
	js.Profile = ProfileOf(j.Model)
	n := 0
	for ti, t := range j.Tasks {
		if t.Instances < 0 {
			return bad("tasks[%d].instances = %d, want >= 0", ti, t.Instances)
		}
		for _, v := range [...]float64{t.GPU, t.CPU, t.MemGiB} {
			if !finite(v) || v < 0 {
				return bad("tasks[%d] requests gpu=%v cpu=%v mem_gib=%v, want finite and >= 0", ti, t.GPU, t.CPU, t.MemGiB)
			}
		}
		n += int(t.Instances)
	}
	if n == 0 {
		return bad("no instances")
	}
	js.Instances = make([]Instance, 0, n)
	for _, t := range j.Tasks {
		d := Resources{GPU: t.GPU, CPU: t.CPU, MemGiB: t.MemGiB}
		// C_J is the instance's CPU request when it has one (capacity is
		// booked by requests, so a profile figure above the request would
		// over-subscribe sockets the scheduler thinks are free); P_J is the
		// profile's, and 0 for instances without GPUs (parameter servers).
		load := JobLoad{Model: js.Profile.Name, C: js.Profile.CPU, P: js.Profile.PCIeGbps}
		if !js.Profile.Known {
			load.Model = j.Model
		}
		if t.CPU > 0 {
			load.C = t.CPU
		}
		if t.GPU == 0 {
			load.P = 0
		}
		for k := 0; k < int(t.Instances); k++ {
			js.Instances = append(js.Instances, Instance{Role: t.Role, Demand: d, Load: load})
			js.Total = js.Total.Add(d)
		}
	}
	js.work = j.DurationS
	return nil
}

// fitsEmpty packs the job's instances first-fit-decreasing (by GPU, then
// CPU, then memory) on the empty cluster and returns why it cannot, or "".
func fitsEmpty(caps []Resources, js *JobState) string {
	var total, biggest Resources
	for _, c := range caps {
		total = total.Add(c)
		if c.GPU > biggest.GPU || (c.GPU == biggest.GPU && c.CPU > biggest.CPU) {
			biggest = c
		}
	}
	if js.Total.Fits(biggest) {
		return "" // all instances on the largest server
	}
	if !js.Total.Fits(total) {
		return fmt.Sprintf("requests %g GPU, %g cores, %g GiB in all; the cluster has %g, %g, %g",
			js.Total.GPU, js.Total.CPU, js.Total.MemGiB, total.GPU, total.CPU, total.MemGiB)
	}
	inst := make([]Resources, len(js.Instances))
	for i, in := range js.Instances {
		inst[i] = in.Demand
	}
	slices.SortStableFunc(inst, func(a, b Resources) int {
		switch {
		case a.GPU != b.GPU:
			return cmpDesc(a.GPU, b.GPU)
		case a.CPU != b.CPU:
			return cmpDesc(a.CPU, b.CPU)
		}
		return cmpDesc(a.MemGiB, b.MemGiB)
	})
	free := append([]Resources(nil), caps...)
	for _, d := range inst {
		ok := false
		for k := range free {
			if d.Fits(free[k]) {
				free[k] = free[k].Sub(d)
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Sprintf("its %d instances (largest %g GPU, %g cores, %g GiB) cannot be packed on the empty cluster",
				len(inst), inst[0].GPU, inst[0].CPU, inst[0].MemGiB)
		}
	}
	return ""
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// Now is the simulated time, seconds.
func (s *Sim) Now() float64 { return s.now }

// Pruned lists the jobs dropped by New.
func (s *Sim) Pruned() []PrunedJob { return s.pruned }

// Job returns the state of job i (index into the jobs given to New).
func (s *Sim) Job(i int) *JobState { return &s.jobs[i] }

// Next advances the clock to the next decision point and returns the
// observation there. It returns io.EOF when every job has finished, and an
// error wrapping ErrStalled when jobs can never start. Every call but the
// first must follow an Apply.
func (s *Sim) Next(ctx context.Context) (*State, error) {
	if s.awaiting {
		return nil, errors.New("sim: Next called twice without Apply")
	}
	if s.stalled {
		id := s.pending[0].Job.JobID
		return nil, fmt.Errorf("sim: at t=%gs: %w: %d jobs pending (first %q) on an idle cluster with no job left to arrive, and the last decision placed none",
			s.now, ErrStalled, len(s.pending), id)
	}
	for iter := 0; ; iter++ {
		if iter&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// The next time anything happens; completions before arrivals
		// before triggers at the same instant.
		tc := inf
		for len(s.heap) > 0 {
			e := s.heap[0]
			if js := &s.jobs[e.job]; js.Status == StatusRunning && js.version == e.ver {
				tc = e.t
				break
			}
			s.popEvent()
		}
		ta := inf
		if s.nextArr < len(s.order) {
			ta = s.jobs[s.order[s.nextArr]].SubmitS
		}
		t := min(tc, ta, s.nextTrig)
		if t == inf {
			if len(s.pending) > 0 {
				// Unreachable while the stall rule holds; kept so a bug
				// can never turn into a silent early end.
				return nil, fmt.Errorf("sim: at t=%gs: %w: %d jobs pending and no event left", s.now, ErrStalled, len(s.pending))
			}
			return nil, io.EOF
		}
		s.now = t
		freed := false
		for len(s.heap) > 0 && s.heap[0].t == t {
			e := s.popEvent()
			if js := &s.jobs[e.job]; js.Status == StatusRunning && js.version == e.ver {
				s.finish(js)
				freed = true
			}
		}
		arrived := len(s.pending)
		for s.nextArr < len(s.order) && s.jobs[s.order[s.nextArr]].SubmitS == t {
			js := &s.jobs[s.order[s.nextArr]]
			s.nextArr++
			js.Status = StatusPending
			s.pending = append(s.pending, js)
		}
		s.flush()
		decide := false
		switch s.cfg.Trigger {
		case TriggerEvent:
			// DAS: the scheduler is triggered when there are enough free
			// resources to run a pending job. Completions free resources;
			// an arrival alone matters only if it, or a job the last
			// decision left pending, could fit what is free.
			if len(s.pending) > 0 {
				switch {
				case freed:
					decide = true
					s.leftFit = fitUnknown
				case arrived < len(s.pending):
					total := s.freeTotal()
					for _, js := range s.pending[arrived:] {
						if s.couldFit(js, total) {
							decide = true
							break
						}
					}
					if !decide {
						if s.leftFit == fitUnknown {
							s.leftFit = fitNo
							for _, js := range s.pending[:arrived] {
								if s.couldFit(js, total) {
									s.leftFit = fitYes
									break
								}
							}
						}
						decide = s.leftFit == fitYes
					}
				}
			}
		case TriggerInterval:
			if len(s.pending) == 0 {
				s.nextTrig = inf
			} else if s.nextTrig == inf {
				s.nextTrig = math.Ceil(t/s.cfg.IntervalS) * s.cfg.IntervalS
			}
			if s.nextTrig == t {
				decide = true
				s.nextTrig = t + s.cfg.IntervalS
			}
		}
		if decide {
			s.awaiting = true
			return s.state(), nil
		}
	}
}

func (s *Sim) state() *State {
	st := &State{
		Now: s.now, Decision: s.decisions, Cluster: s.cluster,
		Pending: s.pending, Running: s.running, Free: s.free, sim: s,
	}
	st.Since = Interval{FromS: s.lastDecisionS, Finished: s.sinceFinished, Unplaced: s.pending[:s.unplaced:s.unplaced]}
	st.Since.Progress = s.progressBuf[:0]
	for _, r := range s.sinceFinished {
		js := &s.jobs[r.Index]
		if js.work > 0 {
			st.Since.Progress = append(st.Since.Progress, Progress{Job: js.Index, Fraction: (js.work - js.doneAtDecision) / js.work})
		}
	}
	for _, js := range s.running {
		if js.work > 0 {
			done := js.done + js.rate*(s.now-js.last)
			st.Since.Progress = append(st.Since.Progress, Progress{Job: js.Index, Fraction: (done - js.doneAtDecision) / js.work})
			js.doneAtDecision = done
		}
	}
	s.progressBuf = st.Since.Progress
	s.sinceFinished = s.sinceFinished[len(s.sinceFinished):] // the State keeps the old part
	s.unplaced = 0
	s.lastDecisionS = s.now
	return st
}

// Apply starts the placements of the decision the last Next asked for. It
// checks them all first and applies none if any is infeasible (the error
// wraps ErrInfeasible and names the job).
func (s *Sim) Apply(pl []Placement) error {
	if !s.awaiting {
		return errors.New("sim: Apply called without a pending decision (call Next first)")
	}
	if err := s.check(pl); err != nil {
		return err
	}
	s.awaiting = false
	s.decisions++
	s.leftFit = fitUnknown
	for _, p := range pl {
		s.start(&s.jobs[p.Job], p.Slots)
	}
	if len(pl) > 0 {
		k := 0
		for _, js := range s.pending {
			if js.Status == StatusPending {
				s.pending[k] = js
				k++
			}
		}
		clear(s.pending[k:])
		s.pending = s.pending[:k]
	}
	s.flush()
	s.unplaced = len(s.pending)
	if len(pl) == 0 && len(s.pending) > 0 && len(s.running) == 0 && s.nextArr == len(s.order) {
		s.stalled = true
	}
	return nil
}

func (s *Sim) check(pl []Placement) error {
	s.scratch = append(s.scratch[:0], s.free...)
	s.checkStamp++
	if len(s.seen) != len(s.jobs) {
		s.seen = make([]uint32, len(s.jobs))
	}
	bad := func(p Placement, format string, a ...any) error {
		id := ""
		if p.Job >= 0 && p.Job < len(s.jobs) {
			id = s.jobs[p.Job].Job.JobID
		}
		return fmt.Errorf("sim: at t=%gs: job %q (index %d): %w: %s", s.now, id, p.Job, ErrInfeasible, fmt.Sprintf(format, a...))
	}
	for _, p := range pl {
		if p.Job < 0 || p.Job >= len(s.jobs) {
			return bad(p, "no such job")
		}
		js := &s.jobs[p.Job]
		if js.Status != StatusPending {
			return bad(p, "job is not pending (status %d)", js.Status)
		}
		if s.seen[p.Job] == s.checkStamp {
			return bad(p, "placed twice in one decision")
		}
		s.seen[p.Job] = s.checkStamp
		if len(p.Slots) != len(js.Instances) {
			return bad(p, "%d slots for %d instances", len(p.Slots), len(js.Instances))
		}
		for i, sl := range p.Slots {
			if sl.Server < 0 || sl.Server >= len(s.free) {
				return bad(p, "instance %d on server %d of %d", i, sl.Server, len(s.free))
			}
			if sl.Socket < -1 || sl.Socket >= len(s.sockFree[sl.Server]) {
				return bad(p, "instance %d on socket %d of server %d, which has %d", i, sl.Socket, sl.Server, len(s.sockFree[sl.Server]))
			}
			f := s.scratch[sl.Server]
			d := js.Instances[i].Demand
			if !d.Fits(f) {
				return bad(p, "instance %d needs %g GPU, %g cores, %g GiB on server %d, which has %g, %g, %g left",
					i, d.GPU, d.CPU, d.MemGiB, sl.Server, f.GPU, f.CPU, f.MemGiB)
			}
			s.scratch[sl.Server] = f.Sub(d)
		}
	}
	return nil
}

const (
	fitUnknown int8 = iota
	fitNo
	fitYes
)

// couldFit is a necessary condition for js to be placeable now: its total
// demand fits the total free resources and each instance fits some server's
// free resources on its own.
func (s *Sim) couldFit(js *JobState, freeTotal Resources) bool {
	if !js.Total.Fits(freeTotal) {
		return false
	}
	prev := Resources{GPU: -1}
	for _, in := range js.Instances {
		if in.Demand == prev {
			continue
		}
		prev = in.Demand
		ok := false
		for _, f := range s.free {
			if in.Demand.Fits(f) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func (s *Sim) freeTotal() Resources {
	var t Resources
	for _, f := range s.free {
		t = t.Add(f)
	}
	return t
}

// chooseSocket picks the home socket for an instance with demand d.
func (s *Sim) chooseSocket(server int, d Resources) int {
	best := 0
	for k, f := range s.sockFree[server] {
		b := s.sockFree[server][best]
		if f.GPU > b.GPU || (f.GPU == b.GPU && f.CPU > b.CPU) {
			best = k
		}
	}
	return best
}

// markServer marks the jobs on server for a full rate recomputation
// (interference and communication); markDirty alone (a link changed)
// recomputes communication only.
func (s *Sim) markServer(server int) {
	for _, r := range s.srvInst[server] {
		js := &s.jobs[r.job]
		js.slowStale = true
		s.markDirty(js)
	}
}

func (s *Sim) markDirty(js *JobState) {
	if !js.dirty {
		js.dirty = true
		s.dirty = append(s.dirty, js)
	}
}

func (s *Sim) start(js *JobState, slots []Slot) {
	js.Status = StatusRunning
	js.StartS = s.now
	js.last = s.now
	js.done = 0
	js.doneAtDecision = 0
	js.rate = 0
	js.Slots = append([]Slot(nil), slots...)
	s.stamp++
	for i, sl := range slots {
		d := js.Instances[i].Demand
		sock := sl.Socket
		if sock < 0 {
			sock = s.chooseSocket(sl.Server, d)
		}
		js.Slots[i].Socket = sock
		s.free[sl.Server] = s.free[sl.Server].Sub(d)
		// Home socket first, the rest from the others in index order.
		g, c := d.GPU, d.CPU
		sf := s.sockFree[sl.Server]
		for k := 0; k < len(sf) && (g > 0 || c > 0); k++ {
			so := (sock + k) % len(sf)
			tg, tc := min(g, max(sf[so].GPU, 0)), min(c, max(sf[so].CPU, 0))
			if k == len(sf)-1 {
				tg, tc = g, c // rounding remainder goes to the last socket tried
			}
			if tg > 0 || tc > 0 {
				sf[so].GPU -= tg
				sf[so].CPU -= tc
				js.takes = append(js.takes, take{server: int32(sl.Server), socket: int32(so), gpu: tg, cpu: tc})
				g -= tg
				c -= tc
			}
		}
		if s.serverSeen[sl.Server] != s.stamp {
			s.serverSeen[sl.Server] = s.stamp
			js.Servers = append(js.Servers, sl.Server)
			s.markServer(sl.Server)
		}
		s.srvInst[sl.Server] = append(s.srvInst[sl.Server], instRef{job: int32(js.Index), inst: int32(i), socket: int32(sock)})
	}
	s.addFlows(js)
	s.running = append(s.running, js)
	js.slowStale = true
	s.markDirty(js)
}

// addFlows builds the job's per-iteration transfers. Jobs with parameter
// servers exchange 2·G/n_ps Gbit between each worker and each PS on another
// server (G/n_ps pushed, then G/n_ps pulled back); other multi-server jobs
// all-reduce over a ring of their servers, each hop sending 2(n−1)/n·G one
// way while receiving as much from the previous hop on the other direction
// of the links. Traffic inside a server is free.
func (s *Sim) addFlows(js *JobState) {
	if len(js.Servers) < 2 {
		return
	}
	g := js.Profile.GradientMB * 8 / 1000 // Gbit
	var ps, workers []int
	for i, in := range js.Instances {
		if in.Role == datasets.RolePS {
			ps = append(ps, js.Slots[i].Server)
		} else {
			workers = append(workers, js.Slots[i].Server)
		}
	}
	links := s.cluster.Topology.Links
	add := func(a, b int, vol float64, duplex bool) {
		na, nb := s.cluster.Servers[a].Node, s.cluster.Servers[b].Node
		d := s.dists[nb]
		if d == nil {
			d = s.cluster.Topology.dist(nb)
			s.dists[nb] = d
		}
		path, _ := s.cluster.Topology.route(nil, d, na, nb) // connectivity checked by Validate
		at := na
		for k, l := range path {
			dl := 2 * l
			if links[l].A == at {
				at = links[l].B
			} else {
				dl++
				at = links[l].A
			}
			path[k] = dl
			s.linkCount[dl]++
			if duplex {
				s.linkCount[dl^1]++
			}
			s.linkJobs[l] = append(s.linkJobs[l], int32(js.Index))
			for _, o := range s.linkJobs[l] {
				s.markDirty(&s.jobs[o])
			}
		}
		js.flows = append(js.flows, flow{links: path, volume: vol, duplex: duplex})
	}
	if len(ps) > 0 && len(workers) > 0 {
		vol := 2 * g / float64(len(ps))
		for _, w := range workers {
			for _, p := range ps {
				if w != p {
					add(w, p, vol, true)
				}
			}
		}
		return
	}
	n := len(js.Servers)
	vol := 2 * float64(n-1) / float64(n) * g
	for i, a := range js.Servers {
		add(a, js.Servers[(i+1)%n], vol, false)
	}
}

func (s *Sim) finish(js *JobState) {
	js.done = js.work
	js.last = s.now
	js.Status = StatusDone
	js.finishS = s.now
	for _, t := range js.takes {
		sf := &s.sockFree[t.server][t.socket]
		sf.GPU += t.gpu
		sf.CPU += t.cpu
	}
	for i, sl := range js.Slots {
		s.free[sl.Server] = s.free[sl.Server].Add(js.Instances[i].Demand)
	}
	for _, srv := range js.Servers {
		insts := s.srvInst[srv]
		k := 0
		for _, r := range insts {
			if int(r.job) != js.Index {
				insts[k] = r
				k++
			}
		}
		s.srvInst[srv] = insts[:k]
		s.markServer(srv)
		// Snap a fully idle server back to its exact capacity so sums of
		// fractional shares do not drift over a long run.
		if k == 0 {
			s.free[srv] = s.cluster.Capacity(srv)
			for so, x := range s.cluster.Servers[srv].Kind.Sockets {
				s.sockFree[srv][so] = Resources{GPU: x.GPUs, CPU: x.Cores}
			}
		}
	}
	for _, f := range js.flows {
		for _, dl := range f.links {
			s.linkCount[dl]--
			if f.duplex {
				s.linkCount[dl^1]--
			}
			l := dl / 2
			lj := s.linkJobs[l]
			for k, o := range lj {
				if int(o) == js.Index {
					lj = slices.Delete(lj, k, k+1)
					break
				}
			}
			s.linkJobs[l] = lj
			for _, o := range lj {
				s.markDirty(&s.jobs[o])
			}
		}
	}
	for k, r := range s.running {
		if r == js {
			last := len(s.running) - 1
			s.running[k] = s.running[last]
			s.running[last] = nil
			s.running = s.running[:last]
			break
		}
	}
	runS := s.now - js.StartS
	gpus := js.Total.GPU
	s.gpuSeconds += gpus * runS
	r := JobResult{
		Index: js.Index, JobID: js.Job.JobID,
		SubmitS: js.SubmitS, StartS: js.StartS, FinishS: s.now,
		JCTS: s.now - js.SubmitS, QueueS: js.StartS - js.SubmitS, RunS: runS, DurationS: js.DurationS,
		Slowdown: 1, GPUs: gpus, FeeUSD: s.cfg.PriceGPUHour * gpus * runS / 3600,
		Machines: len(js.Servers),
	}
	if js.DurationS > 0 {
		r.Slowdown = runS / js.DurationS
	}
	s.results = append(s.results, r)
	s.sinceFinished = append(s.sinceFinished, r)
	js.flows = nil
	js.takes = nil
}

// flush recomputes the rate of every dirty running job and reschedules its
// completion.
func (s *Sim) flush() {
	for _, js := range s.dirty {
		js.dirty = false
		if js.Status != StatusRunning {
			continue
		}
		js.done += js.rate * (s.now - js.last)
		if js.done > js.work {
			js.done = js.work
		}
		js.last = s.now
		r := s.rate(js)
		if r == js.rate && js.version != 0 {
			continue
		}
		js.rate = r
		js.version++
		s.pushEvent(event{t: s.now + (js.work-js.done)/r, job: int32(js.Index), ver: js.version})
	}
	s.dirty = s.dirty[:0]
}

// rate is a running job's speed relative to standalone: ideal / (ideal·(1+S)
// + communication), S the straggler's slowdown.
func (s *Sim) rate(js *JobState) float64 {
	if js.work == 0 || s.standalone {
		return 1
	}
	if js.slowStale {
		js.slowStale = false
		js.slow = 0
		for i, sl := range js.Slots {
			if i > 0 && sl == js.Slots[i-1] && js.Instances[i].Load == js.Instances[i-1].Load {
				continue
			}
			js.slow = max(js.slow, s.instanceSlowdown(js.Instances[i].Load, js.Index, sl.Server, sl.Socket, nil))
		}
	}
	worst := js.slow
	var comm float64
	links := s.cluster.Topology.Links
	for _, f := range js.flows {
		fwd, back := inf, inf
		for _, dl := range f.links {
			c := links[dl/2].Gbps
			fwd = min(fwd, c/float64(s.linkCount[dl]))
			if f.duplex {
				back = min(back, c/float64(s.linkCount[dl^1]))
			}
		}
		t := f.volume / fwd
		if f.duplex {
			t = f.volume/2/fwd + f.volume/2/back
		}
		comm = max(comm, t)
	}
	return 1 / (1 + worst + comm/js.Profile.IterS)
}

// instanceSlowdown is S(target, co-runners) − S(target, ∅) clamped to
// [0, MaxSlowdown] for an instance of job self (−1 for a hypothetical one)
// homed on socket of server. The instance itself is not its own co-runner;
// the job's other instances are.
func (s *Sim) instanceSlowdown(load JobLoad, self int, server, socket int, extra []JobLoad) float64 {
	same, other := append(s.sameBuf[:0], extra...), s.otherBuf[:0]
	skipped := false
	for _, r := range s.srvInst[server] {
		l := s.jobs[r.job].Instances[r.inst].Load
		if !skipped && int(r.job) == self && int(r.socket) == socket {
			skipped = true // the target instance itself
			continue
		}
		if int(r.socket) == socket {
			same = append(same, l)
		} else {
			other = append(other, l)
		}
	}
	s.sameBuf, s.otherBuf = same, other
	if len(same) == 0 && len(other) == 0 {
		return 0
	}
	cores := int(s.cluster.Servers[server].Kind.Sockets[socket].Cores)
	x := s.model.Slowdown(load, same, other, cores) - s.model.Slowdown(load, nil, nil, cores)
	if !(x > 0) { // also catches NaN
		return 0
	}
	return min(x, MaxSlowdown)
}

func (s *Sim) pushEvent(e event) {
	h := append(s.heap, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !evLess(h[i], h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	s.heap = h
}

func (s *Sim) popEvent() event {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && evLess(h[r], h[l]) {
			m = r
		}
		if !evLess(h[m], h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
	return top
}

// evLess orders events by time, then job index, then version: ties never
// depend on insertion order.
func evLess(a, b event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.job != b.job {
		return a.job < b.job
	}
	return a.ver < b.ver
}

// Result gathers the per-job results (in job index order) and the metrics.
// Call it after Next returned io.EOF; before that it covers the jobs
// finished so far.
func (s *Sim) Result() *Result {
	jobs := append([]JobResult(nil), s.results...)
	slices.SortFunc(jobs, func(a, b JobResult) int { return a.Index - b.Index })
	res := &Result{
		Cluster:   s.cluster.Name,
		Jobs:      jobs,
		Pruned:    s.pruned,
		Decisions: s.decisions,
	}
	res.Metrics = ComputeMetrics(jobs, s.cluster.TotalGPU())
	res.Metrics.Pruned = len(s.pruned)
	return res
}

// Run drives sched over the jobs on cluster c until every job has finished,
// and returns the results. Decision latency is measured with the wall clock
// and reported in Result.Timing only.
func Run(ctx context.Context, c *Cluster, jobs []datasets.Job, sched Scheduler, cfg Config, model Interference) (*Result, error) {
	s, err := New(c, jobs, cfg, model)
	if err != nil {
		return nil, err
	}
	var tm Timing
	wall := time.Now()
	for {
		st, err := s.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("sim: run of %s on %s: %w", sched.Name(), c.Name, err)
		}
		t0 := time.Now()
		pl, err := sched.Schedule(ctx, st)
		d := time.Since(t0).Seconds()
		tm.DecisionS += d
		tm.MaxDecisionS = max(tm.MaxDecisionS, d)
		if err != nil {
			return nil, fmt.Errorf("sim: scheduler %s at t=%gs: %w", sched.Name(), s.now, err)
		}
		tm.JobsPlaced += len(pl)
		if err := s.Apply(pl); err != nil {
			return nil, fmt.Errorf("sim: scheduler %s: %w", sched.Name(), err)
		}
	}
	tm.WallS = time.Since(wall).Seconds()
	res := s.Result()
	res.Scheduler = sched.Name()
	tm.Decisions = res.Decisions
	res.Timing = tm
	return res, nil
}
