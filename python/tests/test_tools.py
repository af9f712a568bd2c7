"""tools/replay_messages.py: a canned replay gives the policy's answers
back byte for byte (python3 -m unittest discover -s tests, from python/)."""

import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))

from schedlab import run  # noqa: E402

import fifo_firstfit  # noqa: E402
import replay_messages  # noqa: E402

SERVER = {"gpu": 8, "cpu": 96, "mem_gib": 512, "kind": "pai-v100", "pod": 0,
          "sockets": [{"gpu": 4, "cpu": 48}, {"gpu": 4, "cpu": 48}]}
CLUSTER = {"name": "t", "servers": [SERVER, SERVER]}


def job(i, submit, gpu, inst=1):
    return {"job": i, "id": "j%d" % i, "submit": submit, "user": "u",
            "tasks": [{"role": "worker", "instances": inst, "gpu": gpu, "cpu": 6, "mem_gib": 10}]}


class TestCanned(unittest.TestCase):
    def test_canned_gives_the_answers_back(self):
        messages = [
            {"type": "hello", "protocol": 2, "seq": 0, "policy": "p", "seed": 7, "oracle": False, "preempt": False},
            {"type": "decide", "seq": 1, "now": 0, "cluster": CLUSTER,
             "arrived": [job(0, 0, 8), job(1, 0, 4, inst=2), job(2, 0, 8)], "finished": [], "free": []},
            {"type": "decide", "seq": 2, "now": 5, "arrived": [job(3, 5, 1)],
             "finished": [{"job": 0, "finish": 5}], "free": [[0, 8, 96, 512]]},
            {"type": "end", "seq": 3, "now": 9},
        ]
        stream = "".join(json.dumps(m) + "\n" for m in messages).encode()
        out = io.BytesIO()
        self.assertEqual(run(fifo_firstfit.FIFOFirstFit(), io.BytesIO(stream), out), 0)
        answers = out.getvalue()
        self.assertIn(b'"start"', answers)
        with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
            f.write(answers)
            f.flush()
            policy = replay_messages.canned(f.name)
        again = io.BytesIO()
        self.assertEqual(run(policy(), io.BytesIO(stream), again), 0)
        self.assertEqual(again.getvalue(), answers)


if __name__ == "__main__":
    unittest.main()
