#!/usr/bin/env python3
"""Tables of issue 12 for bench/RESULTS.md, from the files of bench/run.sh (phase w12) and
bench/timers.sh:
  - the kernel's median by hone's CUPTI timer, by its event timer, and by Nsight Compute;
  - this build (with its default timer, and with --timer events, which times as the previous
    build does) against the previous one on the 192- and 576-configuration vector_add spaces:
    wall, GPU busy, warm-up and sample time, configuration medians over the previous build's,
    the best choice of each and whether they tie, and the best choice's stability over
    repeated runs.
  bench/summarize_measure.py OUT_DIR [timers|w12|all]   (summarize.py calls it with all)
"""
import csv
import json
import os
import statistics
import sys

SPACES = (("192", "configs/vector_add_192.yaml"), ("576", "configs/vector_add.yaml"))
SIZES = ((65536, "2^16"), (16777216, "2^24"))
RUNS = range(1, 21)  # as many as ran (W12_RUNS), up to 20


def load(out, label):
    path = os.path.join(out, label + ".json")
    try:
        with open(path) as f:
            run = json.load(f)
    except (OSError, json.JSONDecodeError):
        return None
    try:  # the process's own wall, start to exit (bench/run.sh writes LABEL.ms)
        with open(os.path.join(out, label + ".ms")) as f:
            run["process_wall_s"] = int(f.read().strip()) / 1000.0
    except (OSError, ValueError):
        pass
    return run


def table(header, rows, title=None):
    """A markdown table (header: the column names; a row: its cells, or its line), printed only
    when it has rows."""
    if not rows:
        return
    if title:
        print(f"## {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    print("\n".join(r if isinstance(r, str) else "| " + " | ".join(r) + " |" for r in rows))
    print()


def timed(run):
    return [r for r in run["results"] if r["status"] in ("ok", "not_converged") and r["timing"]]


def overlaps(a, b):
    """Whether two results' 95% intervals of the median overlap: the measurement cannot tell
    them apart (hone's "tie")."""
    ta, tb = a["timing"], b["timing"]
    return ta["ci_low_us"] <= tb["ci_high_us"] and tb["ci_low_us"] <= ta["ci_high_us"]


def best(run):
    t = timed(run)
    return min(t, key=lambda r: (r["timing"]["median_us"], r["key"])) if t else None


# ---- CUPTI, events and Nsight Compute ----

UNIT_NS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
           "second": 1e9, "s": 1e9}


def ncu_durations_us(path):
    """gpu__time_duration.sum of every profiled launch in an ncu --csv log, in us."""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return []
    start = next((i for i, l in enumerate(lines) if '"Metric Name"' in l), None)
    if start is None:
        return []
    out = []
    for row in csv.DictReader(lines[start:]):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        try:
            v = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        out.append(v * UNIT_NS.get(row.get("Metric Unit", "nsecond"), 1.0) / 1e3)
    return out


def timers_table(out):
    labels = [f"va_2^{p}" for p in range(10, 30, 2)] + ["sgemm_1024", "sgemm_2048"]
    # auto (the default: the profiler where the counters can be read) and the three it chooses
    # among; a timer bench/timers.sh was not asked for (TIMERS) has no column.
    timers = [t for t in ("auto", "profiler", "cupti", "events")
              if any(load(out, f"timers_{label}_{t}") for label in labels)]
    rows = []
    for label in labels:
        cells = {}
        for timer in timers:
            run = load(out, f"timers_{label}_{timer}")
            r = run["results"][0] if run and run["results"] and run["results"][0]["timing"] else None
            cells[timer] = r
        ncu = ncu_durations_us(os.path.join(out, f"timers_{label}_ncu.csv"))
        if not any(cells.values()) and not ncu:
            continue
        n_ncu = statistics.median(ncu) if ncu else None

        def fmt(r):
            if not r:
                return "-"
            t = r["timing"]
            return (f"{t['median_us']:.2f} [{t['ci_low_us']:.2f}, {t['ci_high_us']:.2f}] "
                    f"({t.get('timer') or '?'}, {t['sample_mode']}, n={t['n']})")

        def ratio(r):
            if not r or not n_ncu:
                return "-"
            x = r["timing"]["median_us"] / n_ncu
            return f"**{x:.3f}**" if abs(x - 1) <= 0.03 else f"{x:.3f}"

        rows.append([label] + [fmt(cells[t]) for t in timers] +
                    [f"{n_ncu:.2f} (n={len(ncu)})" if n_ncu else "-"] +
                    [ratio(cells[t]) for t in timers])
    table(["kernel, N"] + [f"hone timer {t}: median µs [95% CI]" for t in timers] +
          ["ncu gpu__time_duration: median µs"] + [f"{t} / ncu" for t in timers],
          rows, "Kernel duration: hone's timers and Nsight Compute (bold: within 3%)")


# ---- This build against the previous one ----

def runs_of(out, space, n, build):
    return [r for r in (load(out, f"w{space}_{n}_{build}_{i}") for i in RUNS) if r]


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def fmt2(x):
    return "-" if x != x else f"{x:.2f}"  # nan: not measured


def gpu_work(run, key):
    return run["time"].get("gpu_work", {}).get(key)


BUILDS = (("prev", "previous"), ("new", "this, timer auto (events)"), ("newevents", "this, timer events"),
          ("newcupti", "this, timer cupti"), ("newprofiler", "this, timer profiler"))


def compare(prev, new):
    """Configuration medians of two runs (first runs), new over previous, and their bests: the
    previous best as the new run measured it, tied with the new best or not."""
    pm = {x["key"]: x["timing"]["median_us"] for x in timed(prev)}
    ratios = sorted(x["timing"]["median_us"] / pm[x["key"]] for x in timed(new) if x["key"] in pm)
    q = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))]
    bp, bn = best(prev), best(new)
    in_new = next((x for x in timed(new) if bp and x["key"] == bp["key"]), None)
    verdict = ("same" if bp and bn and bp["key"] == bn["key"]
               else "tie" if in_new and bn and overlaps(in_new, bn) else "differs")
    return [f"{statistics.median(ratios):.3f} ({q(0.1):.3f} .. {q(0.9):.3f})" if ratios else "-",
            f"{bp['key']} {bp['timing']['median_us']:.2f}" if bp else "-",
            f"{bn['key']} {bn['timing']['median_us']:.2f}" if bn else "-", verdict]


def w12_tables(out):
    rows, cmp_rows, stab_rows = [], [], []
    for space, _ in SPACES:
        for n, nname in SIZES:
            builds = {b: runs_of(out, space, n, b) for b, _ in BUILDS}
            for b, bname in BUILDS:
                rs = builds[b]
                if not rs:
                    continue
                t = [r["time"] for r in rs]
                n_samples = med([med([x["timing"]["n"] for x in timed(r)]) for r in rs])
                setup = rs[0]["time"].get("setup", {})
                rows.append([space, nname, bname, f"{med([x['wall_s'] for x in t]):.2f}",
                             str(len(rs)) + ": " + ", ".join(f"{x['wall_s']:.2f}" for x in t),
                             fmt2(med([r.get('process_wall_s') for r in rs])),
                             f"{med([x['setup_s'] for x in t]):.2f}",
                             f"{med([x.get('setup', {}).get('session_start_s') for x in t]):.3f}",
                             f"{med([x['gpu_s'] for x in t]):.2f}",
                             f"{med([x['gpu_busy_s'] for x in t]):.2f}",
                             f"{med([gpu_work(r, 'warmup_s') for r in rs]):.2f}",
                             f"{med([gpu_work(r, 'samples_s') for r in rs]):.2f}",
                             f"{n_samples:.0f}",
                             f"{sum(x['status'] == 'not_converged' for x in rs[0]['results'])}",
                             setup.get("timer") or "events",
                             f"{setup['clock_mhz']:.0f} / {setup['clock_s']:.3f}" if "clock_mhz" in setup else "-"])
            for b, bname in BUILDS[1:]:
                if builds["prev"] and builds[b]:
                    cmp_rows.append([space, nname, f"{bname} / previous"] + compare(builds["prev"][0], builds[b][0]))
            for b, bname in BUILDS[2:]:  # the timer's effect alone
                if builds["new"] and builds[b]:
                    cmp_rows.append([space, nname, f"{bname} / this, timer auto"]
                                    + compare(builds["new"][0], builds[b][0]))
            # Stability: each build's best over its runs, and whether each ties with run 1's best.
            for b, bname in BUILDS:
                rs = builds[b]
                if not rs:
                    continue
                bests = [best(r) for r in rs]
                keys = [x["key"] if x else "-" for x in bests]
                ties = 0
                for r, x in zip(rs, bests):
                    ref = next((y for y in timed(r) if bests[0] and y["key"] == bests[0]["key"]), None)
                    ties += bool(x and ref and (x["key"] == ref["key"] or overlaps(x, ref)))
                stab_rows.append([space, nname, bname, f"{len(set(keys))} of {len(keys)}",
                                  f"{ties} of {len(keys)}", "; ".join(keys)])
    table(["space", "N", "build", "wall s", "runs: wall s", "process wall s", "setup s", "of which session start s",
           "GPU work s", "GPU busy s", "warm-up s", "samples s", "median samples", "not converged", "timer",
           "clock MHz / s"], rows, "This build against the previous one (warm cache, alternated, median of the runs)")
    table(["space", "N", "runs", "config medians: median ratio (p10 .. p90)", "best of the first (µs)",
           "best of the second (µs)", "same best or a tie"], cmp_rows)
    table(["space", "N", "build", "distinct bests", "runs whose best is run 1's or ties with it "
           "(in that run)", "best of each run"], stab_rows, "Run-to-run stability of the best choice")


def main(out, what="all"):
    if what in ("timers", "all"):
        timers_table(out)
    if what in ("w12", "all"):
        w12_tables(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "all")
