#!/usr/bin/env python3
"""What a recorded space's objective holds: Kernel Tuner caches record `time` as the mean of
`times`, whose first launch may be a cold one. Per space: the first launch against the median
of the others, how many configurations are within 95% of the optimum by the mean and by the
median of `times`, and where the mean's optimum ranks by the median.
    python3 bench/space_objective.py ../shared/spaces/*.json.gz
"""
import gzip
import json
import statistics
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def main(paths):
    print("| space | valid | first launch / median of the rest (median) | within 95%: mean / median of times | mean's optimum, rank by median |")
    print("|---|---|---|---|---|")
    for path in paths:
        d = load(path)
        if "cache" not in d:
            continue
        rows = []
        for key, v in d["cache"].items():
            t, ts = v.get("time"), v.get("times")
            if isinstance(t, (int, float)) and t < 1e9 and isinstance(ts, list) and len(ts) > 2:
                rows.append((t, statistics.median(ts), ts[0] / statistics.median(ts[1:]), key))
        if not rows:
            continue
        opt_mean = min(r[0] for r in rows)
        opt_median = min(r[1] for r in rows)
        within_mean = sum(r[0] <= opt_mean / 0.95 for r in rows)
        within_median = sum(r[1] <= opt_median / 0.95 for r in rows)
        best = min(rows)
        rank = sorted(r[1] for r in rows).index(best[1]) + 1
        name = path.rsplit("/", 1)[-1].split(".json")[0]
        cold = statistics.median(r[2] for r in rows)
        print(f"| {name} | {len(rows)} | {cold:.2f} | {within_mean} / {within_median} | #{rank} |")


if __name__ == "__main__":
    main(sys.argv[1:])
