#!/usr/bin/env python3
"""Turns the JSON files of bench/run.sh into the markdown tables of bench/RESULTS.md."""
import glob
import json
import os
import sqlite3
import statistics
import sys

from summarize_measure import table as print_table  # one table printer


def load(out, label):
    path = os.path.join(out, label + ".json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except json.JSONDecodeError:
        return None


def best(run):
    timed = [r for r in run["results"] if r["status"] in ("ok", "not_converged")]
    return min(timed, key=lambda r: r["timing"]["median_us"]) if timed else None




def tuning_table(out, labels):
    print("| run | configs | wall s | setup s | compile wait s | GPU work s | GPU busy s "
          "| GPU span s | other s | wall / busy | wall / span | compiled / cached | configs/s "
          "| peak RSS MiB (tuner / largest worker) | ptxas report | best | best median µs | GB/s |")
    print("|" + "---|" * 18)
    for label in labels:
        run = load(out, label)
        if not run:
            continue
        t = run["time"]
        n = run["evaluated"]
        other = t["wall_s"] - t["setup_s"] - t["compile_wait_s"] - t["gpu_s"]
        b = best(run)
        busy, span = t["gpu_busy_s"], t.get("gpu_span_s", 0)
        ratio = t["wall_s"] / busy if busy > 0 else float("nan")
        ratio_span = t["wall_s"] / span if span > 0 else float("nan")
        rss = run["rusage"]
        ok = [r for r in run["results"] if r["status"] in ("ok", "not_converged")]
        regs = sum(1 for r in ok if r["compile"]["ptxas"]["registers"] is not None)
        print(f"| {label} | {n} | {t['wall_s']:.2f} | {t['setup_s']:.2f} | {t['compile_wait_s']:.2f} "
              f"| {t['gpu_s']:.2f} | {busy:.2f} | {span:.2f} | {other:.2f} "
              f"| {ratio:.2f} | {ratio_span:.2f} "
              f"| {t['compiled']} / {t['cache_hits']} | {n / t['wall_s']:.1f} "
              f"| {rss['max_rss_kib_self'] / 1024:.0f} / {rss['max_rss_kib_children'] / 1024:.0f} "
              f"| {regs} / {len(ok)} "
              f"| {b['key'] if b else '-'} | {b['timing']['median_us'] if b else float('nan'):.2f} "
              f"| {(b['gbps'] or 0) if b else 0:.0f} |")
    print()
    print("| run | session start s | reference compile s | prepare s | inputs s | upload s "
          "| reference run s | reference µs |")
    print("|" + "---|" * 8)
    for label in labels:
        run = load(out, label)
        if not run or "setup" not in run["time"]:
            continue
        u = run["time"]["setup"]
        print(f"| {label} | {u['session_start_s']:.3f} | {u['reference_compile_s']:.3f} "
              f"| {u['prepare_s']:.3f} | {u['inputs_s']:.3f} | {u['upload_s']:.3f} "
              f"| {u['reference_run_s']:.3f} | {u['reference_us']:.1f} |")
    print()
    rows = []
    for label in labels:
        run = load(out, label)
        if not run or "gpu_work" not in run["time"]:
            continue
        t, g = run["time"], run["time"]["gpu_work"]
        rows.append(f"| {label} | {t['gpu_s']:.2f} | {g['session_s']:.2f} | {g['load_s']:.2f} "
                    f"| {g['verify_s']:.2f} | {g['warmup_s']:.2f} | {g['samples_s']:.2f} | {g['waits']} "
                    f"| {t['gpu_s'] - g['session_s']:.2f} | {t['store_s']:.2f} |")
    print_table(["run", "GPU work s", "in the GPU session s", "module load s", "first launch + check s",
                 "warm-up s", "samples s", "waits for the GPU", "hand-over s", "store (meanwhile) s"], rows)


def ab_table(out):
    """This build against hone_prev: alternated warm runs (bench/run.sh ab)."""
    rows = []
    for n, name in ((16777216, "2^24"), (65536, "2^16")):
        runs = {k: [load(out, f"ab{n}_{k}_{i}") for i in (1, 2, 3)] for k in ("prev", "new")}
        runs = {k: [r for r in v if r] for k, v in runs.items()}
        if not runs["prev"] or not runs["new"]:
            continue
        cells = {}
        for k, rs in runs.items():
            wall = statistics.median(r["time"]["wall_s"] for r in rs)
            busy = statistics.median(r["time"]["wall_s"] / r["time"]["gpu_busy_s"] for r in rs)
            span = statistics.median(r["time"]["wall_s"] / r["time"]["gpu_span_s"] for r in rs)
            setup = statistics.median(r["time"]["setup_s"] for r in rs)
            timed = [x for x in rs[0]["results"] if x["timing"]]
            n_med = statistics.median(x["timing"]["n"] for x in timed)
            nc = statistics.median(sum(x["status"] == "not_converged" for x in r["results"]) for r in rs)
            cells[k] = (wall, busy, span, setup, n_med, nc)
        # Per configuration: the new median over the earlier one, first runs of each.
        med = {k: {x["key"]: x["timing"]["median_us"] for x in runs[k][0]["results"] if x["timing"]}
               for k in runs}
        common = [key for key in med["new"] if key in med["prev"]]
        ratio = statistics.median(med["new"][key] / med["prev"][key] for key in common) if common else float("nan")
        for k in ("prev", "new"):
            wall, busy, span, setup, n_med, nc = cells[k]
            rows.append(f"| {name} | {k} | {wall:.2f} | {setup:.2f} | {busy:.2f} | {span:.2f} | {n_med:.0f} "
                        f"| {nc:.0f} | " + (f"{ratio:.4f}" if k == "new" else "") + " |")
    print_table(["N", "build", "wall s", "setup s", "wall / busy", "wall / span", "median samples",
                 "not converged", "config medians new / prev (median)"], rows,
                "This build against the previous one (warm cache, alternated, median of 3)")


def statuses(run):
    counts = {}
    for r in run["results"]:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))


def evaluation_order(out, label, run):
    """The run's records in the order they were evaluated: the database's insertion order when
    it came back (LABEL.sqlite), else their creation times (millisecond resolution)."""
    by_key = {r["key"]: r for r in run["results"]}
    db = os.path.join(out, label + ".sqlite")
    if os.path.exists(db):
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            keys = [k for (k,) in con.execute(
                "SELECT r.key FROM results r JOIN runs u ON r.run_id = u.run_id "
                "WHERE u.identity = ? ORDER BY r.rowid", (run["identity"]["id"],))]
            con.close()
            if sorted(keys) == sorted(by_key):
                return [by_key[k] for k in keys]
        except sqlite3.Error:
            pass
    return sorted(run["results"], key=lambda r: r["created_at"])


def tflops(r):
    return r["gflops"] / 1000 if r and r.get("gflops") else None


def sgemm_large_table(out, cublas):
    """Issue 11: the budgeted search of the large SGEMM space against the exhaustive subset and
    cuBLAS (bench/run.sh sgemm_large, sgemm_large_random)."""
    subset = load(out, "sgemm_large_subset")
    sub_best = best(subset) if subset else None
    sub_tf = tflops(sub_best)
    cub_tf = cublas["tflops"] if cublas else None

    def frac(tf, ref):
        return f"{100 * tf / ref:.1f}%" if tf and ref else "-"

    rows = []
    # sgemm_large_ab's runs (an earlier build against this one, seed by seed) after the others.
    ab = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(out, "sgemm_ab_*.json"))
                if not p.endswith(".meta.json"))
    for label in ["sgemm_large_search", "sgemm_large_random"] + ab:
        run = load(out, label)
        if not run:
            continue
        meta = {}
        path = os.path.join(out, label + ".meta.json")
        if os.path.exists(path):
            with open(path) as f:
                meta = json.load(f)
        order = evaluation_order(out, label, run)
        b = best(run)
        tf = tflops(b)
        # Evaluations until the best was found, and until 95% of the subset's best.
        at_best = next((i + 1 for i, r in enumerate(order) if b and r["key"] == b["key"]), None)
        at_95 = next((i + 1 for i, r in enumerate(order)
                      if sub_tf and r["status"] in ("ok", "not_converged") and tflops(r)
                      and tflops(r) >= 0.95 * sub_tf), None)
        rows.append(f"| {label} ({meta.get('used', '?')}) | {len(order)} | {tf or 0:.2f} "
                    f"| {at_best or '-'} | {at_95 or 'not reached'} | {frac(tf, sub_tf)} "
                    f"| {frac(tf, cub_tf)} | {run['time']['wall_s']:.0f} | {statuses(run)} "
                    f"| {b['key'] if b else '-'} |")
        if meta.get("note"):
            rows.append(f"| ^ asked for {meta.get('requested')}: {meta['note']} | | | | | | | | | |")
    if subset:
        rows.append(f"| sgemm_large_subset (exhaustive) | {len(subset['results'])} | {sub_tf or 0:.2f} "
                    f"| - | - | 100% | {frac(sub_tf, cub_tf)} | {subset['time']['wall_s']:.0f} "
                    f"| {statuses(subset)} | {sub_best['key'] if sub_best else '-'} |")
    if cublas and rows:
        rows.append(f"| cuBLAS ({cublas['math']}, {cublas['m']}^3) | - | {cub_tf:.2f} | - | - "
                    f"| {frac(cub_tf, sub_tf)} | 100% | - | - | - |")
    print_table(["run", "evaluations", "best TFLOP/s", "evaluations to the best",
                 "evaluations to 95% of the subset's best", "of the subset's best", "of cuBLAS",
                 "wall s", "statuses", "best configuration"], rows,
                "SGEMM, large space: budgeted search, exhaustive subset, cuBLAS (4096^3)")


def main(out):
    print("## Tuning runs\n")
    tuning_table(out, ["va24_cold_jall", "va24_warm_jall", "va24_warm_inproc", "va24_cold_j1",
                       "va16_cold_jall", "va16_warm_jall", "va16_warm_inproc", "va16_cold_j1",
                       "sgemm_cold_jall", "sgemm_warm_jall"])
    tuning_table(out, ["euclid_cold_jall"])
    ab_table(out)
    for label in ["va24_cold_jall", "va16_cold_jall", "sgemm_cold_jall", "euclid_cold_jall"]:
        run = load(out, label)
        if run:
            print(f"- {label}: {statuses(run)}")
    print()
    base = {}
    path = os.path.join(out, "baselines.json")
    if os.path.exists(path):
        for line in open(path):
            try:
                j = json.loads(line)
            except json.JSONDecodeError:
                continue
            key = j["bench"] + (str(j.get("n", "")) if j["bench"] == "vector_add" else "")
            base[key] = j
    iso = [load(out, f"overhead_iso_{i}") for i in range(1, 6)]
    inp = [load(out, f"overhead_inp_{i}") for i in range(1, 6)]
    ratios = {}
    for name, runs in (("supervised", iso), ("in-process", inp)):
        runs = [r for r in runs if r and r["time"]["gpu_busy_s"] > 0]
        if runs:
            ratios[name] = (statistics.median(r["time"]["wall_s"] / r["time"]["gpu_busy_s"] for r in runs),
                            statistics.median(r["time"]["wall_s"] / r["time"].get("gpu_span_s", float("nan"))
                                              for r in runs),
                            statistics.median(r["time"]["setup_s"] for r in runs))
    iso = [r["time"]["wall_s"] for r in iso if r]
    inp = [r["time"]["wall_s"] for r in inp if r]
    if iso and inp:
        mi, mp = statistics.median(iso), statistics.median(inp)
        print("## Isolation overhead (vector_add 2^24, warm cache, alternated runs)\n")
        print(f"- supervised worker: median {mi:.2f} s of {len(iso)} runs {sorted(round(x, 2) for x in iso)}")
        print(f"- in-process: median {mp:.2f} s of {len(inp)} runs {sorted(round(x, 2) for x in inp)}")
        print(f"- overhead: {100 * (mi / mp - 1):+.1f}%")
        for name, (rb, rs, st) in ratios.items():
            print(f"- {name}: median wall / GPU busy {rb:.2f}, wall / GPU span {rs:.2f}, setup {st:.2f} s")
        print()
    print("## Compile throughput (`hone check`, no cache: NVRTC in worker processes)\n")
    print("| config | workers | configurations | wall s | configurations/s |")
    print("|---|---|---|---|---|")
    for name in sorted(os.listdir(out)):
        if name.startswith("compile_") and name.endswith(".json"):
            c = load(out, name[:-5])
            if c:
                cfg = os.path.basename(c["config"]).replace(".yaml", "")
                jobs = name[:-5].rsplit("_j", 1)[1]
                print(f"| {cfg} | {jobs} | {c['compiled']} | {c['wall_s']:.2f} | {c['compiled'] / c['wall_s']:.1f} |")
    print()
    print("## Sample method against the kernel's own time (one fixed vector_add config)\n")
    print("| N | hone, L2 flushed: median µs [95% CI] (mode) | hone, warm L2: median µs [95% CI] (mode) "
          "| events around 100 back-to-back launches, µs per launch |")
    print("|---|---|---|---|")
    for n in (65536, 16777216):
        cells = []
        for kind in ("flush", "warm"):
            run = load(out, f"fixed_{n}_{kind}")
            r = run["results"][0] if run and run["results"] else None
            if r and r["timing"]:
                t = r["timing"]
                cells.append(f"{t['median_us']:.2f} [{t['ci_low_us']:.2f}, {t['ci_high_us']:.2f}] "
                             f"({t['sample_mode']}, n={t['n']})")
            else:
                cells.append("-")
        b = base.get(f"vector_add{n}")
        cells.append(f"{b['us_per_launch']:.2f}" if b else "-")
        print(f"| {n} | " + " | ".join(cells) + " |")
    print()
    print("## Against the ceilings\n")
    copy = base.get("copy")
    va = load(out, "va24_cold_jall")
    b = best(va) if va else None
    if copy and b:
        print(f"- best vector_add at N = 2^24: {b['gbps']:.0f} GB/s ({b['key']}); device-to-device "
              f"copy in the same run: {copy['gbps']:.0f} GB/s (read + write) -> "
              f"{100 * b['gbps'] / copy['gbps']:.1f}% of the copy")
    sgemm_large_table(out, base.get("sgemm"))
    sg = load(out, "sgemm_cold_jall")
    cub = base.get("sgemm")
    b = best(sg) if sg else None
    if cub and b:
        tf = b["gflops"] / 1000
        print(f"- best SGEMM {b['key']}: {tf:.2f} TFLOP/s; cuBLAS SGEMM (FP32, {cub['math']}) at "
              f"{cub['m']}^3: {cub['tflops']:.2f} TFLOP/s -> {100 * tf / cub['tflops']:.1f}% of cuBLAS")
    # The kernel phase (bench/kernel.sh) writes its tables itself.
    for name in ("kernel_bench", "selection_va", "selection_sgemm"):
        path = os.path.join(out, "kernel", name + ".md")
        if os.path.exists(path):
            print()
            with open(path) as f:
                print(f.read())


if __name__ == "__main__":
    main(sys.argv[1])
    import summarize_measure  # issue 12's tables: timers, warm-up before/after, stability

    summarize_measure.main(sys.argv[1])
