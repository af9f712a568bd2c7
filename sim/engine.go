package sim

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
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
	TriggerEvery    = "every"    // decide at every arrival and completion (Tiresias)
)

// Config is the simulator's configuration.
type Config struct {
	// Trigger is "event", "interval" or "every".
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
	// Environment names the calibrated environment whose parameters the
	// speed model was given ("" none: the simulator's defaults). The
	// simulator does not read it (the caller resolves the name into an
	// Interference and parameters); it is carried so that a spec, its cache
	// key and its tables say which environment produced the results.
	Environment string `mapstructure:"environment" yaml:"environment,omitempty" json:"environment,omitempty"`
	// RestartS is what resuming a preempted job costs, in standalone
	// seconds of extra work: 0 as Tiresias and Blox charge, 30 as Pollux,
	// or a table per model as Sia's (RestartCost).
	RestartS RestartCost `mapstructure:"restart_s" yaml:"restart_s,omitempty" json:"restart_s,omitzero"`
	// Socket is the rule that homes an instance on a socket of its server
	// when its placement leaves the choice to the engine: most-free (or
	// empty), first-fit or random (capacity.go's SocketMostFree, ...).
	Socket string `mapstructure:"socket" yaml:"socket,omitempty" json:"socket,omitempty"`
	// SocketSeed seeds the random socket rule's stream (math/rand/v2 PCG);
	// the caller derives it from the run seed and the cell, so it is not
	// configuration.
	SocketSeed uint64 `mapstructure:"-" yaml:"-" json:"-"`
	// CPULoad is where an instance's C_J comes from: request (or empty)
	// or profile (cpuload.go's CPULoadRequest, CPULoadProfile).
	CPULoad string `mapstructure:"cpu_load" yaml:"cpu_load,omitempty" json:"cpu_load,omitempty"`
	// SkipFloor leaves Result's Floor and Metrics.FloorJCTS zero, for a
	// caller that reports neither (schedlab replay): the floor's bounds
	// cost as much as replaying a short trace. A choice of the caller,
	// not configuration.
	SkipFloor bool `mapstructure:"-" yaml:"-" json:"-"`
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
	case TriggerEvent, TriggerInterval, TriggerEvery:
	default:
		return fmt.Errorf("sim.trigger: must be %q, %q or %q, got %q", TriggerEvent, TriggerInterval, TriggerEvery, c.Trigger)
	}
	if err := c.RestartS.Validate(); err != nil {
		return err
	}

	if c.Trigger == TriggerInterval && !(c.IntervalS > 0 && !math.IsInf(c.IntervalS, 0)) {
		return fmt.Errorf("sim.interval_s: must be > 0 and finite, got %v", c.IntervalS)
	}
	switch c.Speed {
	case "", SpeedModel, SpeedStandalone:
	default:
		return fmt.Errorf("sim.speed: must be %q or %q, got %q", SpeedModel, SpeedStandalone, c.Speed)
	}
	if c.Socket != "" && !slices.Contains(SocketRules, c.Socket) {
		return fmt.Errorf("sim.socket: must be one of %v, got %q", SocketRules, c.Socket)
	}
	if c.CPULoad != "" && !slices.Contains(CPULoads, c.CPULoad) {
		return fmt.Errorf("sim.cpu_load: must be one of %v, got %q", CPULoads, c.CPULoad)
	}
	if !(c.PriceGPUHour >= 0) || math.IsInf(c.PriceGPUHour, 0) {
		return fmt.Errorf("sim.price_gpu_hour: must be >= 0 and finite, got %v", c.PriceGPUHour)
	}
	return nil
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

	now        float64
	nextArr    int // cursor into order
	nextTrig   float64
	wakeS      float64 // the last decision's WakeS, +Inf for none
	lastArr    int     // nextArr at the previous decision (State.Arrived)
	arrivedBuf []*JobState
	pending    []*JobState
	running    []*JobState
	free       []Resources
	sockFree   [][]Resources
	sockCores  []int // per server's socket, its cores as an int (coresOf), from sockBase[server]
	sockBase   []int32
	srvInst    [][]instRef
	linkCount  []int32     // flows per DirectedLink
	linkGbps   []float64   // per link, its capacity (Topology.Links' Gbps, dense for relink)
	linkShare  []float64   // per DirectedLink, its capacity / its flows (+Inf without flows)
	linkMost   []float64   // per DirectedLink, at least the largest bottleneck of an up-to-date flow crossing it that way (relink)
	linkJobs   [][]linkRef // per link, the flows crossing it (either way), each once
	linkStamp  []uint32    // per link, linkEpoch when add/removeFlows last visited it
	linkEpoch  uint32
	touched    []int32 // scratch: links visited by removeFlows
	relinkQ    []int32 // links to relink at the next flush (queueRelink)
	linkQueued []bool  // per link, whether it is in relinkQ
	heap       []event
	dirty      []*JobState
	jobDirty   []bool // per job, whether it is in dirty
	// Under standalone speed, the servers whose co-runners changed since
	// the last flush (markServer), each once: flush advances their jobs.
	marked    []int32
	srvMarked []bool    // per server, whether it is in marked
	commStale []bool    // per job, a link of its flows changed: recompute its comm
	hot       []flowHot // running flows' bottlenecks, by flow.id
	freeFlows [][]int32 // per length n, the first entries of free blocks of n entries of hot

	// decision bookkeeping
	awaiting      bool // Next returned a State; Apply not yet called
	stalled       bool
	decisions     int
	lastDecisionS float64
	sinceFinished []JobResult
	// reused, when not nil, is the one State every Next refills: Run's,
	// for a StateForgetter. Otherwise each Next returns a new State.
	reused      *State
	unplaced    int // pending jobs left by the last decision: a prefix of pending
	progressBuf []Progress
	noProgress  bool // Run's scheduler is a ProgressBlind: State.Since.Progress is left nil
	leftFit     int8 // could a job left pending by the last decision fit now? (fitUnknown until checked)
	finished    int  // jobs finished so far
	gpuSeconds  float64

	// pendingBlind: Run's scheduler is a PendingBlind. pending is then in
	// no order (each job at its pendPos), and State.Pending and
	// Since.Unplaced are nil.
	pendingBlind bool

	sameBuf, otherBuf []JobLoad
	slowSums          []float64  // serverSlowdowns' per-socket sums of C and P
	slowMemo          []slowMemo // and its terms by socket and load
	// predictBuf and predictOthers are PredictServerSlowdown's scratch.
	predictBuf, predictOthers []JobLoad
	// alone remembers aloneFor's last answer.
	alone struct {
		load  JobLoad
		cores int
		val   float64
		ok    bool
	}
	serverSeen []int32 // per server, stamp of last job that touched it
	stamp      int32
	total      Resources
	standalone bool
	scratch    []Resources // check's working copy of free
	seen       []uint32    // per job, checkStamp when placed in the decision being checked
	checkStamp uint32

	env      *Environment // calibrated environment (UseEnvironment); nil: none
	sockRand *rand.Rand   // the random socket rule's stream (Config.SocketSeed)
	// sockMostFree: Config.Socket is most-free (or empty), whose choice
	// start makes without chooseSocket's test of the rule's name.
	sockMostFree bool
	// fromSums is the model given the co-runners' sums (sumsModel), nil
	// when it has no such form: instanceSlowdown's fast path.
	fromSums func(target JobLoad, uc, up, oc float64, cores int) float64

	// GPU sharing (setupSharing): the term (nil: none, or standalone
	// speed), the environment's scale of it, and each job's standalone
	// GPU utilisation.
	share      GPUSharing
	shareScale float64
	gpuUtil    []float64

	// Pending jobs grouped by shape (identical Tasks): per shape its
	// pending jobs in pending order, the shapes with a pending job, and
	// each shape's position in that list (−1 when it has none). They keep
	// the cost of a decision independent of the queue's length, which
	// grows with the trace when the cluster is overloaded.
	//
	// shapeN counts each shape's pending jobs, and activeShape follows
	// it. A shape's list is a function of pending alone (its jobs, in
	// pending order), so shapesLive says whether the lists are kept up
	// to date: always under the event trigger, whose test reads them
	// at every arrival; under the others only from the first
	// PendingShapes, which builds them from pending (a policy that never
	// asks, such as the preemptive ones, does not pay for the merges and
	// drops of every start and preemption).
	shapes      [][]*JobState
	shapeN      []int32
	shapesLive  bool
	activeShape []int32
	shapePos    []int32
	shapeBuf    [][]*JobState
	newShapes   []int32     // scratch of requeue
	started     []*JobState // scratch of Apply
	preempted   []*JobState // scratch of Do

	// Per-job slices of running jobs come from arenas (arena.go), built
	// in the scratch buffers first where their length is not known ahead.
	slotArena arena[Slot]
	f64Arena  arena[float64]
	intArena  arena[int]
	takeArena arena[take]
	flowArena arena[flow]
	pathArena arena[DirectedLink]
	srvBuf    []int
	takeBuf   []take
	flowBuf   []flow
	roleBuf   []int // jobFlows' servers by role
	pathBuf   []DirectedLink
	routes    map[uint64][]DirectedLink // by pair of servers (route), at most maxRoutes
	routeTab  [][]DirectedLink          // by a·n + b for servers a, b (route), on a cluster of at most maxRouteTable servers
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
		jobDirty:   make([]bool, len(jobs)),
		commStale:  make([]bool, len(jobs)),
		nextTrig:   inf,
		wakeS:      inf,
		free:       make([]Resources, n),
		sockFree:   make([][]Resources, n),
		srvInst:    make([][]instRef, n),
		linkCount:  make([]int32, 2*len(c.Topology.Links)),
		linkJobs:   make([][]linkRef, len(c.Topology.Links)),
		linkStamp:  make([]uint32, len(c.Topology.Links)),
		linkQueued: make([]bool, len(c.Topology.Links)),
		linkShare:  make([]float64, 2*len(c.Topology.Links)),
		linkMost:   make([]float64, 2*len(c.Topology.Links)),
		serverSeen: make([]int32, n),
		srvMarked:  make([]bool, n),
		standalone: cfg.Speed == SpeedStandalone,
		env:        environmentOf(model),
		sockRand:   rand.New(rand.NewPCG(cfg.SocketSeed, socketStream)),
		fromSums:   sumsModel(model),
	}
	s.sockMostFree = cfg.Socket == "" || cfg.Socket == SocketMostFree
	for i := range s.linkShare {
		s.linkShare[i] = inf
	}
	s.linkGbps = make([]float64, len(c.Topology.Links))
	for l, lk := range c.Topology.Links {
		s.linkGbps[l] = lk.Gbps
	}
	for i := range c.Servers {
		s.free[i] = c.Capacity(i)
		s.sockBase = append(s.sockBase, int32(len(s.sockCores)))
		for _, so := range c.Servers[i].Kind.Sockets {
			s.sockFree[i] = append(s.sockFree[i], Resources{GPU: so.GPUs, CPU: so.Cores})
			s.sockCores = append(s.sockCores, int(so.Cores))
		}
	}
	caps := make([]Resources, n)
	copy(caps, s.free)
	for _, c := range caps {
		s.total = s.total.Add(c)
	}
	shapeIDs := map[string]int32{}
	// Jobs with the same tasks (to the bit) and model get the same
	// instances, total and profile, and the same answer from fitsEmpty:
	// those are built once and shared (JobState.Instances is read-only,
	// and capped so that an append cannot reach a neighbour's).
	type proto struct {
		profile *ModelProfile
		inst    []Instance
		total   Resources
		reason  string // fitsEmpty's
	}
	protos := map[string]*proto{}
	var key, pkey []byte
	for i := range jobs {
		j := &jobs[i]
		js := &s.jobs[i]
		key = shapeKey(key[:0], j.Tasks)
		id, ok := shapeIDs[string(key)]
		if !ok {
			id = int32(len(shapeIDs))
			shapeIDs[string(key)] = id
		}
		js.shape = id
		js.Index = i
		js.Job = j
		js.SubmitS = j.SubmitS
		js.DurationS = j.DurationS
		js.Status = StatusFuture
		pkey = protoKey(pkey[:0], j.Tasks, j.Model)
		p := protos[string(pkey)]
		if p != nil {
			// Its tasks were validated with the first job of the key.
			if err := checkTimes(js); err != nil {
				return nil, err
			}
			js.Profile, js.Instances, js.Total, js.work = p.profile, p.inst, p.total, j.DurationS
		} else {
			if err := s.initJob(js); err != nil {
				return nil, err
			}
			n := len(js.Instances)
			js.Instances = js.Instances[:n:n]
			p = &proto{profile: js.Profile, inst: js.Instances, total: js.Total, reason: fitsEmpty(caps, js)}
			protos[string(pkey)] = p
		}
		if reason := p.reason; reason != "" {
			if !cfg.PruneOversized {
				return nil, fmt.Errorf("sim: job %q (index %d): %w: %s", j.JobID, i, ErrOversized, reason)
			}
			js.Status = StatusPruned
			s.pruned = append(s.pruned, PrunedJob{Index: i, JobID: j.JobID, Reason: reason})
			continue
		}
		s.order = append(s.order, int32(i))
	}
	s.shapes = make([][]*JobState, len(shapeIDs))
	s.shapeN = make([]int32, len(shapeIDs))
	s.shapesLive = cfg.Trigger == TriggerEvent
	s.shapePos = make([]int32, len(shapeIDs))
	for i := range s.shapePos {
		s.shapePos[i] = -1
	}
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
	if err := s.setupSharing(); err != nil {
		return nil, err
	}
	return s, nil
}

// shapeKey appends to dst a key equal for two task lists exactly when
// slices.Equal holds for them (the test schedulers use to treat jobs alike):
// each field's bits, with −0 as +0 (x+0 maps −0 to +0; requests are
// validated finite, so no NaN reaches a key).
func shapeKey(dst []byte, tasks []datasets.Task) []byte {
	for _, t := range tasks {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(t.Role)))
		dst = append(dst, t.Role...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(t.Instances))
		for _, x := range [...]float64{t.GPU, t.CPU, t.MemGiB} {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x+0))
		}
	}
	return dst
}

// protoKey appends to dst a key equal for two jobs exactly when their
// tasks are equal to the bit (−0 and +0 apart, unlike shapeKey: an
// instance's demand keeps its sign) and their models are the same string.
func protoKey(dst []byte, tasks []datasets.Task, model string) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(tasks)))
	for _, t := range tasks {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(t.Role)))
		dst = append(dst, t.Role...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(t.Instances))
		for _, x := range [...]float64{t.GPU, t.CPU, t.MemGiB} {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x))
		}
	}
	return append(dst, model...) // the rest of the key
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func badJob(js *JobState, format string, a ...any) error {
	return fmt.Errorf("sim: job %q (index %d): %w: %s", js.Job.JobID, js.Index, ErrBadJob, fmt.Sprintf(format, a...))
}

// checkTimes validates a job's submit time and duration.
func checkTimes(js *JobState) error {
	j := js.Job
	if !finite(j.SubmitS) || j.SubmitS < 0 {
		return badJob(js, "submit_s = %v, want finite and >= 0", j.SubmitS)
	}
	if !finite(j.DurationS) || j.DurationS < 0 {
		return badJob(js, "duration_s = %v, want finite and >= 0", j.DurationS)
	}
	return nil
}

func (s *Sim) initJob(js *JobState) error {
	j := js.Job
	bad := func(format string, a ...any) error { return badJob(js, format, a...) }
	if err := checkTimes(js); err != nil {
		return err
	}
	p := ProfileOf(j.Model)
	js.Profile = &p
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
		// C_J by the configured rule (instanceCPU); P_J is the profile's,
		// and 0 for instances without GPUs (parameter servers).
		load := JobLoad{Model: js.Profile.Name, C: instanceCPU(js.Profile, t, s.cfg.CPULoad), P: js.Profile.PCIeGbps}
		if !js.Profile.Known {
			load.Model = j.Model
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

// Now is the simulated time, seconds.
func (s *Sim) Now() float64 { return s.now }

// Pruned lists the jobs dropped by New.
func (s *Sim) Pruned() []PrunedJob { return s.pruned }

// Job returns the state of job i (index into the jobs given to New).
func (s *Sim) Job(i int) *JobState { return &s.jobs[i] }

// Result gathers the per-job results (in job index order) and the metrics.
// Call it after Next returned io.EOF; before that it covers the jobs
// finished so far.
func (s *Sim) Result() *Result {
	jobs := make([]JobResult, 0, s.finished)
	var pre []Preempted // nil when no job was preempted
	n := 0
	for i := range s.jobs {
		if js := &s.jobs[i]; js.Status == StatusDone && js.Preemptions > 0 {
			n++
		}
	}
	if n > 0 {
		pre = make([]Preempted, 0, n)
	}
	for i := range s.jobs {
		if js := &s.jobs[i]; js.Status == StatusDone {
			jobs = append(jobs, s.resultOf(js))
			if js.Preemptions > 0 {
				pre = append(pre, Preempted{Index: i, Preemptions: js.Preemptions, Resumptions: js.Resumptions})
			}
		}
	}
	res := &Result{
		Cluster:   s.cluster.Name,
		Jobs:      jobs,
		Pruned:    s.pruned,
		Decisions: s.decisions,
		Preempted: pre,
	}
	res.Metrics = ComputeMetrics(jobs, s.cluster.TotalGPU())
	res.Metrics.Pruned = len(s.pruned)
	if !s.cfg.SkipFloor {
		res.Floor = s.floor()
		res.Metrics.FloorJCTS, res.Metrics.FloorBound = res.Floor.MeanJCTS, res.Floor.Name()
	}
	res.Metrics.CPUUtil = s.cpuUtil(res.Metrics.MakespanS)
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
	if _, ok := sched.(StateForgetter); ok {
		s.reused = new(State)
	}
	if _, ok := sched.(ProgressBlind); ok {
		s.noProgress = true
	}
	if _, ok := sched.(PendingBlind); ok {
		s.pendingBlind = true
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
		dec, err := DecisionOf(ctx, sched, st)
		d := time.Since(t0).Seconds()
		tm.DecisionS += d
		tm.MaxDecisionS = max(tm.MaxDecisionS, d)
		if err != nil {
			return nil, fmt.Errorf("sim: scheduler %s at t=%gs: %w", sched.Name(), s.now, err)
		}
		tm.JobsPlaced += len(dec.Start)
		if err := s.Do(dec); err != nil {
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
