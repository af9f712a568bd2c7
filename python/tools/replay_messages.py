"""Feed a policy a captured stream of schedlab's messages from memory, to
time the policy's side of the protocol without the pipes, the simulator
or the other process's turn.

    python3 tools/replay_messages.py CAPTURE [--policy FILE:CLASS] [--repeat N] [--answers OUT]
    python3 tools/replay_messages.py CAPTURE --canned ANSWERS [--repeat N]

CAPTURE holds the lines schedlab wrote to a policy, hello first: the
external package's TestPAISubsetMatchesBuiltin writes its two runs'
streams to $SL_CAPTURE.model and $SL_CAPTURE.standalone when SL_CAPTURE
is set. It prints the best of N runs' processor time, in all and per
message; --answers writes the last run's answers, so that two versions
of a policy can be compared byte for byte. --canned answers each message
with the decisions of an --answers file instead of a policy's (decoded
before the clock starts): what is left is the client's own cost, its
decoding, state and encoding, and the difference to the policy's run is
the policy's.
"""

import argparse
import importlib.util
import io
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from schedlab import Policy, run  # noqa: E402


def load_policy(spec):
    path, _, cls = spec.rpartition(":")
    mod_spec = importlib.util.spec_from_file_location("policy_under_test", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    return getattr(mod, cls)


def canned(path):
    """A policy class that gives, at each message, the decisions the
    answers file at path gave (its first line is the hello's answer)."""
    with open(path, "rb") as f:
        lines = f.read().splitlines()
    hello = json.loads(lines[0])
    answers = [json.loads(line)["decisions"] for line in lines[1:]]

    class Canned(Policy):
        name = hello["name"]
        wake_on = tuple(hello.get("wake_on", ()))

        def begin(self, state):
            self.next = iter(answers)

        def schedule(self, state):
            return next(self.next)

    return Canned


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("capture")
    ap.add_argument("--policy", default=os.path.join(HERE, "..", "examples", "fifo_firstfit.py") + ":FIFOFirstFit")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--answers")
    ap.add_argument("--canned", metavar="ANSWERS")
    args = ap.parse_args()
    policy = canned(args.canned) if args.canned else load_policy(args.policy)
    with open(args.capture, "rb") as f:
        data = f.read()
    messages = data.count(b"\n")
    best, answers = None, b""
    for _ in range(args.repeat):
        out = io.BytesIO()
        t = time.process_time()
        run(policy(), io.BytesIO(data), out)
        t = time.process_time() - t
        best = t if best is None else min(best, t)
        answers = out.getvalue()
    if args.answers:
        with open(args.answers, "wb") as f:
            f.write(answers)
    print("%s: %d messages, best of %d: %.3f s of processor time, %.1f µs a message"
          % (args.capture, messages, args.repeat, best, best / messages * 1e6))


if __name__ == "__main__":
    main()
