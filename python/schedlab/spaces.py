"""Observation and action spaces as Gymnasium defines them: gymnasium's own
classes when it is installed, otherwise two small stand-ins with the same
attributes and methods (n, start, shape, low, high, dtype, sample,
contains, seed)."""

import random

try:  # pragma: no cover - depends on the machine
    from gymnasium.spaces import Box, Discrete  # noqa: F401

    HAVE_GYMNASIUM = True
except ImportError:
    HAVE_GYMNASIUM = False

    class Discrete:
        """The integers start .. start+n-1."""

        def __init__(self, n, seed=None, start=0):
            self.n = int(n)
            self.start = int(start)
            self.shape = ()
            self.dtype = "int64"
            self._rng = random.Random(seed)

        def seed(self, seed=None):
            self._rng = random.Random(seed)
            return [seed]

        def sample(self, mask=None):
            if mask is None:
                return self.start + self._rng.randrange(self.n)
            allowed = [i for i, ok in enumerate(mask) if ok]
            if not allowed:
                return self.start
            return self.start + self._rng.choice(allowed)

        def contains(self, x):
            return isinstance(x, int) and self.start <= x < self.start + self.n

        def __contains__(self, x):
            return self.contains(x)

        def __repr__(self):
            return "Discrete(%d)" % self.n

    class Box:
        """Vectors of shape (n,) between low and high."""

        def __init__(self, low, high, shape, dtype="float32", seed=None):
            self.shape = tuple(shape)
            self.low, self.high = low, high
            self.dtype = dtype
            self._rng = random.Random(seed)

        def seed(self, seed=None):
            self._rng = random.Random(seed)
            return [seed]

        def sample(self):
            return [self._rng.uniform(self.low, self.high) for _ in range(self.shape[0])]

        def contains(self, x):
            return len(x) == self.shape[0] and all(self.low <= v <= self.high for v in x)

        def __contains__(self, x):
            return self.contains(x)

        def __repr__(self):
            return "Box(%s, %s, %s)" % (self.low, self.high, self.shape)
