"""A policy that breaks one rule of the protocol, chosen by argv[1], at its
second decision (message 2); until then it places nothing. Modes:
exit, garbage, unknown-job, running-job, no-fit, duplicate, wrong-count,
bad-server, preempt, hang, flood, seq, version, give-up, unknown-key,
stderr-exit, preempt-twice, preempt-restart, bad-wake (these three start a
job at message 2 and break the rule at message 3); wake-on-v1, wake-on-bad,
wake-on-empty break it in the hello's answer."""

import json
import sys
import time

mode = sys.argv[1]
out = sys.stdout


def send(obj):
    out.write(json.dumps(obj) + "\n")
    out.flush()


hello = json.loads(sys.stdin.readline())
answer = {"type": "hello", "protocol": 99 if mode == "version" else 1, "seq": 0}
if mode.startswith("wake-on-"):
    answer["protocol"] = 1 if mode == "wake-on-v1" else 2
    answer["wake_on"] = {"wake-on-v1": ["fit"], "wake-on-bad": ["fit", "sometimes"], "wake-on-empty": []}[mode]
send(answer)
pending = []
while True:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    msg = json.loads(line)
    if msg["type"] == "end":
        sys.exit(0)
    seq = msg["seq"]
    pending += [j for j in msg["arrived"]]
    ninst = lambda j: sum(t["instances"] for t in j["tasks"])
    if seq < 2 or not pending:
        send({"type": "decisions", "seq": seq, "decisions": []})
        continue
    j = pending[0]
    ok = {"op": "start", "job": j["job"], "servers": [0] * ninst(j)}
    if mode == "exit":
        sys.exit(3)
    elif mode == "stderr-exit":
        sys.stderr.write("policy: something went wrong\n")
        sys.stderr.flush()
        sys.exit(4)
    elif mode == "garbage":
        print("debug: deciding now")
        out.flush()
    elif mode == "unknown-job":
        send({"type": "decisions", "seq": seq, "decisions": [{"op": "start", "job": 123456, "servers": [0]}]})
    elif mode == "no-fit":
        send({"type": "decisions", "seq": seq, "decisions": [{"op": "start", "job": j["job"], "servers": [0] * ninst(j)} for j in pending[:50]]})
    elif mode == "duplicate":
        send({"type": "decisions", "seq": seq, "decisions": [ok, ok]})
    elif mode == "wrong-count":
        send({"type": "decisions", "seq": seq, "decisions": [{"op": "start", "job": j["job"], "servers": [0] * (ninst(j) + 1)}]})
    elif mode == "bad-server":
        send({"type": "decisions", "seq": seq, "decisions": [{"op": "start", "job": j["job"], "servers": [99] * ninst(j)}]})
    elif mode == "preempt":
        send({"type": "decisions", "seq": seq, "decisions": [{"op": "preempt", "job": j["job"]}]})
    elif mode == "unknown-key":
        send({"type": "decisions", "seq": seq, "decisions": [dict(ok, server=0)]})
    elif mode == "hang":
        time.sleep(60)
    elif mode == "flood":
        while True:
            out.write("x" * 65536)
    elif mode == "seq":
        send({"type": "decisions", "seq": seq + 1, "decisions": []})
    elif mode == "give-up":
        send({"type": "error", "seq": seq, "message": "no idea what to do"})
    elif mode in ("running-job", "preempt-twice", "preempt-restart", "bad-wake"):
        if seq == 2:
            send({"type": "decisions", "seq": seq, "decisions": [ok]})
            running = j["job"]
            continue
        again = {"op": "start", "job": running, "servers": [0] * ninst(j)}
        stop = {"op": "preempt", "job": running}
        if mode == "running-job":
            send({"type": "decisions", "seq": seq, "decisions": [again]})
        elif mode == "preempt-twice":
            send({"type": "decisions", "seq": seq, "decisions": [stop, stop]})
        elif mode == "preempt-restart":
            send({"type": "decisions", "seq": seq, "decisions": [stop, again]})
        else:
            send({"type": "decisions", "seq": seq, "decisions": [], "wake": -5})
    else:
        sys.exit("unknown mode " + mode)
