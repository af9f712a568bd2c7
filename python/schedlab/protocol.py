"""The policy side of schedlab's protocol (docs/policy-protocol.md, versions 1 to 3).

schedlab sends one JSON object per line and waits for exactly one answer
line to every message but "end":

    hello   {"type":"hello","protocol":3,"seq":0,"policy":..,"seed":..,"oracle":..,"preempt":..}
            answer {"type":"hello","protocol":3,"seq":0,"name":..,["wake_on":[..]]}
    decide  {"type":"decide","seq":n,"now":t,["cluster":{..}],"arrived":[..],"finished":[..],"free":[..]}
            answer {"type":"decisions","seq":n,"decisions":[{"op":"preempt","job":j},
                    {"op":"start","job":j,"servers":[..]}],["wake":t]}
    end     {"type":"end","seq":n,[...]}: no answer; exit 0

From version 3 on (this client's), an arrival is [job,id,submit,[[role,
instances,gpu,cpu,mem_gib],..],user,model(,duration)], a finish
[job,finish], and empty lists are left out: fewer objects to decode.

State keeps the picture those deltas describe: the cluster, each server's
free resources as schedlab computes them, the pending jobs in submission
order, the running jobs and what they have been observed to do.
"""

import gc
import io
import json
import json.scanner
import os
import sys
from bisect import insort

# The newest version this client speaks; it answers schedlab with the
# newest both speak (schedlab accepts any from 1 to its own).
PROTOCOL = 3

# Resources fit when each amount is at most the free amount plus EPS, as in
# schedlab's engine (sums of fractional GPU shares round).
EPS = 1e-9


class ProtocolError(Exception):
    """A message that is not what the protocol says."""


def fits(demand, free):
    """Whether demand (gpu, cpu, mem_gib) fits free (the same)."""
    return demand[0] <= free[0] + EPS and demand[1] <= free[1] + EPS and demand[2] <= free[2] + EPS


class Server:
    """One server: its capacity (gpu, cpu, mem_gib), kind, pod and sockets."""

    __slots__ = ("index", "capacity", "kind", "pod", "sockets")

    def __init__(self, index, d):
        self.index = index
        self.capacity = (d["gpu"], d["cpu"], d["mem_gib"])
        self.kind = d.get("kind", "")
        self.pod = d.get("pod", 0)
        self.sockets = [(s["gpu"], s["cpu"]) for s in d.get("sockets", [])]


class Job:
    """A job as a real scheduler sees it: its requirement list and what
    has been observed of it. instances are its tasks flattened in order,
    one (gpu, cpu, mem_gib) per instance; a start decision gives one server
    per instance. duration is None unless the row is an oracle."""

    __slots__ = ("index", "id", "submit", "user", "model", "_tasks", "instances", "total",
                 "shape", "duration", "start", "servers", "finish", "ran", "stint", "preemptions")

    def __init__(self, d):
        if type(d) is list:
            self._init3(d)
            return
        self.index = d["job"]
        self.id = d["id"]
        self.submit = d["submit"]
        self.user = d.get("user", "")
        self.model = d.get("model", "")
        tasks = self._tasks = d["tasks"]
        # Jobs with equal task lists request the same instances.
        self._require(tuple((t["role"], t["instances"], t["gpu"], t["cpu"], t["mem_gib"]) for t in tasks))
        self._fresh(d.get("duration"))

    def _init3(self, a):
        """A protocol-3 arrival: [job, id, submit, tasks, user, model]
        (and duration for an oracle), each task [role, instances, gpu,
        cpu, mem_gib]: the same job as its version-2 object describes."""
        self.index, self.id, self.submit, tasks, self.user, self.model = a[:6]
        self._require(((*tasks[0],),) if len(tasks) == 1 else tuple(map(tuple, tasks)))
        # The tasks are the shape's tuples until Job.tasks is read: the
        # message's lists are not kept (the collector never untracks a
        # list, and a long run holds every job).
        self._tasks = self.shape
        self._fresh(a[6] if len(a) > 6 else None)

    def _require(self, shape):
        """The requirement list's instances and total, from its shape: per
        task (role, instances, gpu, cpu, mem_gib)."""
        self.shape = shape
        if len(shape) == 1 and shape[0][1] == 1:
            # The common case, without the loops: one instance.
            _, _, g, c, m = shape[0]
            self.instances = [(g, c, m)]
            # 0.0 + x, as the general case sums from zero.
            self.total = (0.0 + g, 0.0 + c, 0.0 + m)
            return
        inst = []
        g = c = m = 0.0
        for _, n, dg, dc, dm in shape:
            dem = (dg, dc, dm)
            inst += [dem] * n
            for _ in range(n):
                # Summed instance by instance, as the engine sums them.
                g, c, m = g + dg, c + dc, m + dm
        self.instances = inst
        self.total = (g, c, m)

    def _fresh(self, duration):
        """What is observed of a job that has just arrived: nothing yet."""
        self.duration = duration
        self.start = None
        self.servers = None
        self.finish = None
        self.ran = 0.0  # run time of the stints before the current one
        self.stint = None  # when the current stint began
        self.preemptions = 0

    @property
    def tasks(self):
        """The requirement list: per task a dict of role, instances, gpu,
        cpu and mem_gib, whichever version of the protocol announced it."""
        t = self._tasks
        if type(t) is tuple:  # protocol 3's, as the shape
            t = self._tasks = [dict(zip(_TASK_KEYS, x)) for x in t]
        return t

    @tasks.setter
    def tasks(self, value):
        self._tasks = value

    def elapsed(self, now):
        """Observed run time so far, over every stint (0 if it never ran):
        the attained service that LAS-like policies rank by, computed as
        schedlab's engine computes it."""
        if self.stint is None:
            return self.ran
        end = self.finish if self.finish is not None else now
        return self.ran + (end - self.stint)

    def __repr__(self):
        return "Job(%d, %r)" % (self.index, self.id)


_TASK_KEYS = ("role", "instances", "gpu", "cpu", "mem_gib")
_new_job = object.__new__


class State:
    """What the policy knows at a decision point, rebuilt from the deltas.

    now, seq      the decision's time and message number
    seed, oracle  from the hello
    servers       list of Server
    free          per server, a list [gpu, cpu, mem_gib] of free resources
    pending       dict job index -> Job, in submission order
    running       dict job index -> Job
    arrived       the jobs announced by this message (also in pending)
    finished      the jobs that finished since the previous message
    jobs          every job announced so far, by index
    """

    def __init__(self, seed=0, oracle=False, preempt=False, policy=""):
        self.seed = seed
        self.oracle = oracle
        self.preempt = preempt
        self.policy = policy
        self.now = 0.0
        self.seq = 0
        self.servers = []
        self.cluster_name = ""
        self.free = []
        self.pending = {}
        self.running = {}
        self.jobs = {}
        self.arrived = []
        self.finished = []
        self.done = 0
        # A policy sets wake to ask for a decision at that time even if
        # nothing arrives or finishes by then (0: none); it is sent with
        # the answer and reset.
        self.wake = 0.0

    def update(self, msg):
        """Apply a decide (or end) message."""
        self.seq = msg["seq"]
        self.now = msg.get("now", self.now)
        cluster = msg.get("cluster")
        if cluster is not None:
            self.cluster_name = cluster.get("name", "")
            self.servers = [Server(i, s) for i, s in enumerate(cluster["servers"])]
            self.free = [list(s.capacity) for s in self.servers]
        arrived = msg.get("arrived")
        if arrived:
            pending, jobs = self.pending, self.jobs
            if len(arrived) == 1:
                # The usual message announces one job: no list to build,
                # and a version-3 one without Job's dispatch.
                a = arrived[0]
                if type(a) is list:
                    j = _new_job(Job)
                    j._init3(a)
                else:
                    j = Job(a)
                pending[j.index] = jobs[j.index] = j
                arrived = [j]
            else:
                arrived = [Job(d) for d in arrived]
                for j in arrived:
                    pending[j.index] = jobs[j.index] = j
            self.arrived = arrived
        else:
            self.arrived = []
        finished = msg.get("finished")
        if finished:
            running = self.running
            done = []
            for d in finished:
                if type(d) is list:  # protocol 3: [job, finish]
                    k, t = d
                else:
                    k, t = d["job"], d["finish"]
                j = running.pop(k, None)
                if j is None:
                    raise ProtocolError("message %d: job %d finished but was not running" % (self.seq, k))
                j.finish = t
                done.append(j)
            self.finished = done
            self.done += len(done)
        else:
            self.finished = []
        free = msg.get("free")
        if free:
            free_ = self.free
            for s, g, c, m in free:
                f = free_[s]
                f[0], f[1], f[2] = g, c, m

    def apply(self, decisions):
        """Record the decisions sent (schedlab carries out valid ones:
        first the preemptions, then the starts)."""
        now = self.now
        requeued = False
        for d in decisions:
            if d["op"] == "preempt":
                j = self.running.pop(d["job"])
                j.ran += now - j.stint
                j.stint = None
                j.servers = None
                j.preemptions += 1
                self.pending[j.index] = j
                requeued = True
        for d in decisions:
            if d["op"] == "start":
                j = self.pending.pop(d["job"])
                if j.start is None:
                    j.start = now
                j.stint = now
                j.servers = d["servers"]
                self.running[j.index] = j
        if requeued:
            # A preempted job waits at its place in submission order.
            order = sorted(self.pending.values(), key=lambda j: (j.submit, j.index))
            self.pending = {j.index: j for j in order}

    def ledger(self):
        """A working copy of the free resources, to book tentative starts."""
        return [f[:] for f in self.free]


def preempt(job):
    """The decision to stop a running job (only when the hello said
    preempt: true). It goes back to pending with its progress kept, and
    what it held is free for this answer's starts; it cannot be started
    again in the same answer."""
    return {"op": "preempt", "job": job.index if isinstance(job, Job) else job}


def start(job, servers, sockets=None):
    """The decision to start job with instance i on servers[i] (and, if
    given, homed on sockets[i]; -1 lets schedlab choose)."""
    d = {"op": "start", "job": job.index if isinstance(job, Job) else job, "servers": list(servers)}
    if sockets is not None:
        d["sockets"] = list(sockets)
    return d


def place_in_order(state, choose):
    """The starts of a policy that takes the pending jobs oldest first and
    puts each instance on the server choose(ok, free) returns, ok being
    the indices of the servers the instance fits on (never empty) and free
    the resources left after the job's earlier instances; a job that does
    not fit whole stays pending and later jobs may start."""
    free, out = state.ledger(), []
    for job in state.pending.values():  # submission order
        trial, servers = [f[:] for f in free], []
        for d in job.instances:
            ok = [s for s in range(len(trial)) if fits(d, trial[s])]
            if not ok:
                break
            s = choose(ok, trial)
            trial[s] = [trial[s][k] - d[k] for k in range(3)]
            servers.append(s)
        if len(servers) == len(job.instances):
            free, out = trial, out + [start(job, servers)]
    return out


class Policy:
    """Base class of a policy: override schedule; begin and end are hooks.

    wake_on, when set, lists the decision points the policy wants to be
    asked at (protocol 2): "arrival" (a job arrived since the last
    message), "finish" (one finished), "fit" (either, and some pending job
    could start on what is free). None: every decision point. Whatever
    the list, the policy is also asked at its wake time and whenever jobs
    wait on an idle cluster; what the points it was not asked at brought
    comes in the next message."""

    name = None
    wake_on = None

    def begin(self, state):
        """Called after the hello, before the first decision."""

    def schedule(self, state):
        """Return the decisions at this decision point: a list of
        start(job, servers). Jobs left out stay pending."""
        raise NotImplementedError

    def end(self, state):
        """Called when the run is over."""


def _dump(obj):
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


# Decoding and encoding are much of a decision's cost on this side: the
# scanner is json.loads without its checks on bytes and trailing text
# (schedlab writes one object per line), and the common decisions are
# formatted directly, the rest by json.dumps.
_scan = json.scanner.make_scanner(json.JSONDecoder())


def _load(line):
    return _scan(line.decode(), 0)[0]


def _encode_decisions(decisions):
    return ",".join(map(_encode, decisions))


def _encode(d):
    """One decision, exactly as json.dumps would write it: the common
    forms (a start of ints on ints, a preempt; bools and floats take the
    general path) formatted directly."""
    if type(d) is dict:
        op = d.get("op")
        if op == "start":
            job, servers = d.get("job"), d.get("servers")
            if len(d) == 3 and type(job) is int and type(servers) is list:
                if len(servers) == 1:
                    if type(servers[0]) is int:
                        return f'{{"op":"start","job":{job},"servers":[{servers[0]}]}}'
                elif servers and _only_ints(servers):
                    return f'{{"op":"start","job":{job},"servers":[{",".join(map(str, servers))}]}}'
        elif op == "preempt" and len(d) == 2 and type(d.get("job")) is int:
            return '{"op":"preempt","job":%d}' % d["job"]
    return json.dumps(d, separators=(",", ":"))


def _only_ints(xs):
    return set(map(type, xs)) == _INT


_INT = {int}


def answer_version(hello):
    """The protocol version to answer schedlab's hello with: the newest
    that both speak."""
    theirs = hello.get("protocol")
    if type(theirs) is not int or theirs < 1:
        raise ProtocolError("schedlab speaks protocol %r, this client 1 to %d" % (theirs, PROTOCOL))
    return min(theirs, PROTOCOL)


def run(policy, inp=None, out=None, freeze=True, early=True):
    """Serve policy on stdin/stdout until schedlab ends the run. Anything the
    policy prints goes to stderr: stdout is the protocol's.

    freeze: once the hello is answered and policy.begin has run, every
    object alive (the interpreter's modules, the policy's start-up state)
    moves to the garbage collector's permanent generation (gc.freeze), so
    that its full collections, which a long run's growing job table sets
    off, never walk them again; objects made later are collected as
    usual. freeze=False leaves the collector as it is.

    early: work that needs nothing from the next message is done while
    schedlab computes it, after the answer is written: the message's
    objects are freed, and when the youngest generation is near its
    threshold it is collected (with the middle one when that is due), as
    the collector would when an allocation in the next message crossed
    the threshold: collections of the same generations, a little earlier
    (none while the collector is disabled). Full collections keep the
    collector's own trigger and its rule for them. early=False leaves
    the collections to the collector's thresholds alone.

    Each message costs one read and each answer one write: stdin is read
    through a buffer as large as a pipe holds (sys.stdin.buffer's is a
    page, and a larger message took several reads), and an answer goes
    to stdout's descriptor in one os.write, not through a buffered writer
    and its flush."""
    if inp is None:
        inp = io.open(sys.stdin.fileno(), "rb", buffering=_PIPE_BYTES, closefd=False)
    if out is None:
        fd = sys.stdout.fileno()
        sys.stdout.flush()
        sys.stdout = sys.stderr

        def send(b):
            while b:
                b = b[os.write(fd, b):]
    else:
        def send(b):
            out.write(b)
            out.flush()
    readline = inp.readline
    line = readline()
    if not line:
        return 0
    hello = _load(line)
    if hello.get("type") != "hello":
        raise ProtocolError("first message is %r, not a hello" % hello.get("type"))
    version = answer_version(hello)
    name = policy.name or type(policy).__name__
    answer = {"type": "hello", "protocol": version, "seq": 0, "name": name}
    if version >= 2 and policy.wake_on is not None:
        answer["wake_on"] = list(policy.wake_on)
    send(_dump(answer))
    state = State(seed=hello.get("seed", 0), oracle=hello.get("oracle", False),
                  preempt=hello.get("preempt", False), policy=hello.get("policy", ""))
    policy.begin(state)
    if freeze:
        gc.freeze()
    schedule, update, apply = policy.schedule, state.update, state.apply
    young, middle, old = _young_collection(early)
    get_count, collect, isenabled = gc.get_count, gc.collect, gc.isenabled
    while True:
        line = readline()
        if not line:
            return 0
        msg = _scan(line.decode(), 0)[0]
        kind = msg.get("type")
        if kind != "decide":
            if kind == "end":
                update(msg)
                policy.end(state)
                return 0
            raise ProtocolError("message %r: unknown type %r" % (msg.get("seq"), kind))
        try:
            update(msg)
            decisions = schedule(state) or []
        except Exception:
            # Imported here: traceback and what it imports are a tenth of
            # the client's start, and a policy that works never needs it.
            import traceback
            send(_dump({"type": "error", "seq": msg["seq"], "message": traceback.format_exc()}))
            return 1
        if state.wake:
            wake = ',"wake":' + json.dumps(float(state.wake))
            state.wake = 0.0
        else:
            wake = ""
        # f-strings, not %: the same text for these ints, without parsing a
        # format at every answer.
        # The usual answer, one decision: without a join.
        body = _encode(decisions[0]) if len(decisions) == 1 else _encode_decisions(decisions)
        send(f'{{"type":"decisions","seq":{msg["seq"]},"decisions":[{body}]{wake}}}\n'.encode())
        apply(decisions)
        # schedlab's turn: what the message built is freed now rather
        # than after the next read, and the young generations collected
        # before the threshold would set them off inside the next message.
        line = msg = decisions = None
        if young:
            count = get_count()
            if count[0] > young and count[2] <= old and isenabled():
                collect(1 if count[1] > middle else 0)


def _young_collection(early):
    """When run collects the two younger generations itself, after an
    answer: once the youngest holds more than the first value; the middle
    one too when its count is past the second, as the collector's trigger
    would; and only while the oldest generation's count is at most the
    third (past it, the collector's own trigger takes over, with its rule
    for full collections). (0, 0, 0): never, the collector's thresholds
    alone."""
    t0, t1, t2 = gc.get_threshold()
    if not early or t0 <= 0:
        return 0, 0, 0
    # The head room is what a large message allocates (a few hundred
    # objects), so that the collector's own trigger rarely comes first.
    return max(t0 - 256, t0 // 2), t1, t2


# What a pipe holds on Linux: a message as long as that arrives in one read.
_PIPE_BYTES = 1 << 16
