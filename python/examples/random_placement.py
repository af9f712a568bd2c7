"""Random placement: oldest job first, each instance on a server drawn
uniformly among those it fits, from a generator seeded by the run's seed
(the hello's): reruns are identical, other seeds differ. The baseline a
learned placement must beat."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from schedlab import Policy, place_in_order, run  # noqa: E402


class RandomPlacement(Policy):
    name = "random-placement-py"

    def begin(self, state):
        self.rng = random.Random(state.seed)

    def schedule(self, state):
        return place_in_order(state, lambda ok, free: self.rng.choice(ok))


if __name__ == "__main__":
    sys.exit(run(RandomPlacement()))
