"""Ten lines of policy: oldest job first, each instance on the server
with the most free GPUs (ties: the lowest index)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from schedlab import Policy, place_in_order, run  # noqa: E402


class WorstFit(Policy):
    def schedule(self, state):
        return place_in_order(state, lambda ok, free: max(ok, key=lambda s: (free[s][0], -s)))


if __name__ == "__main__":
    sys.exit(run(WorstFit()))
