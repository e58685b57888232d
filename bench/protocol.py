#!/usr/bin/env python3
"""A protocol for judging search strategies on recorded spaces that cannot overfit them.

Strategies are chosen (and their options tuned) on DESIGN spaces with DESIGN seeds, and reported
on the other, HELD-OUT spaces with REPORT seeds; the two seed ranges never overlap. Folds:

  --holdout kernel   leave one kernel out, rotating: each kernel's spaces are held out once,
                     the candidates chosen on the other kernels' spaces (the cache's kernel_name)
  --holdout gpu      the same, one GPU at a time (the cache's device_name)
  --holdout fixed    --design-spaces names the spaces a strategy was designed on before; all the
                     others are held out (one fold: a one-shot report of an existing default)

In each fold the candidate (--candidates: hone strategies, NAME or NAME:opt=v;opt=v) whose worst
design space is best wins: the smallest share of seeds within 95% of the optimum at the first
budget, then at the last, then the mean methodology score. The winner is then run on the fold's
held-out spaces with the report seeds, beside Kernel Tuner's strategies (its simulation mode,
bench/kt_simulate.py, the same seeds and budget; it has no design phase here).

Figures per held-out space and budget B (--budgets, default 200 and 1000):
  - within 95%: the share of seeds whose best so far is within 95% of the optimum
    (optimum time / best time >= 0.95) after B evaluations;
  - score: the methodology score of Willemsen et al. (FGCS 2024), (random(B) - mean best(B)) /
    (random(B) - optimum), on the recorded time, where mean best(B) is the mean over seeds of
    the best time found in B evaluations and random(B) the expected best of random search
    without replacement, computed exactly from the space's recorded times (a failed
    configuration counts as an evaluation that finds nothing; a best that is still nothing
    counts as the space's slowest time, for random search and strategies alike). 1: the
    optimum in every seed; 0: no better than random search; below 0: worse;
  - mean score: the score averaged over B = 1 .. --max-evals (the paper's aggregate over the
    budget range, here in evaluations);
  - random search's exact chance of a configuration within 95% in B evaluations.

Raw runs are kept in --runs-dir, one JSON file per (tool, strategy, space, seeds, budget), and
reused: an interrupted protocol goes on where it stopped. Without --run, missing runs are listed
and left out. Every run is a single process at nice 10 (this machine's cores are shared).

Examples:
  # auto, designed on the five first spaces, reported on the eight others (seeds 9001..9020):
  bench/protocol.py --holdout fixed --design-spaces convolution_A4000,convolution_W6600,\\
      dedispersion_A4000,gemm_RTX_2080_Ti,pnpoly_RTX_2080_Ti --candidates auto --run
  # leave one kernel out over hone's strategies:
  bench/protocol.py --holdout kernel --candidates auto,diff_evo,genetic,annealing --run
"""
import argparse
import glob
import gzip
import json
import math
import os
import subprocess
import sys
import time

from kt_simulate import objective_of  # the objective as `hone replay` ranks a cache

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LEVEL = 0.95


def parse_seeds(text):
    first, _, n = text.partition("x")
    return int(first), int(n)


def load_space(path):
    """Kernel, device and the recorded objective values (None = failed) of a Kernel Tuner cache,
    as `hone replay` ranks them: its time, or its GFLOP/s or GB/s where the header names one and
    the records hold it, negated (smaller is better throughout; `higher` says it was negated)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        d = json.load(f)
    name, higher = objective_of(d)
    times = []
    for r in d["cache"].values():
        t = r.get("time")
        ok = isinstance(t, (int, float)) and t > 0
        if higher:
            v = r.get(name)
            times.append(-v if ok and isinstance(v, (int, float)) and v > 0 else None)
        else:
            times.append(t if ok else None)
    stem = os.path.basename(path).split(".json")[0]
    return {"path": path, "stem": stem, "kernel": d.get("kernel_name", stem.split("_")[0]),
            "device": d.get("device_name", ""), "times": times, "higher": higher}


def relative(value, optimum):
    """Performance relative to the optimum (1 at it), for times and for negated throughputs."""
    return optimum / value if optimum > 0 else value / optimum


class random_baseline:
    """Random search without replacement over a space's N recorded configurations, exactly."""

    def __init__(self, times):
        ok = sorted(t for t in times if t is not None)
        self.n = len(times)
        self.optimum = ok[0]
        self.worst = ok[-1]
        # Failures sort last, as the slowest time (what a best of nothing counts as).
        self.sorted = ok + [self.worst] * (self.n - len(ok))
        self.within = sum(1 for t in ok if relative(t, self.optimum) >= LEVEL - 1e-12)
        self._lc_n = [self._lchoose(self.n, b) for b in range(0, self.n + 1)]
        self._best = {}

    @staticmethod
    def _lchoose(n, k):
        if k < 0 or k > n:
            return -math.inf
        return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)

    def _p_none_of_first(self, i, b):
        """The chance that b draws avoid the i best configurations."""
        return math.exp(self._lchoose(self.n - i, b) - self._lc_n[b]) if self.n - i >= b else 0.0

    def expected_best(self, b):
        # E[best] = sum over i of v_i * P(the best drawn is the i-th): P(avoid the first i-1)
        # - P(avoid the first i).
        b = min(b, self.n)
        if b in self._best:
            return self._best[b]
        e, prev = 0.0, 1.0
        for i in range(1, self.n + 1):
            cur = self._p_none_of_first(i, b)
            e += self.sorted[i - 1] * (prev - cur)
            prev = cur
            if cur == 0.0:
                break
        self._best[b] = e
        return e

    def p_within(self, b):
        return 1.0 - self._p_none_of_first(self.within, min(b, self.n))


def run_path(runs_dir, tool, strategy, stem, seeds, max_evals):
    safe = strategy.replace(":", "+").replace(";", "+").replace("=", "-")
    return os.path.join(runs_dir, f"{tool}-{safe}-{stem}-s{seeds[0]}x{seeds[1]}-e{max_evals}.json")


def make_run(a, tool, strategy, space, seeds, max_evals, path):
    if tool == "hone":
        name, _, opts = strategy.partition(":")
        cmd = ["nice", "-n", "10", a.hone, "replay", space["path"], "--strategy", name, "--seeds",
               str(seeds[1]), "--seed", str(seeds[0]), "--max-evals", str(max_evals), "--json"]
        for o in filter(None, opts.split(";")):
            cmd += ["--option", o]
    else:
        cmd = ["nice", "-n", "10", a.kt_python, os.path.join(HERE, "kt_simulate.py"), space["path"],
               "--strategy", strategy, "--seeds", str(seeds[1]), "--seed", str(seeds[0]),
               "--max-fevals", str(max_evals)]
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
    j = json.loads(p.stdout)
    j["run_s"] = time.time() - t
    with open(path + ".tmp", "w") as f:
        json.dump(j, f)
    os.replace(path + ".tmp", path)
    print(f"ran {os.path.basename(path)} in {j['run_s']:.0f} s", file=sys.stderr)


def get_run(a, tool, strategy, space, seeds, missing):
    path = run_path(a.runs_dir, tool, strategy, space["stem"], seeds, a.max_evals)
    if not os.path.exists(path):
        if not a.run:
            missing.append(path)
            return None
        make_run(a, tool, strategy, space, seeds, a.max_evals, path)
    with open(path) as f:
        return json.load(f)


def figures(run, space, base, budgets, max_evals):
    """Within-95% shares, scores and the median evaluations to 95% of one run's seeds."""
    seeds = run["seeds"]
    opt, worst = base.optimum, base.worst
    curves = []
    sign = -1 if space["higher"] else 1  # runs give throughput as it is; the space negated
    for s in seeds:
        b = [sign * v if v is not None else worst for v in s["best_so_far"]]
        # A run that ended early (the space, or the strategy, ran out) keeps its best.
        b += [b[-1] if b else worst] * (max_evals - len(b))
        curves.append(b[:max_evals])
    n = len(curves)
    mean_best = [sum(c[i] for c in curves) / n for i in range(max_evals)]

    def score(i):
        r = base.expected_best(i + 1)
        return (r - mean_best[i]) / (r - opt) if r > opt else 1.0 if mean_best[i] <= opt else 0.0

    out = {"seeds": n}
    for b in budgets:
        out[f"within_{b}"] = sum(1 for c in curves if relative(c[b - 1], opt) >= LEVEL - 1e-12) / n
        out[f"score_{b}"] = score(b - 1)
    step = max(1, max_evals // 100)  # the mean over 1 .. max_evals, sampled every step
    idx = list(range(0, max_evals, step))
    out["mean_score"] = sum(score(i) for i in idx) / len(idx)
    to = sorted(s["evals_to_95"] if s["evals_to_95"] is not None else math.inf for s in seeds)
    m = to[n // 2] if n % 2 else 0.5 * (to[n // 2 - 1] + to[n // 2])
    out["median_to_95"] = None if m == math.inf else m
    return out


def folds(a, spaces):
    if a.holdout == "fixed":
        design = set(filter(None, a.design_spaces.split(",")))
        unknown = design - {s["stem"] for s in spaces}
        if unknown:
            sys.exit(f"--design-spaces: not in {a.spaces_dir}: {', '.join(sorted(unknown))}")
        return [("designed on " + ", ".join(sorted(design)),
                 [s for s in spaces if s["stem"] in design], [s for s in spaces if s["stem"] not in design])]
    key = "kernel" if a.holdout == "kernel" else "device"
    groups = sorted({s[key] for s in spaces})
    return [(f"{key} {g} held out", [s for s in spaces if s[key] != g], [s for s in spaces if s[key] == g])
            for g in groups]


def pct(x):
    return "" if x is None else f"{100 * x:.0f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hone", default=os.path.join(ROOT, "build", "hone"))
    ap.add_argument("--kt-python", default="/work/kt-venv/bin/python")
    ap.add_argument("--spaces-dir", default=os.path.join(ROOT, "..", "shared", "spaces"))
    ap.add_argument("--holdout", choices=("kernel", "gpu", "fixed"), default="kernel")
    ap.add_argument("--design-spaces", default="", help="with --holdout fixed: comma-separated stems")
    ap.add_argument("--candidates", default="auto", help="hone strategies, NAME or NAME:opt=v;opt=v")
    ap.add_argument("--kt-strategies", default="genetic_algorithm,diff_evo,dual_annealing,pso")
    ap.add_argument("--kt-slow", default="bayes_opt:3",
                    help="Kernel Tuner strategies run with fewer seeds, NAME:SEEDS (',' between; '' none)")
    ap.add_argument("--design-seeds", default="5001x20", help="FIRSTxCOUNT (default 5001x20)")
    ap.add_argument("--report-seeds", default="9001x20", help="FIRSTxCOUNT (default 9001x20)")
    ap.add_argument("--max-evals", type=int, default=1000)
    ap.add_argument("--budgets", default="200,1000")
    ap.add_argument("--runs-dir", default=os.path.join(ROOT, "build", "protocol-runs"))
    ap.add_argument("--run", action="store_true", help="run what is missing (else list it)")
    ap.add_argument("--report-design", action="store_true",
                    help="with --holdout fixed: report the design spaces too (marked, report seeds)")
    ap.add_argument("--json-out")
    a = ap.parse_args()

    design_seeds, report_seeds = parse_seeds(a.design_seeds), parse_seeds(a.report_seeds)
    d_range = range(design_seeds[0], design_seeds[0] + design_seeds[1])
    r_range = range(report_seeds[0], report_seeds[0] + report_seeds[1])
    if set(d_range) & set(r_range):
        sys.exit("the design and report seeds overlap: a strategy would be reported on seeds it was chosen on")
    if report_seeds[1] < 20 or (a.holdout != "fixed" and design_seeds[1] < 20):
        print("note: fewer than 20 seeds a space", file=sys.stderr)
    budgets = [int(b) for b in a.budgets.split(",")]
    if any(b < 1 or b > a.max_evals for b in budgets):
        sys.exit("--budgets must be within 1 .. --max-evals")
    os.makedirs(a.runs_dir, exist_ok=True)
    spaces = [load_space(p) for p in sorted(glob.glob(os.path.join(a.spaces_dir, "*.json.gz")))]
    if not spaces:
        sys.exit(f"no Kernel Tuner caches (*.json.gz) in {a.spaces_dir}")
    bases = {s["stem"]: random_baseline(s["times"]) for s in spaces}
    candidates = a.candidates.split(",")
    kt = [(s, report_seeds) for s in filter(None, a.kt_strategies.split(","))]
    for item in filter(None, a.kt_slow.split(",")):
        name, _, n = item.partition(":")
        kt.append((name, (report_seeds[0], int(n or 3))))
    missing = []
    report = {"protocol": vars(a), "folds": []}

    first, last = budgets[0], budgets[-1]
    print(f"## Strategies held out: {a.holdout}\n")
    print(f"Design seeds {d_range.start}..{d_range.stop - 1}, report seeds {r_range.start}..{r_range.stop - 1}, "
          f"at most {a.max_evals} evaluations. 'within 95% at B': share of seeds within 95% of the optimum "
          f"after B evaluations; 'score at B': (random(B) - mean best(B)) / (random(B) - optimum), random "
          f"search without replacement computed exactly; 'mean score': over 1..{a.max_evals}.\n")
    for name, design, held in folds(a, spaces):
        # Design: the candidate whose worst design space is best.
        chosen = candidates[0]
        if len(candidates) > 1:
            ranked = []
            for c in candidates:
                fs = []
                for s in design:
                    run = get_run(a, "hone", c, s, design_seeds, missing)
                    if run:
                        fs.append(figures(run, s, bases[s["stem"]], budgets, a.max_evals))
                if len(fs) < len(design):
                    continue
                ranked.append((min(f[f"within_{first}"] for f in fs), min(f[f"within_{last}"] for f in fs),
                               sum(f["mean_score"] for f in fs) / len(fs), c))
            if ranked:
                ranked.sort(reverse=True)
                chosen = ranked[0][3]
                print(f"### {name}: design picks {chosen}\n")
                print("| candidate | worst design space, within 95% at " + f"{first} | at {last} | mean score |")
                print("|---|---|---|---|")
                for w1, w2, ms, c in ranked:
                    print(f"| {c} | {pct(w1)} | {pct(w2)} | {ms:.3f} |")
                print()
        else:
            print(f"### {name}: {chosen}\n")
        fold = {"fold": name, "chosen": chosen, "held_out": {}, "design": [d["stem"] for d in design]}
        shown = held + (design if a.report_design and a.holdout == "fixed" else [])
        for s in shown:
            base = bases[s["stem"]]
            rows = []
            run = get_run(a, "hone", chosen, s, report_seeds, missing)
            if run:
                rows.append(("hone", chosen, figures(run, s, base, budgets, a.max_evals)))
            for k, seeds in kt:
                run = get_run(a, "kt", k, s, seeds, missing)
                if run:
                    rows.append(("Kernel Tuner", k, figures(run, s, base, budgets, a.max_evals)))
            fold["held_out"][s["stem"]] = {f"{t}:{st}": f for t, st, f in rows}
            mark = " (a design space: not held out)" if s in design else ""
            print(f"**{s['stem']}**{mark} ({s['kernel']} on {s['device']}, {base.n} configurations, "
                  f"{base.within} within 95%)\n")
            print("| tool | strategy | seeds | " + " | ".join(f"within 95% at {b}" for b in budgets) + " | " +
                  " | ".join(f"score at {b}" for b in budgets) + " | mean score | median evals to 95% |")
            print("|---|---|---|" + "---|" * (2 * len(budgets)) + "---|---|")
            for t, st, f in rows:
                med = "-" if f["median_to_95"] is None else f"{f['median_to_95']:.0f}"
                print(f"| {t} | {st} | {f['seeds']} | " + " | ".join(pct(f[f'within_{b}']) for b in budgets) +
                      " | " + " | ".join(f"{f[f'score_{b}']:.3f}" for b in budgets) +
                      f" | {f['mean_score']:.3f} | {med} |")
            print("| random search (exact) | | | " + " | ".join(pct(base.p_within(b)) for b in budgets) +
                  " | " + " | ".join("0" for _ in budgets) + " | 0 | |\n")
        report["folds"].append(fold)

    # The goal: the chosen hone strategy against Kernel Tuner's best (design spaces marked).
    print("### Goal on the held-out spaces\n")
    print(f"Goal: within 95% by {first} evaluations in >= 90% of seeds, by {last} in 100%, and at or above "
          f"Kernel Tuner's best strategy for the space at {first} and {last} (share within 95%; score).\n")
    print(f"| space | hone | within 95% at {first} / {last} | KT best at {first} | KT best at {last} | "
          f"score at {first} / {last} | KT best score at {first} / {last} | goal met |")
    print("|---|---|---|---|---|---|---|---|")
    for fold in report["folds"]:
        for stem, rows in fold["held_out"].items():
            h = rows.get(f"hone:{fold['chosen']}")
            kts = {k.split(":", 1)[1]: f for k, f in rows.items() if k.startswith("Kernel Tuner:")}
            if not h:
                continue
            full = {k: f for k, f in kts.items() if f["seeds"] >= 20}  # the few-seed ones aside
            best = {}
            for key in (f"within_{first}", f"within_{last}", f"score_{first}", f"score_{last}"):
                best[key] = max(((f[key], k) for k, f in full.items()), default=(None, ""))
            ok = (h[f"within_{first}"] >= 0.9 and h[f"within_{last}"] >= 1.0 and
                  all(best[k][0] is None or h[k] >= best[k][0] - 1e-12
                      for k in (f"within_{first}", f"within_{last}")))
            bs = lambda k: "" if best[k][0] is None else f"{pct(best[k][0])} ({best[k][1]})"
            sc = lambda k: "" if best[k][0] is None else f"{best[k][0]:.3f}"
            label = stem + (" (design)" if stem in fold["design"] else "")
            verdict = "yes" if ok else "no"
            if ok and not full:
                verdict = "own goal yes; Kernel Tuner not run"
            print(f"| {label} | {fold['chosen']} | {pct(h[f'within_{first}'])} / {pct(h[f'within_{last}'])} | "
                  f"{bs(f'within_{first}')} | {bs(f'within_{last}')} | {h[f'score_{first}']:.3f} / "
                  f"{h[f'score_{last}']:.3f} | {sc(f'score_{first}')} / {sc(f'score_{last}')} | "
                  f"{verdict} |")
    print()
    if missing:
        print(f"Not run ({len(missing)}; `--run` runs them):\n")
        for m in missing:
            print(f"- {os.path.basename(m)}")
        print()
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
