"""SRTF-like, on what the cluster has observed: pending jobs go shortest
predicted run time first, each instance on the lowest-index server it
fits. A job's run time is predicted from history, never from the trace:
the mean observed run time (finish - start) of the finished jobs of the
same user and shape, else of the same shape, else of all jobs (1 hour
before any has finished); ties by submission. An oracle row (oracle: true)
is sent true durations and uses them instead: the same rule with perfect
foresight, named so in tables.

The engine runs jobs to completion in this protocol version, so it is
shortest-job-first on predictions; once the engine preempts, the same
predictions minus each running job's elapsed time give the remaining time.

    python3 examples/srtf.py     (schedlab starts it)
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab import EPS, Policy, run, start  # noqa: E402


class Mean:
    __slots__ = ("n", "sum")

    def __init__(self):
        self.n, self.sum = 0, 0.0

    def add(self, x):
        self.n += 1
        self.sum += x

    def get(self):
        return self.sum / self.n if self.n else None


class SRTF(Policy):
    name = "srtf-observed-py"

    def __init__(self):
        self.by_user_shape = {}
        self.by_shape = {}
        self.all = Mean()

    def predict(self, job):
        if job.duration is not None:  # an oracle row
            return job.duration
        for table, key in ((self.by_user_shape, (job.user, job.shape)), (self.by_shape, job.shape)):
            m = table.get(key)
            if m is not None:
                return m.get()
        return self.all.get() or 3600.0

    def schedule(self, state):
        for j in state.finished:
            ran = j.finish - j.start
            self.by_user_shape.setdefault((j.user, j.shape), Mean()).add(ran)
            self.by_shape.setdefault(j.shape, Mean()).add(ran)
            self.all.add(ran)
        ledger = state.ledger()
        out = []
        order = sorted(state.pending.values(), key=lambda j: (self.predict(j), j.submit, j.index))
        for job in order:
            servers = []
            for g, c, m in job.instances:
                for s, f in enumerate(ledger):
                    if g <= f[0] + EPS and c <= f[1] + EPS and m <= f[2] + EPS:
                        f[0], f[1], f[2] = f[0] - g, f[1] - c, f[2] - m
                        servers.append(s)
                        break
                else:
                    break
            if len(servers) == len(job.instances):
                out.append(start(job, servers))
            else:
                for k, s in enumerate(servers):
                    f, d = ledger[s], job.instances[k]
                    f[0], f[1], f[2] = f[0] + d[0], f[1] + d[1], f[2] + d[2]
        return out


if __name__ == "__main__":
    sys.exit(run(SRTF()))
