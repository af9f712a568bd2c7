"""SchedlabEnv against a real `schedlab policy-env`: set SCHEDLAB_BIN to
the binary (make build: bin/schedlab); skipped without one. go test
./cmd/schedlab runs it with its test binary as schedlab
(TestPolicyEnvPython)."""

import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from schedlab.env import SchedlabEnv  # noqa: E402

BIN = os.environ.get("SCHEDLAB_BIN", "")


@unittest.skipUnless(BIN and os.path.exists(BIN), "SCHEDLAB_BIN is not set to a schedlab binary")
class TestEnv(unittest.TestCase):
    def run_episode(self, env, seed, rng):
        obs, info = env.reset(seed=seed)
        self.assertTrue(env.observation_space.contains(obs))
        total, steps = 0.0, 0
        while True:
            mask = info["action_mask"]
            # No server may fit a job's later instance: any action then
            # leaves the job pending.
            a = rng.choice([i for i, ok in enumerate(mask) if ok] or [0])
            obs, r, done, truncated, info = env.step(a)
            total += r
            steps += 1
            self.assertFalse(truncated)
            if done:
                return total, info["metrics"], steps

    def test_return_is_minus_total_jct(self):
        env = SchedlabEnv(schedlab=BIN, synthetic=40)
        try:
            self.assertEqual(env.action_space.n, 8)
            ret, m, steps = self.run_episode(env, 3, random.Random(1))
            self.assertGreater(steps, 0)
            self.assertAlmostEqual(-ret, m["mean_jct_s"] * m["jobs"] / 3600, places=6)
            # The same seed and actions give the same episode.
            ret2, m2, _ = self.run_episode(env, 3, random.Random(1))
            self.assertEqual((ret, m), (ret2, m2))
        finally:
            env.close()


if __name__ == "__main__":
    unittest.main()
