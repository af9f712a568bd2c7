"""FIFO-FirstFit: jobs in submission order, each instance on the
lowest-index server it fits; a job that does not fit whole stays pending
and later jobs may start. The same decisions as schedlab's built-in
fifo-firstfit, to the bit: it books on a working copy of the free
resources with the same float operations in the same order, and skips the
jobs the built-in skips (a job shaped like one that failed in this
decision; a job whose total exceeds the free total, or whose first
instance exceeds the most any server has free).

It walks the pending jobs shape by shape (jobs with equal task lists),
as the built-in does, so that a decision costs the shapes that could fit
and the placements, not the length of the queue.

    python3 examples/fifo_firstfit.py     (schedlab starts it)
"""

import heapq
import os
import sys
from bisect import bisect_left, bisect_right, insort

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab import EPS, Policy, run, start  # noqa: E402


def sums(ledger):
    """The free total and the per-dimension most free on one server,
    summed in server order as the built-in sums them."""
    tg = tc = tm = 0.0
    mg = mc = mm = 0.0
    for g, c, m in ledger:
        tg, tc, tm = tg + g, tc + c, tm + m
        if g > mg:
            mg = g
        if c > mc:
            mc = c
        if m > mm:
            mm = m
    return (tg, tc, tm), (mg, mc, mm)


def lone_fit(free, g, c, m, eps=EPS):
    """The lowest-index server that one instance (g, c, m) fits on, as a
    list of one server, or None: first_fit's test, on free resources it
    leaves as they are."""
    s = 0
    for f in free:
        if g <= f[0] + eps and c <= f[1] + eps and m <= f[2] + eps:
            return [s]
        s += 1
    return None


def first_fit(ledger, job, eps=EPS):
    """Book every instance of job on the lowest-index server it fits, or
    none (giving back what was booked, in order). Returns the servers."""
    inst = job.instances
    if len(inst) == 1:
        g, c, m = inst[0]
        s = 0
        for f in ledger:
            if g <= f[0] + eps and c <= f[1] + eps and m <= f[2] + eps:
                f[0], f[1], f[2] = f[0] - g, f[1] - c, f[2] - m
                return [s]
            s += 1
        return None
    if len(job.shape) == 1:  # one task: the shape has an entry per task
        # The copies of one task, the usual case: each server takes copies
        # while they fit, booked in locals and stored once (the same
        # subtractions in the same order as copy by copy), and a failure
        # gives them back copy by copy, as the built-in does.
        g, c, m = inst[0]
        left = len(inst)
        servers = []
        s = 0
        for f in ledger:
            f0, f1, f2 = f
            if g <= f0 + eps and c <= f1 + eps and m <= f2 + eps:
                k = 0
                while True:
                    f0, f1, f2 = f0 - g, f1 - c, f2 - m
                    k += 1
                    if k == left or not (g <= f0 + eps and c <= f1 + eps and m <= f2 + eps):
                        break
                f[0], f[1], f[2] = f0, f1, f2
                servers += [s] * k
                left -= k
                if not left:
                    return servers
            s += 1
        for s in servers:
            f = ledger[s]
            f[0], f[1], f[2] = f[0] + g, f[1] + c, f[2] + m
        return None
    # The copies of one task are one tuple: a copy's search starts at the
    # server the one before it took, as the servers below it did not fit
    # that copy and nothing has been booked on them since.
    servers = []
    n = len(ledger)
    prev = None
    for d in inst:
        if d is not prev:
            prev, s = d, 0
        g, c, m = d
        while s < n:
            f = ledger[s]
            if g <= f[0] + eps and c <= f[1] + eps and m <= f[2] + eps:
                break
            s += 1
        else:
            for k, s in enumerate(servers):
                f, dk = ledger[s], inst[k]
                f[0], f[1], f[2] = f[0] + dk[0], f[1] + dk[1], f[2] + dk[2]
            return None
        f[0], f[1], f[2] = f[0] - g, f[1] - c, f[2] - m
        servers.append(s)
    return servers


class Shape:
    """The pending jobs of one task list, in submission order, with what
    the cheap test reads of them: the total and the first instance, the
    same for every job of the shape. A shape is in the policy's indices
    while it has pending jobs; one that the lone-job path empties stays
    there, empty (the walk skips it), until a walk places its last job
    again."""

    __slots__ = ("jobs", "tg", "tc", "tm", "dg", "dc", "dm", "entries", "indexed")

    def __init__(self, job, ident):
        self.jobs = []
        self.tg, self.tc, self.tm = job.total
        self.dg, self.dc, self.dm = job.instances[0]
        # Its entries in the policy's four sorted indices: (amount, id,
        # shape); the id is unique, so the shape itself is never compared.
        self.entries = [(x, ident, self) for x in (self.dg, self.dc, self.tg, self.tc)]
        self.indexed = False  # whether the entries are in the indices


class FIFOFirstFit(Policy):
    name = "fifo-firstfit-py"
    # Its answer depends on the queue and the free resources only, and it
    # only starts jobs: a decision point where nothing arrived or finished,
    # or where no waiting job could fit, would get an empty answer.
    wake_on = ("fit",)

    def __init__(self):
        self.shapes = {}  # task list -> Shape, for every task list seen
        # The shapes with pending jobs (and some emptied since), sorted by
        # their first instance's GPU and CPU and their total GPU and CPU:
        # a test of one amount rejects a suffix.
        self.index = ([], [], [], [])
        self.ids = 0

    def _unindex(self, s):
        s.indexed = False
        for ix, e in zip(self.index, s.entries):
            del ix[bisect_left(ix, e)]

    def schedule(self, state):
        shapes = self.shapes
        s = None
        for j in state.arrived:
            s = shapes.get(j.shape)
            if s is None:
                s = shapes[j.shape] = Shape(j, self.ids)
                self.ids += 1
            if not s.indexed:
                s.indexed = True
                for ix, e in zip(self.index, s.entries):
                    insort(ix, e)
            s.jobs.append(j)
        pending = state.pending
        if not pending:
            return []
        if len(pending) == 1:
            # One job waits: what the walk below does, without its
            # machinery (the shapes it leaves unvisited fail the cheap
            # test too, and no other job can rejoin), and without a copy
            # of the free resources unless it books more than one copy.
            free = state.free
            (tg, tc, tm), (mg, mc, mm) = sums(free)
            # Every arrival is pending: if a job arrived, it is the one
            # that waits, and s, the last arrival's shape, is its shape.
            if s is None:
                s = shapes[next(iter(pending.values())).shape]
            if (s.tg <= tg + EPS and s.tc <= tc + EPS and s.tm <= tm + EPS and
                    s.dg <= mg + EPS and s.dc <= mc + EPS and s.dm <= mm + EPS):
                j = s.jobs[0]
                if len(j.instances) == 1:
                    servers = lone_fit(free, s.dg, s.dc, s.dm)
                else:
                    servers = first_fit(state.ledger(), j)
                if servers is not None:
                    # Left in the indices, empty: the next job of its
                    # shape, often the next to arrive, finds it there.
                    s.jobs.pop()
                    return [{"op": "start", "job": j.index, "servers": servers}]
            return []
        ledger = state.ledger()
        free, most = sums(ledger)
        fg, fc, fm = free[0] + EPS, free[1] + EPS, free[2] + EPS
        mg, mc, mm = most[0] + EPS, most[1] + EPS, most[2] + EPS

        # The built-in tests every shape's first job and sets aside those
        # the cheap test rejects. Shapes whose first instance needs more
        # GPU (or CPU) than any server has free, or whose total needs more
        # than all servers have, are among them: the most selective of the
        # four indices leaves them unvisited unless rounding makes the
        # free amounts grow, when they rejoin. The heap holds each shape
        # with a candidate: (its submit time, job index, position, shape);
        # the job index is unique, so nothing past it is compared.
        inf = float("inf")
        ix, hi = None, 0
        for x, limit in zip(self.index, (mg, mc, fg, fc)):
            h = bisect_right(x, (limit, inf))
            if ix is None or h < hi:
                ix, hi = x, h
        heap = [((j := s.jobs[0]).submit, j.index, 0, s) for _, _, s in ix[:hi]
                if s.jobs and s.tg <= fg and s.tc <= fc and s.tm <= fm and s.dg <= mg and s.dc <= mc and s.dm <= mm]
        heapq.heapify(heap)
        out = []
        placed = {}  # shape -> the positions of its jobs placed
        failed = []  # the shapes whose first fit failed: out for this decision
        while heap:
            _, _, c, s = heap[0]
            if not (s.tg <= fg and s.tc <= fc and s.tm <= fm and
                    s.dg <= mg and s.dc <= mc and s.dm <= mm):
                heapq.heappop(heap)  # rejected: it may rejoin
                continue
            q = s.jobs
            j = q[c]
            servers = first_fit(ledger, j)
            if servers is None:
                heapq.heappop(heap)  # every later job of the shape fails too
                failed.append(s)
                continue
            out.append(start(j, servers))
            p = placed.get(s)
            if p is None:
                placed[s] = [c]
            else:
                p.append(c)
            c += 1
            if c < len(q):
                nj = q[c]
                heapq.heapreplace(heap, (nj.submit, nj.index, c, s))
            else:
                heapq.heappop(heap)
            nf, nm = sums(ledger)
            grew = (nf[0] > free[0] or nf[1] > free[1] or nf[2] > free[2] or
                    nm[0] > most[0] or nm[1] > most[1] or nm[2] > most[2])
            free, most = nf, nm
            fg, fc, fm = free[0] + EPS, free[1] + EPS, free[2] + EPS
            mg, mc, mm = most[0] + EPS, most[1] + EPS, most[2] + EPS
            if grew:
                # Rounding gave some free amount back: the shapes set aside
                # (rejected, or never visited; not those that failed a first
                # fit) rejoin from their first job after j.
                out_now = {e[3] for e in heap}
                out_now.update(failed)
                key = (j.submit, j.index)
                for _, _, r in ix:
                    if r in out_now:
                        continue
                    rq = r.jobs
                    c = 0
                    while c < len(rq) and (rq[c].submit, rq[c].index) <= key:
                        c += 1
                    if c < len(rq):
                        heapq.heappush(heap, (rq[c].submit, rq[c].index, c, r))
        for s, idx in placed.items():
            q = s.jobs
            if idx[-1] == len(idx) - 1:  # a prefix, the usual case
                del q[:len(idx)]
            else:
                gone = set(idx)
                q[:] = [x for i, x in enumerate(q) if i not in gone]
            if not q:
                self._unindex(s)
        return out


if __name__ == "__main__":
    sys.exit(run(FIFOFirstFit()))
