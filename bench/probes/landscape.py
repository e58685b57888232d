#!/usr/bin/env python3
"""What a recorded space offers a descent, without hone (issue 11's analysis, bench/RESULTS.md).

Reads a Kernel Tuner cache file (.json or .json.gz; ../shared/spaces/README.md) and, with the
neighbours gp_climb's descents use (any other value of a parameter of up to 4 values, the next
value up or down of a longer list):

  * the local optima under steepest descent and the share of configurations whose descent ends
    within 95% of the optimum (the basin share of the good optima);
  * a simulation of first-improvement descents from random restarts (9 in 10 drawn among
    configurations whose integer parameters of over two values are powers of two, as gp_climb's
    `aligned` does), observed points free, trying neighbours in random order or, as a bound no
    real search reaches, in the order of their true times (`--order oracle`, optionally with
    log-normal noise): the share of seeds within 95% of the optimum after `--budget` evaluations.

    bench/probes/landscape.py ../shared/spaces/gemm_RTX_2080_Ti.json.gz --order random --seeds 300
"""
import argparse
import collections
import math
import random

from kt_simulate import load_cache


def load(path):
    d = load_cache(path, None)
    keys = d["tune_params_keys"]
    values = [[str(v) for v in d["tune_params"][k]] for k in keys]
    integer = [all(isinstance(v, int) for v in d["tune_params"][k]) for k in keys]
    times = {}
    for k, rec in d["cache"].items():
        t = rec.get("time")
        times[tuple(k.split(","))] = t if isinstance(t, (int, float)) else None
    return values, integer, times


def is_power_of_two(s):
    n = int(s)
    return n >= 1 and n & (n - 1) == 0


class space:
    def __init__(self, path):
        self.values, integer, self.times = load(path)
        self.index = [{v: i for i, v in enumerate(vs)} for vs in self.values]
        self.best = min(t for t in self.times.values() if t is not None)
        long_ints = [integer[i] and len(vs) > 2 for i, vs in enumerate(self.values)]
        self.points = list(self.times)
        self.aligned = [p for p in self.points
                        if all(not long_ints[i] or is_power_of_two(p[i]) for i in range(len(p)))]

    def good(self, p):
        t = self.times[p]
        return t is not None and self.best / t >= 0.95

    def neighbours(self, p):
        out = []
        for i, vs in enumerate(self.values):
            j = self.index[i][p[i]]
            to = range(len(vs)) if len(vs) <= 4 else (j - 1, j + 1)
            for k in to:
                if k == j or not 0 <= k < len(vs):
                    continue
                q = p[:i] + (vs[k],) + p[i + 1:]
                if q in self.times:
                    out.append(q)
        return out


def basins(s):
    valid = [p for p in s.points if s.times[p] is not None]
    end = {}
    for start in valid:
        path, p = [], start
        while p not in end:
            path.append(p)
            nb = [q for q in s.neighbours(p) if s.times[q] is not None]
            q = min(nb, key=lambda r: s.times[r], default=None)
            if q is None or s.times[q] >= s.times[p]:
                end[p] = p
                break
            p = q
        for q in path:
            end[q] = end[p]
    count = collections.Counter(end[p] for p in valid)
    share = sum(n for e, n in count.items() if s.good(e)) / len(valid)
    return count, share


def descents(s, seed, budget, order, noise):
    rnd = random.Random(seed)
    seen, n = set(), 0

    def key(q):
        t = s.times[q]
        return (math.log(t) if t else 1e9) + rnd.gauss(0, noise)

    while n < budget:
        p = rnd.choice(s.aligned if rnd.random() < 0.9 else s.points)
        if p in seen:
            continue
        seen.add(p)
        n += 1
        if s.good(p):
            return n
        if s.times[p] is None:
            continue
        while True:
            nb = s.neighbours(p)
            rnd.shuffle(nb)
            if order == "oracle":
                nb.sort(key=key)
            moved = False
            for q in nb:
                if q not in seen:
                    seen.add(q)
                    n += 1
                    if s.good(q):
                        return n
                    if n >= budget:
                        return None
                if s.times[q] is not None and s.times[q] < s.times[p]:
                    p, moved = q, True
                    break
            if not moved:
                break
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("space", help="a Kernel Tuner cache file (.json or .json.gz)")
    ap.add_argument("--order", choices=["random", "oracle"], default="random")
    ap.add_argument("--noise", type=float, default=0.0, help="oracle's noise (log scale)")
    ap.add_argument("--seeds", type=int, default=300)
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--optima", type=int, default=10, help="largest basins to list")
    a = ap.parse_args()
    s = space(a.space)
    count, share = basins(s)
    print(f"{len(s.points)} configurations, {len(count)} local optima; "
          f"{100 * share:.1f}% of valid ones descend to within 95% of the optimum")
    for e, n in count.most_common(a.optima):
        print(f"  basin {n:6d}  {s.best / s.times[e]:.3f}  {','.join(e)}")
    hits = [descents(s, k, a.budget, a.order, a.noise) for k in range(a.seeds)]
    within = sum(h is not None for h in hits)
    print(f"descents ({a.order} order): {100 * within / a.seeds:.1f}% of {a.seeds} seeds "
          f"within 95% after {a.budget} evaluations")


if __name__ == "__main__":
    main()
