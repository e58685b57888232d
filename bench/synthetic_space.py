#!/usr/bin/env python3
"""Writes a synthetic Kernel Tuner cache of N configurations (default 100,000: seven parameters,
10 x 5 x 5 x 10 x 10 x 2 x 2) for benchmarking `hone import` and `hone report` at scale.

Times follow a made-up but structured model (parameters with main effects, one interaction,
log-normal noise), 16 raw samples each; ~3% of the configurations fail with Kernel Tuner's
three failure kinds. Deterministic (seeded). Usage: synthetic_space.py OUT.json [N]"""
import itertools
import json
import math
import random
import sys


def main():
    out = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    rng = random.Random(1)
    params = {
        "block_size_x": [32 * i for i in range(1, 11)],
        "vec": [1, 2, 4, 8, 16],
        "unroll": [1, 2, 4, 8, 16],
        "tile_x": list(range(1, 11)),
        "tile_y": list(range(1, 11)),
        "strided": [False, True],
        "memory": ["device", "managed"],
    }
    names = list(params)
    with open(out, "w") as f:
        header = {"device_name": "Synthetic GPU", "kernel_name": "synthetic", "problem_size": [4096, 4096],
                  "tune_params_keys": names, "tune_params": params, "objective": "time"}
        f.write(json.dumps(header, indent="")[:-2] + ',\n"cache": {')
        first = True
        for n, values in enumerate(itertools.product(*params.values())):
            if n >= limit:
                break
            p = dict(zip(names, values))
            base = 2.0 * (1 + abs(math.log2(p["block_size_x"] / 128)) * 0.3)
            base *= {1: 1.3, 2: 1.05, 4: 1.0, 8: 1.02, 16: 1.4}[p["vec"]]
            base *= 1 + 0.04 * abs(math.log2(p["unroll"]) - 2)
            base *= 1 + 0.08 * abs(p["tile_x"] - 4) + 0.02 * abs(p["tile_y"] - 6)
            base *= 1.1 if p["strided"] and p["tile_x"] > 5 else 1.0  # an interaction
            base *= 1.03 if p["memory"] == "managed" else 1.0
            rec = dict(p)
            u = rng.random()
            if u < 0.01:
                rec["time"] = "CompilationFailedConfig"
            elif u < 0.02:
                rec["time"] = "RuntimeFailedConfig"
            elif u < 0.03:
                rec["time"] = "InvalidConfig"
            else:
                times = [base * math.exp(rng.gauss(0, 0.02)) for _ in range(16)]
                rec["time"] = sum(times) / len(times)
                rec["times"] = times
                rec["GFLOP/s"] = 2 * 4096 ** 3 / 1e9 / rec["time"]
            rec.update(compile_time=rng.uniform(200, 900), verification_time=rng.uniform(1, 5),
                       benchmark_time=rng.uniform(20, 60), framework_time=rng.uniform(1, 3),
                       strategy_time=0)
            key = ",".join(str(v) for v in values)
            f.write(("\n" if first else ",\n") + json.dumps({key: rec})[1:-1])
            first = False
        f.write("\n}\n}\n")


if __name__ == "__main__":
    main()
