"""SchedlabEnv: schedlab's simulator as a Gymnasium-style environment.

Each episode starts `schedlab policy-env` (docs/policy-protocol.md), which
simulates one run and speaks the protocol's simulator side; the environment
is the policy side. The agent places one instance at a time: at a decision
point the pending jobs that could fit come in submission order, and for
each of their instances the action is the server to put it on. An action
the mask forbids (the instance does not fit there) leaves the whole job
pending for this decision point. When no job is left to place, the
decisions go to schedlab and the episode moves on to the next decision
point.

    obs, info = env.reset(seed=3)
    while True:
        a = policy(obs, info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(a)
        if terminated: break

Observation: a flat list of floats, per server its free GPU, CPU and memory
as fractions of its capacity (after this decision point's placements so
far), then the instance to place (GPU, CPU, memory as fractions of the
largest server, the share of its job's instances still to place, the job's
instance count over 64) and the queue (pending jobs over 100). info holds
"action_mask" (servers the instance fits), "job" and "instance", and at the
end "metrics" (schedlab's). The reward is minus the job-hours spent in the
system since the previous step (waiting or running), so that an episode's
return is minus the sum of its jobs' completion times, in hours.

Works with or without gymnasium installed (see schedlab.spaces).
"""

import json
import subprocess

from .protocol import EPS, ProtocolError, State, answer_version, fits, start
from .spaces import HAVE_GYMNASIUM, Box, Discrete

if HAVE_GYMNASIUM:  # pragma: no cover
    import gymnasium

    _Base = gymnasium.Env
else:
    _Base = object


class SchedlabEnv(_Base):
    metadata = {"render_modes": []}

    def __init__(self, schedlab="schedlab", cluster="small", synthetic=200, trace=None, max_jobs=0,
                 speed="model", oracle=False, extra_args=()):
        self.args = [schedlab, "policy-env", "--cluster", cluster, "--speed", speed]
        if trace:
            self.args += ["--trace", trace]
        else:
            self.args += ["--synthetic", str(synthetic)]
        if max_jobs:
            self.args += ["--max-jobs", str(max_jobs)]
        if oracle:
            self.args += ["--oracle"]
        self.args += list(extra_args)
        self.proc = None
        self.next_seed = 1
        # The cluster's size fixes the spaces: learn it from a probe episode.
        self._start(seed=1)
        n = len(self.state.servers)
        self._stop()
        self.n_servers = n
        self.action_space = Discrete(n)
        self.observation_space = Box(0.0, 1.0, shape=(3 * n + 6,))

    # --- the protocol's simulator side, at the other end of the pipes ---

    def _start(self, seed):
        self._stop()
        self.proc = subprocess.Popen(self.args + ["--seed", str(seed)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        hello = self._read()
        if hello.get("type") != "hello":
            raise ProtocolError("schedlab said %r" % hello)
        # No wake_on: a learner is asked at every decision point.
        self._write({"type": "hello", "protocol": answer_version(hello), "seq": 0, "name": "SchedlabEnv"})
        self.state = State(seed=hello.get("seed", 0), oracle=hello.get("oracle", False))
        self.t = 0.0
        self.msg = self._read()
        self.state.update(self.msg)

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read().decode(errors="replace")
            self.proc.wait()
            raise ProtocolError("schedlab policy-env ended (%s): %s" % (self.proc.returncode, err.strip()))
        return json.loads(line)

    def _write(self, obj):
        self.proc.stdin.write((json.dumps(obj, separators=(",", ":")) + "\n").encode())
        self.proc.stdin.flush()

    def _stop(self):
        if self.proc is not None:
            for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                f.close()
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def close(self):
        self._stop()

    # --- Gymnasium's interface ---

    def reset(self, seed=None, options=None):
        if seed is None:
            seed = self.next_seed
        self.next_seed = seed + 1
        self._start(seed)
        self.episode_seed = seed
        reward, done = self._advance(first=True)
        self.pending_reward = reward
        return self._obs(), self._info(done)

    def step(self, action):
        job, i = self.cur, self.inst
        d = job.instances[i]
        if 0 <= action < self.n_servers and fits(d, self.ledger[action]):
            f = self.ledger[action]
            f[0], f[1], f[2] = f[0] - d[0], f[1] - d[1], f[2] - d[2]
            self.booked.append(action)
            self.inst += 1
            if self.inst == len(job.instances):
                self.decisions.append(start(job, self.booked))
                self._next_job()
        else:
            for k, s in enumerate(self.booked):  # the job stays pending
                f, dk = self.ledger[s], job.instances[k]
                f[0], f[1], f[2] = f[0] + dk[0], f[1] + dk[1], f[2] + dk[2]
            self._next_job()
        reward, done = 0.0, False
        if self.cur is None:
            reward, done = self._advance()
        reward += self.pending_reward
        self.pending_reward = 0.0
        return self._obs(), reward, done, False, self._info(done)

    # --- the episode's mechanics ---

    def _advance(self, first=False):
        """Send the decisions (unless first), read decision points until one
        has a job to place or the run ends; returns (reward, ended)."""
        reward = 0.0
        while True:
            if not first:
                self._write({"type": "decisions", "seq": self.msg["seq"], "decisions": self.decisions})
                self.state.apply(self.decisions)
                self.msg = self._read()
                reward += self._update(self.msg)
                if self.msg["type"] == "end":
                    self.cur = None
                    return reward, True
            else:
                reward += self._time_in_system(self.msg, before=0)
            first = False
            self.decisions = []
            self.ledger = self.state.ledger()
            self.queue = list(self.state.pending.values())
            self.qpos = -1
            self._next_job()
            if self.cur is not None:
                return reward, False

    def _update(self, msg):
        before = len(self.state.pending) + len(self.state.running)
        self.state.update(msg)
        return self._time_in_system(msg, before)

    def _time_in_system(self, msg, before):
        """Minus the job-hours spent in the system between the previous
        message and msg (which the state has applied: its finished and
        arrived jobs are msg's, whichever protocol version wrote it)."""
        now = msg.get("now", self.t)
        t0 = self.t
        fin = self.state.finished
        total = (before - len(fin)) * (now - t0)
        total += sum(j.finish - t0 for j in fin)
        total += sum(now - j.submit for j in self.state.arrived)
        self.t = now
        return -total / 3600.0

    def _next_job(self):
        """Move to the next pending job whose instances could fit."""
        self.cur = None
        while self.qpos + 1 < len(self.queue):
            self.qpos += 1
            j = self.queue[self.qpos]
            if self._could_fit(j):
                self.cur, self.inst, self.booked = j, 0, []
                return

    def _could_fit(self, job):
        tg = tc = tm = 0.0
        for g, c, m in self.ledger:
            tg, tc, tm = tg + g, tc + c, tm + m
        if not fits(job.total, (tg, tc, tm)):
            return False
        return all(any(fits(d, f) for f in self.ledger) for d in set(job.instances))

    def _obs(self):
        obs = []
        caps = [s.capacity for s in self.state.servers]
        for f, cap in zip(self.ledger, caps):
            obs += [f[k] / cap[k] if cap[k] > 0 else 0.0 for k in range(3)]
        big = [max(c[k] for c in caps) or 1.0 for k in range(3)]
        if self.cur is None:
            obs += [0.0] * 5
        else:
            d = self.cur.instances[self.inst]
            n = len(self.cur.instances)
            obs += [d[0] / big[0], d[1] / big[1], d[2] / big[2], (n - self.inst) / n, min(n / 64.0, 1.0)]
        obs.append(min(len(self.state.pending) / 100.0, 1.0))
        return obs

    def _info(self, done):
        if done:
            return {"action_mask": [False] * self.n_servers, "metrics": self.msg.get("metrics", {}),
                    "seed": self.episode_seed}
        d = self.cur.instances[self.inst]
        return {"action_mask": [d[0] <= f[0] + EPS and d[1] <= f[1] + EPS and d[2] <= f[2] + EPS for f in self.ledger],
                "job": self.cur, "instance": self.inst, "seed": self.episode_seed}
