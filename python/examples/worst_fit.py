"""Twenty lines of policy: oldest job first, each instance on the server
with the most free GPUs (ties: the lowest index)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from schedlab import Policy, fits, run, start  # noqa: E402


class WorstFit(Policy):
    def schedule(self, state):
        free, out = state.ledger(), []
        for job in state.pending.values():  # submission order
            trial, servers = [f[:] for f in free], []
            for d in job.instances:
                ok = [s for s in range(len(trial)) if fits(d, trial[s])]
                if not ok:
                    break
                s = max(ok, key=lambda s: (trial[s][0], -s))
                trial[s] = [trial[s][k] - d[k] for k in range(3)]
                servers.append(s)
            if len(servers) == len(job.instances):
                free, out = trial, out + [start(job, servers)]
        return out


if __name__ == "__main__":
    sys.exit(run(WorstFit()))
