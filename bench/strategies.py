#!/usr/bin/env python3
"""Search strategies on recorded spaces: hone's (through `hone replay`) beside Kernel Tuner's
(its simulation mode, through bench/kt_simulate.py), printed as markdown tables for
bench/RESULTS.md.

For every space (the Kernel Tuner caches in --spaces-dir, and any hone databases of exhaustive
runs given with --db), each strategy runs --seeds seeds of at most --max-evals evaluations. The
tables give the share of seeds whose best is within 95% of the optimum (optimum time / best
time >= 0.95) after 100, 200 and 1,000 evaluations, and the median evaluations to get there
("-": half the seeds or more did not within the budget).

Seeds: the figures use seeds --first-seed .. --first-seed + --seeds - 1 (default 1..25). The
strategies' defaults were chosen on seeds 100..119 only, so that the reported seeds are not the
ones the defaults were tuned on.

Examples:
  bench/strategies.py                                   # every space in ../shared/spaces
  bench/strategies.py --db bench/recorded/vector_add_576_2p24_h100.sqlite --kt-python VENV/bin/python
  bench/strategies.py --strategies auto,random --no-kt --seeds 5   # a quick look
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HONE_STRATEGIES = ["auto", "random", "annealing", "genetic", "local_search", "diff_evo", "bayes_opt",
                   "guided_descent", "portfolio", "gp_climb"]
KT_STRATEGIES = ["genetic_algorithm", "diff_evo", "dual_annealing", "pso", "bayes_opt"]
CHECKPOINTS = (100, 200, 1000)


def run(cmd):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    return json.loads(p.stdout), time.time() - t


def figures(seeds, max_evals):
    """Shares within 95% at the checkpoints and the median evaluations to 95%, from per-seed
    data in replay's JSON shape (best_so_far per evaluation, evals_to_95)."""
    n = len(seeds)
    out = {}
    for c in CHECKPOINTS:
        if c > max_evals:
            continue
        hit = sum(1 for s in seeds if s["evals_to_95"] is not None and s["evals_to_95"] <= c)
        out[c] = hit / n
    evals = sorted(s["evals_to_95"] if s["evals_to_95"] is not None else float("inf") for s in seeds)
    m = evals[n // 2] if n % 2 else 0.5 * (evals[n // 2 - 1] + evals[n // 2])
    out["median"] = None if m == float("inf") else m
    out["reached"] = sum(1 for s in seeds if s["evals_to_95"] is not None) / n
    return out


def hone_job(a, space, identity, strategy):
    cmd = [a.hone, "replay", space, "--strategy", strategy, "--seeds", str(a.seeds), "--seed",
           str(a.first_seed), "--max-evals", str(a.max_evals), "--json"]
    if identity:
        cmd += ["--identity", identity]
    j, secs = run(cmd)
    return {"tool": "hone", "strategy": strategy, "resolved": j["strategy"], "secs": secs,
            "space": j["space"], **figures(j["seeds"], a.max_evals)}


def kt_job(a, space, identity, strategy):
    cmd = [a.kt_python, os.path.join(HERE, "kt_simulate.py"), space, "--strategy", strategy,
           "--seeds", str(a.seeds), "--seed", str(a.first_seed), "--max-fevals", str(a.max_evals)]
    if identity:
        cmd += ["--identity", identity]
    j, secs = run(cmd)
    return {"tool": j["tool"], "strategy": strategy, "secs": secs, **figures(j["seeds"], a.max_evals)}


def pct(x):
    return "" if x is None else f"{100 * x:.0f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hone", default=os.path.join(ROOT, "build", "hone"))
    ap.add_argument("--spaces-dir", default=os.path.join(ROOT, "..", "shared", "spaces"),
                    help="folder of Kernel Tuner caches (*.json.gz); default ../shared/spaces")
    ap.add_argument("--db", action="append", default=[],
                    help="a hone database of an exhaustive run, PATH or PATH:RUN (repeatable)")
    ap.add_argument("--strategies", default=",".join(HONE_STRATEGIES))
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--max-evals", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel (default 2)")
    ap.add_argument("--kt-python", default="/tmp/ktvenv/bin/python",
                    help="a Python with kernel_tuner installed (python -m venv /tmp/ktvenv && "
                         "/tmp/ktvenv/bin/pip install kernel_tuner)")
    ap.add_argument("--kt-strategies", default=",".join(KT_STRATEGIES))
    ap.add_argument("--no-kt", action="store_true", help="hone's strategies only")
    ap.add_argument("--json-out", help="also write every figure here")
    a = ap.parse_args()

    spaces = [(p, "") for p in sorted(glob.glob(os.path.join(a.spaces_dir, "*.json.gz")))]
    for d in a.db:
        path, _, ident = d.partition(":")
        if os.path.exists(path):
            spaces.append((path, ident))
        else:
            print(f"note: {path} not found, skipped", file=sys.stderr)
    if not spaces:
        sys.exit("no spaces found")
    kt = not a.no_kt
    if kt and not os.path.exists(a.kt_python):
        print(f"note: {a.kt_python} not found: Kernel Tuner skipped", file=sys.stderr)
        kt = False

    jobs = []
    for space, ident in spaces:
        for s in a.strategies.split(","):
            jobs.append((hone_job, space, ident, s))
        if kt:
            for s in a.kt_strategies.split(","):
                jobs.append((kt_job, space, ident, s))
    t0 = time.time()
    results = {}

    def one(job):
        fn, space, ident, s = job
        try:
            return job, fn(a, space, ident, s)
        except Exception as e:  # one failed run is reported, the others still count
            return job, {"error": str(e)}

    with ThreadPoolExecutor(a.jobs) as ex:
        for job, r in ex.map(one, jobs):
            results.setdefault((job[1], job[2]), []).append((job[0].__name__, job[3], r))
    wall = time.time() - t0

    kt_version = next((r["tool"] for rs in results.values() for fn, s, r in rs
                       if fn == "kt_job" and "tool" in r), None)
    print(f"## Search strategies on recorded spaces\n")
    print(f"{a.seeds} seeds ({a.first_seed}..{a.first_seed + a.seeds - 1}; the defaults were tuned "
          f"on seeds 100..119), at most {a.max_evals} evaluations each; "
          f"{'Kernel Tuner: ' + kt_version + ', simulation mode' if kt_version else 'no Kernel Tuner run'}. "
          f"Share of seeds within 95% of the optimum after N evaluations, and the median "
          f"evaluations to get there ('-': half the seeds or more did not).\n")
    auto_rows = []
    for (space, ident), rs in results.items():
        info = next((r["space"] for fn, s, r in rs if "space" in r), None)
        name = os.path.basename(space) + (f" (run {ident})" if ident else "")
        if info:
            print(f"### {name}: {info['kernel']} on {info['device']}, {info['configurations']} "
                  f"configurations ({info['failed']} failed)\n")
        else:
            print(f"### {name}\n")
        cols = [c for c in CHECKPOINTS if c <= a.max_evals]
        print("| tool | strategy | " + " | ".join(f"within 95% at {c}" for c in cols) +
              " | median evals to 95% | run time |")
        print("|---|---|" + "---|" * len(cols) + "---|---|")
        for fn, s, r in rs:
            tool = "hone" if fn == "hone_job" else "Kernel Tuner"
            if "error" in r:
                print(f"| {tool} | {s} | " + " | ".join("error" for _ in cols) + f" | | {r['error'][:60]} |")
                continue
            label = s if s != "auto" else f"**auto** (= {r['resolved']})"
            med = "-" if r["median"] is None else f"{r['median']:.0f}"
            print(f"| {tool} | {label} | " + " | ".join(pct(r.get(c)) for c in cols) +
                  f" | {med} | {r['secs']:.0f} s |")
            if fn == "hone_job" and s == "auto":
                auto_rows.append((name, r))
        print()
    if auto_rows:
        print("### hone's default (auto) against the goal\n")
        print("Goal: within 95% of the optimum by 200 evaluations in >= 90% of seeds, by 1,000 in 100%.\n")
        print("| space | at 200 | at 1000 | goal met |")
        print("|---|---|---|---|")
        for name, r in auto_rows:
            ok = r.get(200, 0) >= 0.9 and r.get(1000, r.get(200, 0)) >= 1.0
            print(f"| {name} | {pct(r.get(200))} | {pct(r.get(1000))} | {'yes' if ok else 'no'} |")
        print()
    print(f"Benchmark run time: {wall:.0f} s with {a.jobs} jobs.")
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump({f"{k[0]}:{k[1]}": [{"runner": fn, "strategy": s, **r} for fn, s, r in v]
                       for k, v in results.items()}, f, indent=1)


if __name__ == "__main__":
    main()
