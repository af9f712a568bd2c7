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
from bisect import bisect_right, insort

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab import EPS, Policy, run, start  # noqa: E402


def sums(ledger):
    """The free total and the per-dimension most free on one server,
    summed in server order as the built-in sums them."""
    tg = tc = tm = 0.0
    mg = mc = mm = 0.0
    for g, c, m in ledger:
        tg, tc, tm = tg + g, tc + c, tm + m
        mg, mc, mm = max(mg, g), max(mc, c), max(mm, m)
    return (tg, tc, tm), (mg, mc, mm)


def first_fit(ledger, job):
    """Book every instance of job on the lowest-index server it fits, or
    none (giving back what was booked, in order). Returns the servers."""
    servers = []
    for d in job.instances:
        g, c, m = d
        for s, f in enumerate(ledger):
            if g <= f[0] + EPS and c <= f[1] + EPS and m <= f[2] + EPS:
                break
        else:
            for k, s in enumerate(servers):
                f, dk = ledger[s], job.instances[k]
                f[0], f[1], f[2] = f[0] + dk[0], f[1] + dk[1], f[2] + dk[2]
            return None
        f[0], f[1], f[2] = f[0] - g, f[1] - c, f[2] - m
        servers.append(s)
    return servers


class FIFOFirstFit(Policy):
    name = "fifo-firstfit-py"
    # Its answer depends on the queue and the free resources only, and it
    # only starts jobs: a decision point where nothing arrived or finished,
    # or where no waiting job could fit, would get an empty answer.
    wake_on = ("fit",)

    def __init__(self):
        self.queues = {}  # shape -> its pending jobs, in submission order
        # The shapes with pending jobs, sorted by each of their first
        # instance's GPU and CPU and their total GPU and CPU: (amount, id,
        # shape); a test of one amount rejects a prefix's complement.
        self.index = ([], [], [], [])
        self.entry = {}  # shape -> its entries in the four
        self.ids = 0
        # Shapes whose queue emptied stay indexed until there are this
        # many: a shape that comes back soon costs nothing to re-add.
        self.empty = 0

    def schedule(self, state):
        queues = self.queues
        for j in state.arrived:
            q = queues.get(j.shape)
            if q is None:
                q = queues[j.shape] = []
                d, t = j.instances[0], j.total
                e = self.entry[j.shape] = [(x, self.ids, j.shape) for x in (d[0], d[1], t[0], t[1])]
                self.ids += 1
                for ix, x in zip(self.index, e):
                    insort(ix, x)
            elif not q:
                self.empty -= 1
            q.append(j)
        if not state.pending:
            return []
        ledger = state.ledger()
        free, most = sums(ledger)
        if len(state.pending) == 1:
            # One job waits: what the walk below does, without its
            # machinery (the shapes it leaves unvisited fail the cheap
            # test too, and no other job can rejoin).
            j = queues[next(iter(state.pending.values())).shape].pop()
            t, d = j.total, j.instances[0]
            if (t[0] <= free[0] + EPS and t[1] <= free[1] + EPS and t[2] <= free[2] + EPS and
                    d[0] <= most[0] + EPS and d[1] <= most[1] + EPS and d[2] <= most[2] + EPS):
                servers = first_fit(ledger, j)
                if servers is not None:
                    self.emptied(j.shape)
                    return [start(j, servers)]
            queues[j.shape].append(j)
            return []

        def cheap(j):
            t, d = j.total, j.instances[0]
            return not (t[0] <= free[0] + EPS and t[1] <= free[1] + EPS and t[2] <= free[2] + EPS and
                        d[0] <= most[0] + EPS and d[1] <= most[1] + EPS and d[2] <= most[2] + EPS)

        # The built-in tests every shape's first job and sets aside those the
        # cheap test rejects. Shapes whose first instance needs more GPU (or
        # CPU) than any server has free, or whose total needs more than all
        # servers have, are among them: they are left unvisited here (unseen) unless
        # rounding makes the free totals grow, when they rejoin.
        inf = float("inf")
        best = None
        for ix, limit in zip(self.index, (most[0], most[1], free[0], free[1])):
            hi = bisect_right(ix, (limit + EPS, inf))
            if best is None or hi < best[1]:
                best = ix, hi
        ix, hi = best
        seen, unseen = ix[:hi], ix[hi:]
        rejected = []
        heap = []
        cursor = {}
        # cheap(j), inlined with its bounds in locals: the loop visits
        # every shape that could fit, at every decision.
        fg, fc, fm = free[0] + EPS, free[1] + EPS, free[2] + EPS
        mg, mc, mm = most[0] + EPS, most[1] + EPS, most[2] + EPS
        for _, _, shape in seen:
            q = queues[shape]
            if not q:
                continue
            j = q[0]
            t, d = j.total, j.instances[0]
            if (t[0] <= fg and t[1] <= fc and t[2] <= fm and
                    d[0] <= mg and d[1] <= mc and d[2] <= mm):
                cursor[shape] = 0
                heap.append((j.submit, j.index, shape))
            else:
                rejected.append(shape)
        heapq.heapify(heap)
        out = []
        placed = {}
        while heap:
            shape = heap[0][2]
            q = queues[shape]
            j = q[cursor[shape]]
            if cheap(j):
                heapq.heappop(heap)
                rejected.append(shape)
                continue
            servers = first_fit(ledger, j)
            if servers is None:
                heapq.heappop(heap)  # every later job of the shape fails too
                continue
            out.append(start(j, servers))
            placed.setdefault(shape, []).append(cursor[shape])
            cursor[shape] += 1
            if cursor[shape] < len(q):
                nj = q[cursor[shape]]
                heapq.heapreplace(heap, (nj.submit, nj.index, shape))
            else:
                heapq.heappop(heap)
            nf, nm = sums(ledger)
            grew = (nf[0] > free[0] or nf[1] > free[1] or nf[2] > free[2] or
                    nm[0] > most[0] or nm[1] > most[1] or nm[2] > most[2])
            free, most = nf, nm
            if grew:
                # Rounding gave some free amount back: the rejected shapes
                # rejoin from their first job after j.
                back = rejected + [e[2] for e in unseen]
                rejected, unseen = [], []
                for s in back:
                    rq = queues[s]
                    c = 0
                    while c < len(rq) and (rq[c].submit, rq[c].index) <= (j.submit, j.index):
                        c += 1
                    if c < len(rq):
                        cursor[s] = c
                        heapq.heappush(heap, (rq[c].submit, rq[c].index, s))
        for shape, idx in placed.items():
            q = queues[shape]
            if idx[-1] == len(idx) - 1:  # a prefix, the usual case
                del q[:len(idx)]
            else:
                gone = set(idx)
                q[:] = [x for i, x in enumerate(q) if i not in gone]
            if not q:
                self.emptied(shape)
        return out

    def emptied(self, shape):
        """Note that shape's queue is empty; drop the empty shapes from the
        index once there are many."""
        self.empty += 1
        if self.empty <= 64:
            return
        for s in [s for s, q in self.queues.items() if not q]:
            del self.queues[s]
            for ix, x in zip(self.index, self.entry.pop(s)):
                ix.remove(x)
        self.empty = 0


if __name__ == "__main__":
    sys.exit(run(FIFOFirstFit()))
