"""A preemptive policy: at every decision the runnable jobs (waiting or
running) are ordered by a key, and admitted in that order; a running job
that no longer fits is preempted. The admission is the walk of schedlab's
built-in preemptive policies (schedulers/preemptive.go, after the Tiresias
simulator), float operation for float operation:

 1. On an empty cluster, take the jobs in order; book each first fit
    (every instance on the lowest-index server it fits) if its total fits
    what is left and no job of its shape failed before: these are chosen.
 2. On the real cluster, the chosen running jobs keep their servers; the
    chosen waiting jobs start first fit around them.
 3. The others, in order: a running one keeps its servers if they still
    fit, else it is preempted; a waiting one starts if it fits.

Keys (argv[1]):
    gpus   the job's GPUs, ties in arrival order: the same decisions as the
           built-in smallest-first, to the bit
    las    attained service, observed run time x GPUs (least attained
           service first): a LAS-like policy; it asks to be woken every
           --quantum seconds (default 600) while jobs run, so that a
           running job's growing service can let a waiting one in

    python3 examples/preemptive.py gpus      (schedlab starts it)
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab import EPS, Policy, preempt, run, start  # noqa: E402


def fits(d, f):
    return d[0] <= f[0] + EPS and d[1] <= f[1] + EPS and d[2] <= f[2] + EPS


def sub(f, d):
    return [f[0] - d[0], f[1] - d[1], f[2] - d[2]]


def add(f, d):
    return [f[0] + d[0], f[1] + d[1], f[2] + d[2]]


class Preemptive(Policy):
    def __init__(self, key="gpus", quantum=600.0):
        self.name = "preemptive-" + key
        self.key = key
        self.quantum = quantum
        self.runnable = []  # waiting and running jobs, in the order of the last sort

    def rank(self, j, now):
        if self.key == "gpus":
            return j.total[0]
        return j.elapsed(now) * j.total[0]

    def schedule(self, state):
        now = state.now
        gone = {j.index for j in state.finished}
        if gone:
            self.runnable = [j for j in self.runnable if j.index not in gone]
        self.runnable.extend(state.arrived)
        # A stable sort: ties keep the previous order, as the built-in's.
        self.runnable.sort(key=lambda j: self.rank(j, now))
        caps = [s.capacity for s in state.servers]
        running = state.running

        def empty():
            return [list(c) for c in caps]

        def first_fit(ledger, j):
            servers = []
            for d in j.instances:
                for s, f in enumerate(ledger):
                    if fits(d, f):
                        break
                else:
                    for k, s in enumerate(servers):
                        ledger[s] = add(ledger[s], j.instances[k])
                    return None
                ledger[s] = sub(ledger[s], d)
                servers.append(s)
            return servers

        def take(ledger, j, servers):
            for i, s in enumerate(servers):
                d = j.instances[i]
                if not fits(d, ledger[s]):
                    for k in range(i):
                        ledger[servers[k]] = add(ledger[servers[k]], j.instances[k])
                    return False
                ledger[s] = sub(ledger[s], d)
            return True

        def total(ledger):
            t = [0.0, 0.0, 0.0]
            for f in ledger:
                t = add(t, f)
            return t

        # 1. Choose on the empty cluster.
        ledger = empty()
        tot = total(ledger)
        failed = set()
        chosen = set()
        for j in self.runnable:
            if not fits(j.total, tot) or j.shape in failed:
                continue
            if first_fit(ledger, j) is not None:
                tot = sub(tot, j.total)
                chosen.add(j.index)
            else:
                failed.add(j.shape)
        # 2. Place the chosen ones on the real cluster.
        out, stops = [], []
        ledger = empty()
        now_running = {i for i in running}
        for j in self.runnable:
            if j.index in chosen and j.index in now_running:
                take(ledger, j, j.servers)
        for j in self.runnable:
            if j.index in chosen and j.index not in now_running:
                servers = first_fit(ledger, j)
                if servers is not None:
                    out.append(start(j, servers))
                    now_running.add(j.index)
        # 3. The others keep running, start, or are preempted.
        tot = total(ledger)
        failed = set()
        for j in self.runnable:
            if j.index in chosen:
                continue
            if j.index in now_running:
                if take(ledger, j, j.servers):
                    tot = sub(tot, j.total)
                else:
                    stops.append(preempt(j))
                    now_running.discard(j.index)
            elif fits(j.total, tot) and j.shape not in failed:
                servers = first_fit(ledger, j)
                if servers is not None:
                    tot = sub(tot, j.total)
                    out.append(start(j, servers))
                    now_running.add(j.index)
                else:
                    failed.add(j.shape)
        if self.key == "las" and now_running:
            state.wake = now + self.quantum
        return stops + out


if __name__ == "__main__":
    key = sys.argv[1] if len(sys.argv) > 1 else "gpus"
    if key not in ("gpus", "las"):
        sys.exit("key must be gpus or las, not %r" % key)
    quantum = float(sys.argv[2]) if len(sys.argv) > 2 else 600.0
    sys.exit(run(Preemptive(key, quantum)))
