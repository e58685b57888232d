#!/usr/bin/env python3
"""A pure Gaussian-process search on a recorded space, without hone (issue 11, bench/RESULTS.md).

The model half of gp_climb alone, as a bound on what its model can do: a Matérn 5/2 process
over value positions scaled to [0, 1] (length scale from {0.15, 0.3, 0.6, 1.2} by marginal
likelihood, noise 1e-3), fitted to every observation's rank as a normal score capped at the
`--cap` quantile, proposing `--batch` configurations at a time of best expected improvement
among `--candidates` random unseen ones, after 10 random ones; batches are evaluated before the
next fit (no window). `--strata` restricts each pick to one value of one two-valued parameter,
in turn, against that stratum's best, as gp_climb does. `--pairs W` adds, for every two
parameters of three values or more, W times the difference of their scaled positions as a
coordinate (for lists of powers of two, a log ratio: tile per thread and the like). Prints the
seeds within 95% of the optimum after `--budget` evaluations and the median evaluations to 95%.
SPACE: a Kernel Tuner cache (.json or .json.gz) or a hone database of an exhaustive run, read
as bench/kt_simulate.py reads them.

    bench/probes/gp_search.py ../shared/spaces/gemm_RTX_2080_Ti.json.gz --seed 1 --seeds 60 --strata

Needs NumPy and SciPy (pip install numpy scipy).
"""
import argparse
import math
import os
import sys

import numpy as np
from scipy.linalg import solve_triangular
from scipy.stats import norm, rankdata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kt_simulate import load_cache  # noqa: E402 (bench/kt_simulate.py)


def load(path):
    d = load_cache(path, None)
    tp = d["tune_params"]
    names = [k for k in tp if len(tp[k]) > 1]
    x, t = [], []
    for v in d["cache"].values():
        if not isinstance(v.get("time"), (int, float)):
            continue
        x.append([tp[k].index(v[k]) / (len(tp[k]) - 1) for k in names])
        t.append(v["time"])
    return np.array(x), np.array(t)


def pair_coordinates(x, w):
    wide = [i for i in range(x.shape[1]) if len(set(x[:, i])) > 2]
    cols = [x] + [w * (x[:, i:i + 1] - x[:, j:j + 1])
                  for a, i in enumerate(wide) for j in wide[a + 1:]]
    return np.hstack(cols)


def matern(d, length):
    s = math.sqrt(5) * d / length
    return (1 + s + s * s / 3) * np.exp(-s)


def distance(a, b):
    return np.sqrt(np.maximum(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1), 0))


def targets(scores, cap):
    # Mid-ranks for ties, as hone's normal_scores.
    rank = rankdata(scores) - 1
    y = np.minimum(norm.ppf((rank + 0.5) / len(scores)), norm.ppf(cap))
    return (y - y.mean()) / (y.std() or 1)


def fit(x, y, lengths=(0.15, 0.3, 0.6, 1.2), noise=1e-3):
    d = distance(x, x)
    best = None
    for length in lengths:
        k = matern(d, length) + (noise + 1e-6) * np.eye(len(x))
        try:
            chol = np.linalg.cholesky(k)
        except np.linalg.LinAlgError:
            continue
        a = solve_triangular(chol, y, lower=True)
        ll = -0.5 * a @ a - np.log(np.diag(chol)).sum()
        if best is None or ll > best[0]:
            best = (ll, length, chol, solve_triangular(chol.T, a, lower=False))
    return best


def predict(model, x, c):
    _, length, chol, alpha = model
    k = matern(distance(c, x), length)
    v = solve_triangular(chol, k.T, lower=True)
    return k @ alpha, np.sqrt(np.maximum(1 - (v * v).sum(0), 1e-12))


def expected_improvement(mu, sd, best):
    z = (best - mu) / sd
    return (best - mu) * norm.cdf(z) + sd * norm.pdf(z)


def run(x, t, seed, a):
    rng = np.random.default_rng(seed)
    n = len(x)
    seen = list(rng.choice(n, 10, replace=False))
    taken = set(seen)
    binary = [i for i in range(x.shape[1]) if len(set(x[:, i])) == 2] if a.strata else []
    strata = []
    while len(seen) < a.budget:
        y = targets(t[seen], a.cap)
        model = fit(x[seen], y)
        pool = np.array([i for i in rng.choice(n, min(n, 2 * a.candidates), replace=False)
                         if i not in taken][:a.candidates])
        mu, sd = predict(model, x[seen], x[pool])
        picked = set()
        for _ in range(a.batch):
            if binary:
                if not strata:
                    strata = [(b, v) for b in binary for v in (0.0, 1.0)]
                    rng.shuffle(strata)
                b, v = strata.pop()
                inside = [k for k, i in enumerate(seen[:len(y)]) if x[i, b] == v]
                inc = y[inside].min() if inside else mu[x[pool, b] == v].min()
                ei = expected_improvement(mu, sd, inc)
                ei[x[pool, b] != v] = -1
            else:
                ei = expected_improvement(mu, sd, y.min())
            ei[list(picked)] = -2
            j = int(np.argmax(ei))
            picked.add(j)
            if len(seen) < a.budget:
                seen.append(pool[j])
                taken.add(pool[j])
    hit = np.nonzero(t.min() / np.minimum.accumulate(t[seen]) >= 0.95)[0]
    return int(hit[0]) + 1 if len(hit) else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("space")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--budget", type=int, default=200)
    p.add_argument("--candidates", type=int, default=300)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--cap", type=float, default=0.6)
    p.add_argument("--strata", action="store_true")
    p.add_argument("--pairs", type=float, default=0)
    a = p.parse_args()
    x, t = load(a.space)
    if a.pairs > 0:
        x = pair_coordinates(x, a.pairs)
    r = [run(x, t, s, a) for s in range(a.seed, a.seed + a.seeds)]
    hits = sum(1 for e in r if e is not None and e <= a.budget)
    med = np.median([e if e is not None else math.inf for e in r])
    print(f"{a.space}: {hits} of {a.seeds} seeds within 95% at {a.budget}; median evaluations "
          f"to 95%: {med}")


if __name__ == "__main__":
    main()
