"""A tiny learned placement policy: REINFORCE through SchedlabEnv, in pure
Python (numpy is not needed).

The policy scores each server the instance fits with a linear function of
a few features (the GPU and CPU it would leave free, whether the server is
empty, whether the job already has an instance there, the GPU share in
use) and samples a server from the softmax of the scores. It trains on
PAI-like episodes drawn from seeds 1000, 1001, ..., each replayed --batch
times, and is then compared,
on held-out seeds 1..EVAL, with random placement (a server drawn
uniformly among those the instance fits) and first fit, by the mean JCT
schedlab reports.

    python3 examples/reinforce.py --schedlab bin/schedlab --minutes 3

Prints the learning curve and the comparison; --episodes bounds training
instead of --minutes.
"""

import argparse
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab.env import SchedlabEnv  # noqa: E402

FEATURES = 6


def features(env, s):
    """The features of putting the current instance on server s."""
    d = env.cur.instances[env.inst]
    f = env.ledger[s]
    cap = env.state.servers[s].capacity
    return [
        (f[0] - d[0]) / cap[0] if cap[0] else 0.0,  # GPU left free
        (f[1] - d[1]) / cap[1] if cap[1] else 0.0,  # CPU left free
        1.0 if f[0] == cap[0] and f[1] == cap[1] else 0.0,  # an empty server
        1.0 if s in env.booked else 0.0,  # next to the job's other instances
        1.0 - f[0] / cap[0] if cap[0] else 0.0,  # GPU share in use
        1.0,
    ]


def softmax_choice(env, w, rng, greedy=False):
    allowed = [s for s, ok in enumerate(env._info(False)["action_mask"]) if ok]
    if not allowed:
        return 0, None
    phis = [features(env, s) for s in allowed]
    scores = [sum(wi * xi for wi, xi in zip(w, phi)) for phi in phis]
    top = max(scores)
    ps = [math.exp(x - top) for x in scores]
    z = sum(ps)
    ps = [p / z for p in ps]
    if greedy:
        k = max(range(len(allowed)), key=lambda i: ps[i])
    else:
        r, k = rng.random(), 0
        while k < len(ps) - 1 and r > ps[k]:
            r -= ps[k]
            k += 1
    # grad log p(k) = phi_k - sum_i p_i phi_i
    mean = [sum(p * phi[j] for p, phi in zip(ps, phis)) for j in range(FEATURES)]
    grad = [phis[k][j] - mean[j] for j in range(FEATURES)]
    return allowed[k], grad


def episode(env, seed, choose):
    """Run one episode; choose(env) returns (action, grad or None).
    Returns the per-step rewards, the grads and schedlab's metrics."""
    obs, info = env.reset(seed=seed)
    rewards, grads = [], []
    while True:
        a, g = choose(env)
        obs, r, done, _, info = env.step(a)
        rewards.append(r)
        grads.append(g)
        if done:
            return rewards, grads, info["metrics"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--schedlab", default="schedlab")
    ap.add_argument("--cluster", default="small")
    ap.add_argument("--jobs", type=int, default=150)
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--episodes", type=int, default=0)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--eval", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    env = SchedlabEnv(schedlab=args.schedlab, cluster=args.cluster, synthetic=args.jobs)
    rng = random.Random(args.seed)
    w = [0.0] * FEATURES
    t0 = time.time()
    ep = 0
    while True:
        if args.episodes and ep >= args.episodes or not args.episodes and time.time() - t0 > 60 * args.minutes:
            break
        # A batch replays one episode's jobs (one seed) args.batch times: the
        # returns then differ by the actions alone, and each rollout's
        # advantage is its return against the batch's (common random
        # numbers: a baseline that costs nothing).
        seed = 1000 + ep // args.batch
        batch = []
        for _ in range(args.batch):
            rewards, grads, m = episode(env, seed, lambda e: softmax_choice(e, w, rng))
            ep += 1
            batch.append((sum(rewards), [g for g in grads if g is not None], m))
        mean = sum(R for R, _, _ in batch) / len(batch)
        sd = math.sqrt(sum((R - mean) ** 2 for R, _, _ in batch) / len(batch)) or 1.0
        upd = [0.0] * FEATURES
        n = 0
        for R, grads, _ in batch:
            a = (R - mean) / sd
            for gr in grads:
                for j in range(FEATURES):
                    upd[j] += a * gr[j]
            n += len(grads)
        w = [wi + args.lr * u / n * 100 for wi, u in zip(w, upd)]
        jct = sum(m["mean_jct_s"] for _, _, m in batch) / len(batch) / 60
        print("episodes %4d  mean JCT %7.1f min  w = %s" % (ep, jct, " ".join("%+.2f" % x for x in w)), flush=True)

    def mean_jct(choose):
        return sum(episode(env, s, choose)[2]["mean_jct_s"] for s in range(1, args.eval + 1)) / args.eval / 60

    erng = random.Random(12345)
    learned = mean_jct(lambda e: softmax_choice(e, w, erng, greedy=True))
    rand = mean_jct(lambda e: (e.action_space.sample(mask=e._info(False)["action_mask"]), None))
    first = mean_jct(lambda e: (e._info(False)["action_mask"].index(True) if any(e._info(False)["action_mask"]) else 0, None))
    env.close()
    print("held-out seeds 1..%d, %d jobs each, cluster %s, %d training episodes in %.0f s:" % (
        args.eval, args.jobs, args.cluster, ep, time.time() - t0))
    print("  mean JCT  learned %.1f min   random %.1f min   first fit %.1f min" % (learned, rand, first))
    return 0


if __name__ == "__main__":
    sys.exit(main())
