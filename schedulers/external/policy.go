package external

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedlab/schedlab/sim"
)

// Policy is a scheduler whose decisions come from a policy process (New)
// or from the other end of a pair of streams (NewConn). It serves one run;
// after an error every call returns that error.
type Policy struct {
	cfg    Config
	proc   *child // nil for NewConn
	w      io.Writer
	r      *bufio.Reader
	seq    int
	msg    []byte
	err    error
	closed bool

	// What the policy has been told.
	jobs     []*sim.JobState // by index, once announced
	reported []bool          // by index: its finish was sent
	waiting  int             // announced jobs not yet started
	free     []sim.Resources // per server, as last sent
	begun    bool            // the first decide (with the cluster) was sent

	// When the policy wants to be asked (the hello's wake_on; all false:
	// at every decision point), and what the decision points it was not
	// asked at have gathered for the next message.
	ask wakeOn
	// The protocol version the policy answered the hello with: from
	// compact on, messages are written in the array form.
	version int
	wake    float64         // the last answer's wake time, 0 for none
	held    []sim.JobResult // finishes since the last message, not yet sent
	asked   int             // decide messages sent

	// The watchdog of exchange (arm): one timer that an exchange does not
	// touch. It reads the exchange's deadline when it fires, and kills
	// the child or sets itself for the deadline then.
	watch     *time.Timer
	watchMu   sync.Mutex      // held by the timer's function and by arm to set it sooner
	watchOff  bool            // disarmed for good (under watchMu)
	watchAt   atomic.Int64    // when the timer fires, on clock
	deadline  atomic.Int64    // the exchange's, on clock; 0 between exchanges, -1 once the timer killed the child
	epoch     time.Time       // clock's zero
	watchCtx  context.Context // the context a stop is registered for
	stopWatch func() bool

	// Validation's scratch.
	fast       fastAnswer
	fastAnswer answer // the answer exchange returns for fast
	ds         []decision
	ledger     sim.Ledger
	stamp      []uint32 // per job, the message that decided it
	slots      []sim.Slot
}

var (
	_ sim.Decider        = (*Policy)(nil)
	_ sim.StateForgetter = (*Policy)(nil)
	_ sim.ProgressBlind  = (*Policy)(nil)
	_ io.Closer          = (*Policy)(nil)
)

// ForgetsState implements sim.StateForgetter: a decision reads its State
// only while it is made. What the policy has been told is kept as values
// (free resources, held finishes) or as the engine's own job records
// (JobState pointers, which outlive every State), never as a State or one
// of its slices, so sim.Run may refill one State for every decision.
func (*Policy) ForgetsState() {}

// New starts the policy process of cfg and performs the handshake. The
// process lives until Close, or until ctx is cancelled (then it is
// killed); each decision is further bounded by the context of Schedule.
func New(ctx context.Context, cfg Config) (*Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("external policy %q: %w", cfg.Name, err)
	}
	cfg = cfg.withDefaults()
	c, err := startChild(ctx, cfg)
	if err != nil {
		return nil, err
	}
	p := &Policy{cfg: cfg, proc: c, w: c.stdin, r: bufio.NewReaderSize(c.stdout, cfg.MaxLineBytes)}
	if err := p.hello(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// NewConn speaks the protocol over r and w, with no process and no
// timeouts (the other end owns both): schedlab serving a policy that
// started it, such as the Python environment.
func NewConn(ctx context.Context, cfg Config, r io.Reader, w io.Writer) (*Policy, error) {
	if cfg.Command == "" {
		cfg.Command = "-" // Validate's rule is for processes
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("external policy %q: %w", cfg.Name, err)
	}
	cfg = cfg.withDefaults()
	p := &Policy{cfg: cfg, w: w, r: bufio.NewReaderSize(r, cfg.MaxLineBytes)}
	if err := p.hello(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// Name implements sim.Scheduler: external:NAME.
func (p *Policy) Name() string { return "external:" + p.cfg.Name }

// IgnoresProgress implements sim.ProgressBlind: no protocol message
// carries State.Since.Progress (appendDecide writes the cluster, the
// arrivals, the finishes and what is free), and validate checks an answer
// against the jobs announced and what is free.
func (p *Policy) IgnoresProgress() {}

// answer is any line a policy writes.
type answer struct {
	Type      string            `json:"type"`
	Seq       *int              `json:"seq"`
	Protocol  int               `json:"protocol"`
	Name      string            `json:"name"`
	Decisions []json.RawMessage `json:"decisions"`
	Wake      *float64          `json:"wake"`
	WakeOn    []string          `json:"wake_on"`
	Message   string            `json:"message"`

	// parsed is set when parseDecisions read the line: Decisions is
	// then empty and these hold the decisions and their texts.
	parsed *fastAnswer
}

// decision is one element of an answer's decisions.
type decision struct {
	Op      string `json:"op"`
	Job     *int   `json:"job"`
	Servers []int  `json:"servers"`
	Sockets []int  `json:"sockets"`
}

func (p *Policy) hello(ctx context.Context) error {
	b := append(p.msg[:0], `{"type":"hello","protocol":`...)
	b = appendInt(b, Protocol)
	b = append(b, `,"seq":0,"policy":`...)
	b = appendString(b, p.cfg.Name)
	b = append(b, `,"seed":`...)
	b = strconvAppendUint(b, p.cfg.Seed)
	b = append(b, `,"oracle":`...)
	b = appendBool(b, p.cfg.Oracle)
	b = append(b, `,"preempt":true}`...)
	b = append(b, '\n')
	p.msg = b
	a, err := p.exchange(ctx, b, p.cfg.StartTimeout)
	if err != nil {
		return p.fail(err)
	}
	if a.Type != "hello" {
		return p.fail(fmt.Errorf("%w: want a hello answer, got type %q", ErrMalformed, a.Type))
	}
	if a.Protocol < 1 || a.Protocol > Protocol {
		return p.fail(fmt.Errorf("%w: schedlab speaks protocols 1 to %d, the policy %d", ErrVersion, Protocol, a.Protocol))
	}
	p.version = a.Protocol
	if a.WakeOn != nil {
		ask, err := parseWakeOn(a.Protocol, a.WakeOn)
		if err != nil {
			return p.fail(err)
		}
		p.ask = ask
	}
	return nil
}

// Decide implements sim.Decider: it sends what changed since the last
// decision, reads the policy's answer and returns it once every decision
// in it is valid.
func (p *Policy) Decide(ctx context.Context, st *sim.State) (sim.Decision, error) {
	if p.err != nil {
		return sim.Decision{}, p.err
	}
	if p.closed {
		return sim.Decision{}, fmt.Errorf("external policy %q: Decide after Close", p.cfg.Name)
	}
	if p.begun && !p.wanted(st) {
		// Not asked: the finishes wait for the next message, and the
		// policy's wake request stands.
		p.held = append(p.held, st.Since.Finished...)
		return sim.Decision{WakeS: p.wake}, nil
	}
	p.seq++
	p.asked++
	p.msg = p.appendDecide(p.msg[:0], st)
	a, err := p.exchange(ctx, p.msg, p.cfg.Timeout)
	if err != nil {
		return sim.Decision{}, p.fail(err)
	}
	if a.Type != "decisions" {
		return sim.Decision{}, p.fail(fmt.Errorf("%w: want a decisions answer, got type %q", ErrMalformed, a.Type))
	}
	d, err := p.validate(st, a)
	if err != nil {
		return sim.Decision{}, p.fail(err)
	}
	if a.Wake != nil {
		w := *a.Wake
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return sim.Decision{}, p.fail(fmt.Errorf("%w: wake %v: want a time in seconds, or 0 for none", ErrMalformed, w))
		}
		d.WakeS = w
	}
	p.wake = d.WakeS
	p.waiting += len(d.Preempt) - len(d.Start)
	return d, nil
}

// Messages is the number of decide messages sent so far: the engine's
// decision points less those the policy's wake_on let pass.
func (p *Policy) Messages() int { return p.asked }

// Schedule implements sim.Scheduler for drivers that do not preempt: the
// decision's starts, or an error if the policy preempts.
func (p *Policy) Schedule(ctx context.Context, st *sim.State) ([]sim.Placement, error) {
	d, err := p.Decide(ctx, st)
	if err != nil {
		return nil, err
	}
	if len(d.Preempt) > 0 {
		return nil, p.fail(&DecisionError{Policy: p.cfg.Name, Message: p.seq, Decision: 0,
			Err: fmt.Errorf("%w: a preemption, through a driver that calls Schedule (drive the policy with sim.DecisionOf or sim.Run)", ErrUnsupported)})
	}
	return d.Start, nil
}

// appendDecide writes the decide message of st: what changed since the
// previous one. From protocol 3 on, arrivals and finishes are arrays and
// an empty list is left out with its key.
func (p *Policy) appendDecide(b []byte, st *sim.State) []byte {
	v3 := p.version >= compact
	b = append(b, `{"type":"decide","seq":`...)
	b = appendInt(b, p.seq)
	b = append(b, `,"now":`...)
	b = appendFloat(b, st.Now)
	if !p.begun {
		b = appendKey(b, "cluster")
		b = appendCluster(b, st.Cluster)
		p.free = make([]sim.Resources, len(st.Free))
	}
	// Arrivals are the pending jobs not yet announced. They join the end
	// of the queue (it is in submission order and they are the latest), so
	// the walk stops at the first announced job; should that ever miss
	// one, the count of waiting jobs says so and the whole queue is read.
	key := len(b)
	b = appendKey(b, "arrived")
	b = append(b, '[')
	from := len(st.Pending)
	for from > 0 && !p.announced(st.Pending[from-1].Index) {
		from--
	}
	if p.waiting+len(st.Pending)-from != len(st.Pending) {
		from = 0
	}
	first := true
	for _, js := range st.Pending[from:] {
		if p.announced(js.Index) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		if v3 {
			b = appendJob3(b, js, p.cfg.Oracle)
		} else {
			b = appendJob(b, js, p.cfg.Oracle)
		}
		p.announce(js)
	}
	b = closeList(b, key, v3 && first)
	key = len(b)
	b = appendKey(b, "finished")
	b = append(b, '[')
	for i, r := range p.held {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFinish(b, r, p.version)
		p.reported[r.Index] = true
	}
	for i, r := range st.Since.Finished {
		if i > 0 || len(p.held) > 0 {
			b = append(b, ',')
		}
		b = appendFinish(b, r, p.version)
		p.reported[r.Index] = true
	}
	b = closeList(b, key, v3 && len(p.held)+len(st.Since.Finished) == 0)
	p.held = p.held[:0]
	key = len(b)
	b = appendKey(b, "free")
	b = append(b, '[')
	first = true
	for i, f := range st.Free {
		if p.begun && f == p.free[i] {
			continue
		}
		p.free[i] = f
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '[')
		b = appendInt(b, i)
		b = append(b, ',')
		b = appendAmounts(b, f)
		b = append(b, ']')
	}
	b = closeList(b, key, v3 && first)
	p.begun = true
	return append(b, "}\n"...)
}

// closeList ends the list whose key starts at b[key:], or, when drop is
// set (an empty list in protocol 3), takes the key back out.
func closeList(b []byte, key int, drop bool) []byte {
	if drop {
		return b[:key]
	}
	return append(b, ']')
}

func (p *Policy) announced(i int) bool { return i < len(p.jobs) && p.jobs[i] != nil }

func (p *Policy) announce(js *sim.JobState) {
	if js.Index >= len(p.jobs) {
		n := max(js.Index+1, 2*len(p.jobs))
		p.jobs = slices.Grow(p.jobs, n-len(p.jobs))[:n]
		p.reported = slices.Grow(p.reported, n-len(p.reported))[:n]
		p.stamp = slices.Grow(p.stamp, n-len(p.stamp))[:n]
	}
	p.jobs[js.Index] = js
	p.waiting++
}

// validate turns the answer's decisions into placements, checking each
// against the state and the decisions before it.
// The engine carries out the preemptions of a decision before its starts
// (sim.Decision); validation checks them in that order, so that a start
// may use what a preemption in the same answer frees.
func (p *Policy) validate(st *sim.State, a *answer) (sim.Decision, error) {
	n := len(a.Decisions)
	if a.parsed != nil {
		n = len(a.parsed.ds)
	}
	if n == 0 {
		return sim.Decision{}, nil
	}
	p.ds = p.ds[:0]
	for k := range n {
		var d decision
		var text []byte
		if a.parsed != nil {
			d, text = a.parsed.ds[k], a.parsed.text[k]
		} else {
			text = a.Decisions[k]
			var strict decision // on the heap, as decodeStrict's argument
			if err := decodeStrict(text, &strict); err != nil {
				return sim.Decision{}, p.bad(k, text, ErrMalformed, "%v", err)
			}
			d = strict
		}
		switch d.Op {
		case "start", "preempt":
		default:
			return sim.Decision{}, p.bad(k, text, ErrMalformed, `op %q: want "start" or "preempt"`, d.Op)
		}
		if d.Job == nil {
			return sim.Decision{}, p.bad(k, text, ErrMalformed, "no job")
		}
		if !p.announced(*d.Job) {
			return sim.Decision{}, p.bad(k, text, ErrUnknownJob, "job %d was never announced", *d.Job)
		}
		p.ds = append(p.ds, d)
	}
	p.ledger.CopyFrom(st)
	l := &p.ledger
	// Stamps: 2·seq marks a job preempted by this answer, 2·seq+1 one
	// started by it.
	preempted, started := uint32(2*p.seq), uint32(2*p.seq+1)
	var out sim.Decision
	for k, d := range p.ds {
		if d.Op != "preempt" {
			continue
		}
		text := p.text(a, k)
		j := *d.Job
		js := p.jobs[j]
		switch {
		case p.stamp[j] == preempted:
			return sim.Decision{}, p.bad(k, text, ErrDuplicateJob, "job %d (%q) is preempted twice in this answer", j, js.Job.JobID)
		case js.Status == sim.StatusPending:
			return sim.Decision{}, p.bad(k, text, ErrUnknownJob, "job %d (%q) is not running: it waits", j, js.Job.JobID)
		case js.Status != sim.StatusRunning:
			return sim.Decision{}, p.bad(k, text, ErrUnknownJob, "job %d (%q) has finished", j, js.Job.JobID)
		}
		p.stamp[j] = preempted
		for i, sl := range js.Slots {
			l.Give(sl.Server, js.Instances[i].Demand)
		}
		out.Preempt = append(out.Preempt, j)
	}
	slots := p.slots[:0]
	for k, d := range p.ds {
		if d.Op != "start" {
			continue
		}
		text := p.text(a, k)
		bad := func(rule error, format string, args ...any) error { return p.bad(k, text, rule, format, args...) }
		j := *d.Job
		js := p.jobs[j]
		switch {
		case p.stamp[j] == started:
			return sim.Decision{}, bad(ErrDuplicateJob, "job %d (%q) is started twice in this answer", j, js.Job.JobID)
		case p.stamp[j] == preempted:
			return sim.Decision{}, bad(ErrUnknownJob, "job %d (%q) is preempted by this answer: it may start again at a later decision", j, js.Job.JobID)
		case js.Status == sim.StatusPending:
		case js.Status == sim.StatusRunning:
			return sim.Decision{}, bad(ErrUnknownJob, "job %d (%q) is running since t=%gs", j, js.Job.JobID, js.StartS)
		default:
			return sim.Decision{}, bad(ErrUnknownJob, "job %d (%q) has finished", j, js.Job.JobID)
		}
		p.stamp[j] = started
		if len(d.Servers) != len(js.Instances) {
			return sim.Decision{}, bad(ErrMalformed, "%d servers for the %d instances of job %d", len(d.Servers), len(js.Instances), j)
		}
		if d.Sockets != nil && len(d.Sockets) != len(d.Servers) {
			return sim.Decision{}, bad(ErrMalformed, "%d sockets for %d servers", len(d.Sockets), len(d.Servers))
		}
		start := len(slots)
		for i, srv := range d.Servers {
			if srv < 0 || srv >= len(l.Free) {
				return sim.Decision{}, bad(ErrMalformed, "instance %d on server %d: the cluster has servers 0..%d", i, srv, len(l.Free)-1)
			}
			sock := -1
			if d.Sockets != nil {
				sock = d.Sockets[i]
				if n := len(st.Cluster.Servers[srv].Kind.Sockets); sock < -1 || sock >= n {
					return sim.Decision{}, bad(ErrMalformed, "instance %d on socket %d of server %d, which has sockets 0..%d (or -1: any)", i, sock, srv, n-1)
				}
			}
			dem := js.Instances[i].Demand
			if !l.Fits(srv, dem) {
				f := l.Free[srv]
				return sim.Decision{}, bad(ErrDoesNotFit, "instance %d of job %d needs gpu %g, cpu %g, mem_gib %g; server %d has %g, %g, %g free after the preemptions and the starts before it",
					i, j, dem.GPU, dem.CPU, dem.MemGiB, srv, f.GPU, f.CPU, f.MemGiB)
			}
			l.Take(srv, dem)
			slots = append(slots, sim.Slot{Server: srv, Socket: sock})
		}
		out.Start = append(out.Start, sim.Placement{Job: j, Slots: slots[start:len(slots):len(slots)]})
	}
	// The placements keep their slots: the next answer starts a new array.
	p.slots = nil
	return out, nil
}

// text is decision k's text, for errors.
func (p *Policy) text(a *answer, k int) []byte {
	if a.parsed != nil {
		return a.parsed.text[k]
	}
	return a.Decisions[k]
}

// bad is the error of decision k, which broke rule.
func (p *Policy) bad(k int, text []byte, rule error, format string, args ...any) error {
	return &DecisionError{Policy: p.cfg.Name, Message: p.seq, Decision: k, Text: shorten(string(text), 200),
		Err: fmt.Errorf("%w: %s", rule, fmt.Sprintf(format, args...))}
}

// decodeStrict decodes one JSON value, refusing unknown keys and anything
// after the value.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return fmt.Errorf("%q after the JSON value", shorten(string(rest), 40))
	}
	return nil
}

// exchange writes msg and reads one answer to it within timeout. The
// pipes block (a read is one system call, not a poller's three): a
// watchdog kills the child when the time is up or ctx is done, which ends
// the read or write.
func (p *Policy) exchange(ctx context.Context, msg []byte, timeout time.Duration) (*answer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var deadline int64
	if p.proc != nil {
		deadline = p.arm(ctx, timeout)
	}
	_, werr := p.w.Write(msg)
	var line []byte
	var rerr error
	if werr == nil {
		line, rerr = p.r.ReadSlice('\n')
	}
	if p.seq%yieldEvery == 0 {
		runtime.Gosched()
	}
	if p.proc != nil {
		// Once the watchdog has fired the child is gone, answer or not.
		if fired := !p.deadline.CompareAndSwap(deadline, 0); fired || ctx.Err() != nil {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w: no answer within %v", ErrTimeout, timeout)
		}
	}
	if werr != nil || rerr != nil {
		err := cmp.Or(werr, rerr)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return nil, fmt.Errorf("%w: an answer line longer than %d bytes (max_line_bytes)", ErrFlood, len(line))
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, fmt.Errorf("%w: output ended in an unterminated line %q", ErrExited, shorten(string(line), 200))
		case errors.Is(err, io.EOF), errors.Is(err, os.ErrClosed), isBrokenPipe(err):
			return nil, fmt.Errorf("%w: it closed its output", ErrExited)
		}
		return nil, err
	}
	if p.fast.parse(line) && string(p.fast.typ) == "decisions" {
		if p.fast.seq != p.seq {
			return nil, fmt.Errorf("%w: the answer to message %d carries seq %d", ErrSequence, p.seq, p.fast.seq)
		}
		p.fastAnswer = answer{Type: "decisions", parsed: &p.fast}
		return &p.fastAnswer, nil
	}
	var a answer
	if err := decodeStrict(line, &a); err != nil {
		return nil, fmt.Errorf("%w: not an answer (%v): %q", ErrMalformed, err, shorten(string(bytes.TrimSpace(line)), 200))
	}
	if a.Seq == nil || *a.Seq != p.seq {
		got := "none"
		if a.Seq != nil {
			got = fmt.Sprint(*a.Seq)
		}
		return nil, fmt.Errorf("%w: the answer to message %d carries seq %s", ErrSequence, p.seq, got)
	}
	if a.Type == "error" {
		return nil, fmt.Errorf("%w: %s", ErrGaveUp, shorten(a.Message, 2000))
	}
	return &a, nil
}

// yieldEvery is how many exchanges pass between two yields of the
// goroutine that makes them. A goroutine that only blocks in reads and
// writes never goes through the scheduler, so every 10 ms the runtime's
// monitor takes its P from it in a read (a forced preemption), and the
// monitor then polls every 20 µs for a while, on the core the policy
// wants, while the read's return takes the slow path. A yield every 64
// exchanges (a few milliseconds at tens of microseconds an exchange)
// starts a new scheduling tick before that. On BenchmarkProtocol it took
// the nanosleep calls from 0.15–0.32 to 0.02–0.03 a decision, the futex
// calls (0.03–0.12) to 0.04–0.045 (docs/measurements.md).
const yieldEvery = 64

// arm starts the watchdog of one exchange and returns its deadline: the
// child's group is killed once timeout has passed, or when ctx is done.
// An exchange only stores its deadline, and clears it when the answer is
// in: resetting a timer for each message would wake one of the runtime's
// idle threads each time (timers are the network poller's business), a
// futex call and a thread that runs for nothing, on a host where the
// child wants that core. The timer is made once and runs on its own
// (watchdog); the context's hook is registered once per context.
func (p *Policy) arm(ctx context.Context, timeout time.Duration) int64 {
	if p.watch == nil {
		p.epoch = time.Now()
	}
	deadline := p.clock() + int64(timeout)
	p.deadline.Store(deadline)
	if p.watch == nil || deadline < p.watchAt.Load() {
		// The first exchange, or the timer is set for later than this
		// deadline (a timeout shorter than the one before).
		p.watchMu.Lock()
		p.watchAt.Store(deadline)
		if p.watch == nil {
			p.watch = time.AfterFunc(timeout, p.watchdog)
		} else {
			p.watch.Reset(timeout)
		}
		p.watchMu.Unlock()
	}
	if ctx != p.watchCtx {
		if p.stopWatch != nil {
			p.stopWatch()
			p.stopWatch = nil
		}
		p.watchCtx = ctx
		if ctx.Done() != nil {
			proc := p.proc.cmd.Process
			p.stopWatch = context.AfterFunc(ctx, func() { killGroup(proc) })
		}
	}
	return deadline
}

// watchdog is the timer's function: it kills the child if an exchange is
// past its deadline, and otherwise sets the timer for the deadline of
// the exchange under way or, between exchanges, for the earliest deadline
// the next one can have.
func (p *Policy) watchdog() {
	p.watchMu.Lock()
	defer p.watchMu.Unlock()
	if p.watchOff {
		return
	}
	now := p.clock()
	d := p.deadline.Load()
	for d > 0 && now >= d {
		if p.deadline.CompareAndSwap(d, -1) {
			killGroup(p.proc.cmd.Process)
			return
		}
		d = p.deadline.Load()
	}
	if d < 0 {
		return
	}
	next := int64(min(p.cfg.Timeout, p.cfg.StartTimeout))
	if d > 0 {
		next = d - now
	}
	p.watchAt.Store(now + next)
	p.watch.Reset(time.Duration(next))
}

// clock is the time since p.epoch, monotonic, in nanoseconds.
func (p *Policy) clock() int64 { return int64(time.Since(p.epoch)) }

// disarm stops the watchdog for good.
func (p *Policy) disarm() {
	if p.watch != nil {
		p.watchMu.Lock()
		p.watchOff = true
		p.watch.Stop()
		p.watchMu.Unlock()
	}
	if p.stopWatch != nil {
		p.stopWatch()
		p.stopWatch = nil
	}
	p.watchCtx = nil
}

// fail records err as the run's error, wrapped as a ProtocolError unless
// it names a decision, kills and reaps the child, and returns it.
func (p *Policy) fail(err error) error {
	if p.proc != nil {
		grace := time.Duration(0)
		if errors.Is(err, ErrExited) {
			grace = killGrace // let it finish dying, for its exit status
		}
		p.disarm()
		p.proc.reap(grace)
	}
	var de *DecisionError
	if !errors.As(err, &de) {
		pe := &ProtocolError{Policy: p.cfg.Name, Message: p.seq, Err: err}
		if p.proc != nil {
			pe.Exit = p.proc.exit
			pe.Stderr = p.proc.stderr.String()
		}
		err = pe
	}
	if p.cfg.RowOnly {
		err = &RowError{Err: err}
	}
	p.err = err
	return err
}

// End tells the policy that the run is over: the jobs of res that finished
// since the last decision, and the run's metrics. Without a result (nil)
// the message says only that it ended. The policy does not answer.
func (p *Policy) End(ctx context.Context, res *sim.Result) error {
	if p.err != nil || p.closed {
		return p.err
	}
	p.seq++
	b := append(p.msg[:0], `{"type":"end","seq":`...)
	b = appendInt(b, p.seq)
	if res != nil {
		var last []sim.JobResult
		for _, r := range res.Jobs {
			if r.Index >= len(p.reported) || !p.reported[r.Index] {
				last = append(last, r)
			}
		}
		slices.SortFunc(last, func(a, b sim.JobResult) int {
			return cmp.Or(cmp.Compare(a.FinishS, b.FinishS), cmp.Compare(a.Index, b.Index))
		})
		b = append(b, `,"now":`...)
		b = appendFloat(b, res.Metrics.MakespanS)
		b = appendKey(b, "finished")
		b = append(b, '[')
		for i, r := range last {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFinish(b, r, p.version)
		}
		b = append(b, ']')
		b = appendKey(b, "metrics")
		m, err := json.Marshal(res.Metrics)
		if err != nil {
			return err
		}
		b = append(b, m...)
	}
	b = append(b, "}\n"...)
	p.msg = b
	if _, err := p.w.Write(b); err != nil {
		return p.fail(fmt.Errorf("%w: %v", ErrExited, err))
	}
	return nil
}

// Close ends the run for the policy: it sends "end" (when no error came
// before), closes the policy's input and reaps the process, killing its
// group if it is still there after a grace period. It returns an error
// when the policy exits with a failure after a run that went well; after
// an error it returns nil (the error was Schedule's).
func (p *Policy) Close() error {
	if p.closed {
		return nil
	}
	failed := p.err != nil
	if !failed {
		p.End(context.Background(), nil)
	}
	p.closed = true
	if p.proc == nil || p.proc.done {
		return nil
	}
	p.disarm()
	p.proc.reap(killGrace)
	if !failed && !p.proc.cmd.ProcessState.Success() {
		var err error = &ProtocolError{Policy: p.cfg.Name, Message: p.seq, Err: fmt.Errorf("%w after the end of the run", ErrExited),
			Exit: p.proc.exit, Stderr: p.proc.stderr.String()}
		if p.cfg.RowOnly {
			err = &RowError{Err: err}
		}
		return err
	}
	return nil
}
