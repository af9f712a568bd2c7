#!/usr/bin/python3
"""SciPy side of the side-by-side check of schedlab's interference fits.

Reads DIR/obs.csv (uc,cj,up,pj,s) and DIR/starts.json written by
`fitbench gen` (fitting/internal/fitbench), fits the five Table III models
with scipy.optimize.curve_fit (MINPACK Levenberg-Marquardt, method='lm',
analytic Jacobians, the same starting points, tolerances 1e-12) and prints
JSON: params and fit seconds (around curve_fit only, as fitbench times
the Go fit only; median of FITBENCH_REPS repetitions, default 5), wall
clock and process CPU time (the figure to compare on a loaded machine).
With --compare GO.json it adds the largest relative parameter difference
and the relative difference of the sums of squares per model, and the
Go/SciPy fit-time ratios (wall and CPU).

    /usr/bin/python3 fitting/testdata/scipy_fit.py DIR [--compare go.json]
"""
import json
import os
import sys
import time

import numpy as np
from scipy.optimize import curve_fit


def load(d):
    a = np.loadtxt(d + "/obs.csv", delimiter=",", skiprows=1)
    with open(d + "/starts.json") as f:
        return a[:, :4].T.copy(), a[:, 4].copy(), json.load(f)


def ours(X, a1, a2, a3, b1, b2, lam):
    uc, cj, up, pj = X
    return a1 * np.exp(a2 * uc + a3 * cj) + b1 * up + b2 * pj + lam


def ours_jac(X, a1, a2, a3, b1, b2, lam):
    uc, cj, up, pj = X
    e = np.exp(a2 * uc + a3 * cj)
    return np.column_stack([e, a1 * e * uc, a1 * e * cj, up, pj, np.ones_like(uc)])


def nopcie(X, a1, a2, a3, lam):
    uc, cj, _, _ = X
    return a1 * np.exp(a2 * uc + a3 * cj) + lam


def nopcie_jac(X, a1, a2, a3, lam):
    uc, cj, _, _ = X
    e = np.exp(a2 * uc + a3 * cj)
    return np.column_stack([e, a1 * e * uc, a1 * e * cj, np.ones_like(uc)])


def linear_design(cols):
    def f(X, *p):
        return cols(X) @ np.asarray(p)

    def jac(X, *p):
        return cols(X)

    return f, jac


def nocpu_cols(X):
    uc, cj, up, pj = X
    return np.column_stack([up, pj, np.ones_like(uc)])


def lin_cols(X):
    uc, cj, up, pj = X
    return np.column_stack([np.ones_like(uc), uc, cj, up, pj])


def quad_cols(X):
    x = list(X)
    cols = [np.ones_like(x[0])] + x
    for i in range(4):
        for j in range(i, 4):
            cols.append(x[i] * x[j])
    return np.column_stack(cols)


MODELS = {
    "tracon-linear": linear_design(lin_cols),
    "tracon-quadratic": linear_design(quad_cols),
    "ours": (ours, ours_jac),
    "ours-no-pcie": (nopcie, nopcie_jac),
    "ours-no-cpu": linear_design(nocpu_cols),
}


REPS = int(os.environ.get("FITBENCH_REPS", "5"))


def main():
    d = sys.argv[1]
    X, y, starts = load(d)
    out, total, total_cpu = {}, 0.0, 0.0
    for name, (f, jac) in MODELS.items():
        p0 = starts[name]
        times, cpus = [], []
        for _ in range(REPS):
            c0, t0 = time.process_time(), time.perf_counter()
            p, cov = curve_fit(f, X, y, p0=p0, jac=jac, method="lm",
                               ftol=1e-12, xtol=1e-12, gtol=1e-12, maxfev=100000)
            times.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        sec, cpu = sorted(times)[REPS // 2], sorted(cpus)[REPS // 2]
        total += sec
        total_cpu += cpu
        r = f(X, *p) - y
        out[name] = {"params": p.tolist(), "seconds": sec, "cpu_seconds": cpu, "ssr": float(r @ r)}
    out["total"] = {"seconds": total, "cpu_seconds": total_cpu}
    if "--compare" in sys.argv:
        with open(sys.argv[sys.argv.index("--compare") + 1]) as fh:
            go = json.load(fh)
        for name in MODELS:
            a, b = np.array(go[name]["params"]), np.array(out[name]["params"])
            out[name]["max_rel_diff_vs_go"] = float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12)))
            out[name]["ssr_go"] = go[name]["ssr"]
            out[name]["ssr_rel_diff_vs_go"] = (go[name]["ssr"] - out[name]["ssr"]) / out[name]["ssr"]
            out[name]["go_seconds"] = go[name]["seconds"]
            out[name]["go_cpu_seconds"] = go[name]["cpu_seconds"]
        out["total"]["go_seconds"] = go["total"]["seconds"]
        out["total"]["go_cpu_seconds"] = go["total"]["cpu_seconds"]
        out["total"]["go_over_scipy"] = go["total"]["seconds"] / total
        out["total"]["go_over_scipy_cpu"] = go["total"]["cpu_seconds"] / total_cpu
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
