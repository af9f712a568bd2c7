"""Random placement: oldest job first, each instance on a server drawn
uniformly among those it fits, from a generator seeded by the run's seed
(the hello's): reruns are identical, other seeds differ. The baseline a
learned placement must beat."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from schedlab import Policy, fits, run, start  # noqa: E402


class RandomPlacement(Policy):
    name = "random-placement-py"

    def begin(self, state):
        self.rng = random.Random(state.seed)

    def schedule(self, state):
        free, out = state.ledger(), []
        for job in state.pending.values():
            trial, servers = [f[:] for f in free], []
            for d in job.instances:
                ok = [s for s in range(len(trial)) if fits(d, trial[s])]
                if not ok:
                    break
                s = self.rng.choice(ok)
                trial[s] = [trial[s][k] - d[k] for k in range(3)]
                servers.append(s)
            if len(servers) == len(job.instances):
                free, out = trial, out + [start(job, servers)]
        return out


if __name__ == "__main__":
    sys.exit(run(RandomPlacement()))
