"""The client's loop and state against scripted schedlab messages
(python3 -m unittest discover -s tests, from python/)."""

import io
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

from schedlab import Policy, ProtocolError, State, preempt, run, start  # noqa: E402
from schedlab.spaces import Box, Discrete  # noqa: E402

import fifo_firstfit  # noqa: E402
import srtf  # noqa: E402

CLUSTER = {"name": "t", "servers": [
    {"gpu": 8, "cpu": 96, "mem_gib": 512, "kind": "pai-v100", "pod": 0, "sockets": [{"gpu": 4, "cpu": 48}, {"gpu": 4, "cpu": 48}]},
    {"gpu": 8, "cpu": 96, "mem_gib": 512, "kind": "pai-v100", "pod": 0, "sockets": [{"gpu": 4, "cpu": 48}, {"gpu": 4, "cpu": 48}]}]}


def job(i, submit, gpu, inst=1, user="u"):
    return {"job": i, "id": "j%d" % i, "submit": submit, "user": user,
            "tasks": [{"role": "worker", "instances": inst, "gpu": gpu, "cpu": 6, "mem_gib": 10}]}


def hello(**kw):
    h = {"type": "hello", "protocol": 1, "seq": 0, "policy": "p", "seed": 7, "oracle": False, "preempt": False}
    h.update(kw)
    return h


def converse(policy, messages):
    """Run policy on messages; return its answers."""
    inp = io.BytesIO(("".join(json.dumps(m) + "\n" for m in messages)).encode())
    out = io.BytesIO()
    rc = run(policy, inp, out)
    return rc, [json.loads(line) for line in out.getvalue().splitlines()]


class TestLoop(unittest.TestCase):
    def test_fifo_firstfit(self):
        rc, answers = converse(fifo_firstfit.FIFOFirstFit(), [
            hello(),
            {"type": "decide", "seq": 1, "now": 0, "cluster": CLUSTER,
             "arrived": [job(0, 0, 6), job(1, 0, 4), job(2, 0, 2, inst=2)], "finished": [],
             "free": [[0, 8, 96, 512], [1, 8, 96, 512]]},
            {"type": "end", "seq": 2},
        ])
        self.assertEqual(rc, 0)
        self.assertEqual(answers[0], {"type": "hello", "protocol": 1, "seq": 0, "name": "fifo-firstfit-py"})
        # 6 GPUs on server 0; 4 do not fit there, so server 1; the 2 x 2 job
        # takes what is left on 0 and then 1.
        self.assertEqual(answers[1], {"type": "decisions", "seq": 1, "decisions": [
            start(0, [0]), start(1, [1]), start(2, [0, 1])]})

    def test_freeze(self):
        # run() freezes what is alive after the hello (gc.freeze), unless
        # told not to; the frozen objects stay frozen until unfrozen.
        import gc
        msgs = [hello(), {"type": "end", "seq": 1}]
        gc.unfreeze()
        try:
            converse(fifo_firstfit.FIFOFirstFit(), msgs)
            self.assertGreater(gc.get_freeze_count(), 0)
            gc.unfreeze()
            inp = io.BytesIO(("".join(json.dumps(m) + "\n" for m in msgs)).encode())
            run(fifo_firstfit.FIFOFirstFit(), inp, io.BytesIO(), freeze=False)
            self.assertEqual(gc.get_freeze_count(), 0)
        finally:
            gc.unfreeze()

    def test_early_collection(self):
        # run() collects young cycles after its answers (early=True) as the
        # collector would: the policy's cycles are freed, older generations
        # are still collected, the answers are those of early=False, and
        # nothing is collected while the collector is disabled.
        import gc
        import weakref

        class Node:
            pass

        class Cycles(Policy):
            def __init__(self):
                self.refs = []

            def schedule(self, state):
                n = Node()
                n.self = n
                self.refs.append(weakref.ref(n))
                return [start(j, [0]) for j in state.arrived]

        msgs = [hello(), {"type": "decide", "seq": 1, "now": 0, "cluster": CLUSTER,
                          "arrived": [], "finished": [], "free": [[0, 8, 96, 512], [1, 8, 96, 512]]}]
        for i in range(2, 3000):
            msgs.append({"type": "decide", "seq": i, "now": i, "arrived": [job(i, i, 1)],
                         "finished": [{"job": i - 1, "finish": i}] if i > 2 else [], "free": []})
        msgs.append({"type": "end", "seq": 3000})
        data = ("".join(json.dumps(m) + "\n" for m in msgs)).encode()

        def serve(early):
            p, out = Cycles(), io.BytesIO()
            run(p, io.BytesIO(data), out, freeze=False, early=early)
            return out.getvalue(), sum(r() is not None for r in p.refs)

        gc.collect()
        older = gc.get_stats()[1]["collections"]
        answers, alive = serve(True)
        self.assertLess(alive, 1000)
        self.assertGreater(gc.get_stats()[1]["collections"], older)
        self.assertEqual(serve(False)[0], answers)
        gc.disable()
        try:
            self.assertEqual(serve(True)[1], len(msgs) - 2)  # every decide
        finally:
            gc.enable()

    def test_state_deltas(self):
        class Recorder(Policy):
            def schedule(self, state):
                self.seen = (state.now, sorted(state.pending), sorted(state.running), [j.index for j in state.finished],
                             [f[:] for f in state.free])
                return [start(j, [0]) for j in state.arrived if j.index == 0]

        p = Recorder()
        converse(p, [
            hello(),
            {"type": "decide", "seq": 1, "now": 0, "cluster": CLUSTER, "arrived": [job(0, 0, 1), job(1, 0, 1)],
             "finished": [], "free": [[0, 8, 96, 512], [1, 8, 96, 512]]},
            {"type": "decide", "seq": 2, "now": 50, "arrived": [], "finished": [{"job": 0, "finish": 40}],
             "free": [[0, 7.5, 90, 500]]},
        ])
        self.assertEqual(p.seen, (50, [1], [], [0], [[7.5, 90, 500], [8, 96, 512]]))

    def test_version_mismatch(self):
        for v in (0, None, "2"):
            with self.assertRaises(ProtocolError):
                converse(fifo_firstfit.FIFOFirstFit(), [hello(protocol=v)])

    def test_version_negotiation(self):
        # The newest version both speak; wake_on only from version 2.
        for theirs, want in ((1, {"type": "hello", "protocol": 1, "seq": 0, "name": "fifo-firstfit-py"}),
                             (2, {"type": "hello", "protocol": 2, "seq": 0, "name": "fifo-firstfit-py", "wake_on": ["fit"]}),
                             (3, {"type": "hello", "protocol": 3, "seq": 0, "name": "fifo-firstfit-py", "wake_on": ["fit"]}),
                             (4, {"type": "hello", "protocol": 3, "seq": 0, "name": "fifo-firstfit-py", "wake_on": ["fit"]})):
            rc, answers = converse(fifo_firstfit.FIFOFirstFit(), [hello(protocol=theirs)])
            self.assertEqual((rc, answers[0]), (0, want))

    def test_compact_form(self):
        # Protocol 3 writes arrivals and finishes as arrays and leaves out
        # empty lists: the state and the answers are version 2's.
        def v3(m):
            m = dict(m)
            if "arrived" in m:
                m["arrived"] = [[a["job"], a["id"], a["submit"],
                                 [[t["role"], t["instances"], t["gpu"], t["cpu"], t["mem_gib"]] for t in a["tasks"]],
                                 a.get("user", ""), a.get("model", "")] + ([a["duration"]] if "duration" in a else [])
                                for a in m["arrived"]]
            if "finished" in m:
                m["finished"] = [[f["job"], f["finish"]] for f in m["finished"]]
            return {k: x for k, x in m.items() if x != []}

        two = job(2, 0, 2, inst=2)
        two["tasks"].append({"role": "ps", "instances": 1, "gpu": 0, "cpu": 4, "mem_gib": 2})
        two["duration"] = 30.5
        messages = [
            {"type": "decide", "seq": 1, "now": 0, "cluster": CLUSTER,
             "arrived": [job(0, 0, 6), job(1, 0, 4, inst=3), two], "finished": [],
             "free": [[0, 8, 96, 512], [1, 8, 96, 512]]},
            {"type": "decide", "seq": 2, "now": 50, "arrived": [], "finished": [{"job": 0, "finish": 40}],
             "free": [[0, 8, 96, 512]]},
            {"type": "decide", "seq": 3, "now": 60, "arrived": [job(3, 60, 1)], "finished": [], "free": []},
            {"type": "end", "seq": 4, "now": 90, "finished": [{"job": 3, "finish": 90}]},
        ]
        seen = []
        for form in (lambda m: m, v3):
            st = State()
            jobs = []
            for m in messages:
                st.update(form(m))
                jobs += [(j.index, j.id, j.submit, j.user, j.model, j.tasks, j.instances, j.total, j.shape, j.duration)
                         for j in st.arrived]
                st.apply([start(j, [0] * len(j.instances)) for j in st.arrived])
                jobs.append((st.now, [j.index for j in st.finished], [f[:] for f in st.free], st.done))
            seen.append(jobs)
        self.assertEqual(seen[0], seen[1])
        self.assertEqual(seen[1][1][5], [{"role": "worker", "instances": 3, "gpu": 4, "cpu": 6, "mem_gib": 10}])
        answers = [converse(fifo_firstfit.FIFOFirstFit(), [hello(protocol=v)] + [form(m) for m in messages])
                   for v, form in ((2, lambda m: m), (3, v3))]
        self.assertEqual(answers[0][1][1:], answers[1][1][1:])
        self.assertEqual(answers[1][1][0]["protocol"], 3)

    def test_exception_is_an_error_answer(self):
        class Broken(Policy):
            def schedule(self, state):
                raise ValueError("boom")

        rc, answers = converse(Broken(), [hello(), {"type": "decide", "seq": 1, "now": 0, "cluster": CLUSTER,
                                                    "arrived": [], "finished": [], "free": []}])
        self.assertEqual(rc, 1)
        self.assertEqual(answers[1]["type"], "error")
        self.assertIn("ValueError: boom", answers[1]["message"])

    def test_job_sees_no_duration(self):
        st = State()
        st.update({"seq": 1, "now": 0, "cluster": CLUSTER, "arrived": [job(0, 0, 1)], "finished": [], "free": []})
        self.assertIsNone(st.pending[0].duration)
        self.assertEqual(st.pending[0].total, (1, 6.0, 10.0))


class TestSRTF(unittest.TestCase):
    def test_orders_by_observed_history(self):
        p = srtf.SRTF()
        st = State()
        st.update({"seq": 1, "now": 0, "cluster": CLUSTER, "arrived": [job(0, 0, 8, user="slow"), job(1, 0, 8, user="fast")],
                   "finished": [], "free": []})
        first = p.schedule(st)
        st.apply(first)
        self.assertEqual([d["job"] for d in first], [0, 1])  # no history: submission order
        st.update({"seq": 2, "now": 100, "arrived": [job(2, 50, 8, user="slow"), job(3, 60, 8, user="fast")],
                   "finished": [{"job": 1, "finish": 10}, {"job": 0, "finish": 100}], "free": []})
        # slow ran 100 s, fast 10 s: fast's next job goes first.
        self.assertEqual([d["job"] for d in p.schedule(st)], [3, 2])

    def test_oracle_uses_duration(self):
        p = srtf.SRTF()
        st = State(oracle=True)
        a, b = job(0, 0, 8), job(1, 0, 8)
        a["duration"], b["duration"] = 500.0, 5.0
        st.update({"seq": 1, "now": 0, "cluster": CLUSTER, "arrived": [a, b], "finished": [], "free": []})
        self.assertEqual([d["job"] for d in p.schedule(st)], [1, 0])


class TestSpaces(unittest.TestCase):
    def test_discrete(self):
        d = Discrete(4)
        d.seed(3)
        self.assertTrue(all(d.contains(d.sample()) for _ in range(20)))
        self.assertEqual(d.sample(mask=[False, False, True, False]), 2)

    def test_box(self):
        b = Box(0.0, 1.0, shape=(3,))
        self.assertTrue(b.contains(b.sample()))
        self.assertFalse(b.contains([2.0, 0, 0]))


if __name__ == "__main__":
    unittest.main()


class TestPreempt(unittest.TestCase):
    def test_preempt_and_wake(self):
        """A policy that starts job 0, then preempts it for job 1 and asks
        to be woken: the answers carry both, preemptions first, and the
        state keeps job 0's attained service over its stint."""

        class Swap(Policy):
            name = "swap"

            def schedule(self, state):
                self.seen = getattr(self, "seen", [])
                if state.seq == 1:
                    return [start(0, [0])]
                j0 = state.jobs[0]
                self.seen.append((j0.elapsed(state.now), sorted(state.running)))
                state.wake = state.now + 100
                return [start(1, [0]), preempt(0)] if 0 in state.running else []

        p = Swap()
        rc, answers = converse(p, [
            hello(preempt=True),
            {"type": "decide", "seq": 1, "now": 0, "cluster": CLUSTER, "arrived": [job(0, 0, 8)], "finished": [],
             "free": [[0, 8, 96, 512], [1, 8, 96, 512]]},
            {"type": "decide", "seq": 2, "now": 30, "arrived": [job(1, 30, 8)], "finished": [], "free": [[0, 0, 90, 502]]},
            {"type": "decide", "seq": 3, "now": 50, "arrived": [], "finished": [], "free": []},
            {"type": "end", "seq": 4},
        ])
        self.assertEqual(rc, 0)
        self.assertEqual(answers[2], {"type": "decisions", "seq": 2, "wake": 130.0,
                                      "decisions": [{"op": "start", "job": 1, "servers": [0]}, {"op": "preempt", "job": 0}]})
        # At message 3 job 0 waits with its 30 s of service; job 1 runs.
        self.assertEqual(p.seen, [(30.0, [0]), (30.0, [1])])
        self.assertEqual(answers[3]["decisions"], [])
