#!/usr/bin/env python3
"""Loads a Kernel Tuner cache that `hone export --format kt-cache` wrote in Kernel Tuner's own
simulation mode, and checks that Kernel Tuner finds every configuration and the same best time.

Needs kernel_tuner (pip install kernel_tuner, in a venv); not part of ./dev test. Usage:
    python3 kt_simulation_check.py CACHE.json [--strategy brute_force|random_sample]
Prints the Kernel Tuner version, the number of configurations it evaluated and the best, and
exits 1 when they differ from what the cache holds."""
import argparse
import json
import sys

import kernel_tuner
from kernel_tuner import tune_kernel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("--strategy", default="brute_force")
    args = ap.parse_args()
    with open(args.cache) as f:
        doc = json.load(f)
    names = doc["tune_params_keys"]
    tune_params = {n: doc["tune_params"][n] for n in names}
    keys = set(doc["cache"])

    # A hone space with constraints is not the whole product: Kernel Tuner's restriction says
    # which configurations exist, so that simulation never asks for one the cache lacks.
    def exists(p):
        return ",".join(str(p[n]) for n in names) in keys

    results, env = tune_kernel(
        doc["kernel_name"],
        "__global__ void unused() {}",  # simulation mode compiles nothing
        doc["problem_size"],
        [],
        tune_params,
        restrictions=exists,
        cache=args.cache,
        simulation_mode=True,
        strategy=args.strategy,
        strategy_options={"max_fevals": len(keys)} if args.strategy != "brute_force" else None,
        objective=doc.get("objective", "time"),
        objective_higher_is_better=doc.get("objective", "time") != "time",
        quiet=True,
    )
    timed = [r for r in results if isinstance(r.get("time"), (int, float))]
    best = min(timed, key=lambda r: r["time"]) if timed else None
    expected = [r["time"] for r in doc["cache"].values() if isinstance(r["time"], (int, float))]
    print(f"kernel_tuner {kernel_tuner.__version__}: simulated {len(results)} configurations "
          f"({len(timed)} timed) of {len(keys)} in {args.cache}; device {env.get('device_name')}")
    if best:
        print(f"best {best['time']} ms at " + ",".join(str(best[n]) for n in names))
    ok = True
    if args.strategy == "brute_force" and len(results) != len(keys):
        print(f"error: Kernel Tuner evaluated {len(results)} configurations, the cache holds {len(keys)}")
        ok = False
    if args.strategy == "brute_force" and expected and (best is None or best["time"] != min(expected)):
        print(f"error: best {best and best['time']} != the cache's best {min(expected)}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
