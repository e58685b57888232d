#!/usr/bin/env python3
"""Kernel Tuner's simulation mode on a recorded space, for bench/strategies.py.

Runs one Kernel Tuner strategy against a Kernel Tuner cache (.json or .json.gz) or a hone
results database (converted to a cache first), once per seed, and prints one JSON object: for
each seed, the evaluations (unique configurations, as Kernel Tuner's budget counts them) until
the best found is within 90/95/100% of the optimum, and the best so far after each evaluation.

The space is exactly the recorded configurations, failed ones included (a restriction admits a
configuration when the cache holds it), as `hone replay` sees it. Kernel Tuner's strategies draw
from Python's `random` and NumPy's global generator: both are seeded per run. The objective is
the cache's, as `hone replay` takes it: GFLOP/s and GB/s (higher is better) where the header
names one and its records hold it, else time; the best so far is in its units.

Run it with the Python that has kernel_tuner installed:
  /tmp/ktvenv/bin/python bench/kt_simulate.py SPACE --strategy diff_evo --seeds 20 --max-fevals 1000
"""
import argparse
import gzip
import json
import os
import random
import sqlite3
import sys
import tempfile
import warnings

LEVELS = (0.90, 0.95, 1.00)
FAILURES = ("InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig")


def load_cache(path, identity):
    """The space as a Kernel Tuner cache dict."""
    with open(path, "rb") as f:
        head = f.read(16)
    if head.startswith(b"SQLite format 3\0"):
        return cache_from_hone(path, identity)
    opener = gzip.open if head[:2] == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return json.load(f)


def cache_from_hone(path, identity):
    """A hone database's run as a Kernel Tuner cache (time = the median, microseconds; a run
    ranked by GFLOP/s or GB/s keeps it, as the cache's objective)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    runs = db.execute("SELECT run_id, kernel_name, device_name, objective FROM runs ORDER BY run_id").fetchall()
    if not runs:
        sys.exit(f"{path}: no runs")
    if len(runs) > 1 and not identity:
        sys.exit(f"{path}: {len(runs)} runs; pick one with --identity N")
    run = runs[int(identity) - 1] if identity else runs[0]
    objective = {"time": "time", "gflops": "GFLOP/s", "gbps": "GB/s"}.get(run[3])
    if objective is None:
        sys.exit(f"{path}: the run is ranked by {run[3]}, which has no Kernel Tuner name")
    rows = db.execute("SELECT params, status, median, compile_ms, wall_s, gflops, gbps FROM results "
                      "WHERE run_id = ?", (run[0],)).fetchall()
    names = list(json.loads(rows[0][0]).keys())
    values = {n: [] for n in names}
    cache = {}
    for params, status, median, compile_ms, wall_s, gflops, gbps in rows:
        p = json.loads(params)
        for n in names:
            if p[n] not in values[n]:
                values[n].append(p[n])
        key = ",".join(str(p[n]) for n in names)
        ok = status in ("ok", "not_converged") and median > 0
        rec = dict(p)
        rec["time"] = median if ok else ("CompilationFailedConfig" if status.startswith("compile") else "RuntimeFailedConfig")
        if ok and objective != "time":
            rec[objective] = gflops if objective == "GFLOP/s" else gbps
        rec["compile_time"] = compile_ms
        rec["verification_time"] = 0
        rec["benchmark_time"] = 1000 * wall_s
        cache[key] = rec
    for n in names:
        values[n].sort(key=lambda v: (isinstance(v, str), v))
    return {"device_name": run[2], "kernel_name": run[1], "problem_size": [1],
            "tune_params_keys": names, "tune_params": values, "objective": objective, "cache": cache}


def objective_of(cache):
    """The cache's objective as hone replay ranks it: (name, higher is better)."""
    name = cache.get("objective", "time")
    if name in ("GFLOP/s", "GB/s") and any(
            isinstance(r.get(name), (int, float)) and r[name] > 0 for r in cache["cache"].values()):
        return name, True
    return "time", False


def simulate(cache, cache_file, strategy, seed, max_fevals):
    import numpy as np
    from kernel_tuner import tune_kernel

    names = cache["tune_params_keys"]
    recorded = set(cache["cache"].keys())

    from constraint import FunctionConstraint

    # As Kernel Tuner's own tune_cache() builds its restriction (which, unlike this one, drops
    # the failed configurations from the space).
    def in_cache(*values):
        return ",".join(str(v) for v in values) in recorded

    objective, higher = objective_of(cache)
    random.seed(seed)
    np.random.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = tune_kernel(
            cache["kernel_name"], "", tuple(cache["problem_size"]) if isinstance(cache["problem_size"], list)
            else (cache["problem_size"],), [], cache["tune_params"], restrictions=[FunctionConstraint(in_cache)],
            cache=cache_file, simulation_mode=True, strategy=strategy, objective=objective,
            objective_higher_is_better=higher, strategy_options={"max_fevals": max_fevals},
            quiet=True, verbose=False)
    # Unique configurations in the order Kernel Tuner evaluated them (revisits are free).
    seen, times = set(), []
    for r in results:
        if r is None:
            continue
        key = ",".join(str(r[n]) for n in names)
        if key in seen:
            continue
        seen.add(key)
        t = r.get(objective)
        ok = isinstance(t, (int, float)) and t > 0 and "__error__" not in r
        times.append(t if ok else None)
    return times[:max_fevals]


def summarize(times, optimum, seed, higher=False):
    best, best_so_far, reached = None, [], [None] * len(LEVELS)
    for i, t in enumerate(times, 1):
        if t is not None and (best is None or (t > best if higher else t < best)):
            best = t
        best_so_far.append(best)
        rel = (best / optimum if higher else optimum / best) if best else 0.0
        for k, level in enumerate(LEVELS):
            if reached[k] is None and rel >= level - 1e-12:
                reached[k] = i
    return {"seed": seed, "evals_to_90": reached[0], "evals_to_95": reached[1],
            "evals_to_100": reached[2], "evaluations": len(times), "best_so_far": best_so_far}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("space")
    ap.add_argument("--strategy", required=True)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--max-fevals", type=int, default=1000)
    ap.add_argument("--identity", default="", help="run number of a hone database with several")
    a = ap.parse_args()
    import kernel_tuner

    cache = load_cache(a.space, a.identity)
    # Kernel Tuner reads (and appends to) a plain .json cache: give it a private copy.
    with tempfile.TemporaryDirectory() as tmp:
        cache_file = os.path.join(tmp, "cache.json")
        with open(cache_file, "w") as f:
            json.dump(cache, f)
        objective, higher = objective_of(cache)
        ok = [r[objective] for r in cache["cache"].values()
              if isinstance(r.get(objective), (int, float)) and r[objective] > 0
              and isinstance(r.get("time"), (int, float))]
        optimum = max(ok) if higher else min(ok)
        seeds = []
        for s in range(a.seed, a.seed + a.seeds):
            times = simulate(cache, cache_file, a.strategy, s, a.max_fevals)
            seeds.append(summarize(times, optimum, s, higher))
    json.dump({"tool": f"kernel_tuner {kernel_tuner.__version__}" if hasattr(kernel_tuner, "__version__")
               else "kernel_tuner", "strategy": a.strategy, "space": a.space, "objective": objective, "optimum": optimum,
               "seeds": seeds}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
