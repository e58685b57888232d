"""Kernel Tuner's CUDA examples, each run twice: with Kernel Tuner itself and with its
tune_kernel switched to hone.compat's. The scripts are not edited: the child process imports
kernel_tuner and replaces its tune_kernel (hone mode) before running the script, so
`from kernel_tuner import tune_kernel` and `kernel_tuner.tune_kernel(...)` both get hone's;
everything else the script imports from kernel_tuner stays Kernel Tuner's. In both modes the
replacement times each tune_kernel call and keeps its best configuration.

  kt_examples.py all --examples DIR --out DIR [--budget S] [--runs N] [--only NAME ...]
                    [--dry-run]
  kt_examples.py child --engine kt|hone --script FILE --result JSON [--runs N] [--dry-run]
  kt_examples.py table --out DIR

`all` runs the plan below within a wall-time budget (the device call's limit) and writes
DIR/kt_examples.md, DIR/results.json and one log per run. A compared script runs --runs times
(default 2) in one interpreter: run 1 cold (empty compile caches, a fresh process), run 2 warm;
the table gives each run's figures and, below it, where hone's calls spent their time.
--dry-run (no GPU needed) runs the hone side only, with hone.tune replaced by a check of the
config hone.compat writes: it catches arguments that compat cannot map before a device call.
"""
import argparse
import json
import os
import runpy
import shutil
import subprocess
import sys
import time
import traceback

# The examples in the order they are run, with what is known before running them. "both":
# Kernel Tuner and hone, compared; "hone": hone only, Kernel Tuner probed for a few seconds
# (a script that fails at once is recorded with its error; one that runs is stopped: it does
# not fit the budget, or hone refuses it and nothing is compared). The notes are shown in the
# table.
PLAN = [
    ("vector_add", "both", ""),
    ("vector_add_cupy", "both", ""),
    ("vector_add_metric", "both", ""),
    ("vector_add_nvcuda", "both", ""),
    ("matmul", "both", ""),
    ("stencil", "both", ""),
    ("zeromeanfilter", "both", ""),
    ("spmv", "both", "under NumPy 2 the script's nnz = int(nrows*ncols*0.001) overflows "
                      "int32 (nrows is numpy.int32) to 0: the matrix it tunes on is empty"),
    ("vector_add_custom_strategy", "hone", ""),
    ("vector_add_parallel", "hone", ""),
    ("vector_add_observers_ncu", "hone", ""),
    ("vector_add_observers_pmt", "hone", ""),
    ("vector_add_tegra_observer", "hone", ""),
    ("vector_add_jinja", "hone", ""),
    ("vector_add_jinja2", "hone", ""),
    ("vector_add_codegen", "hone", ""),
    ("texture", "hone", ""),
    ("pnpoly", "hone", ""),
    ("pnpoly_cupy", "hone", ""),
    ("convolution_streams", "hone", ""),
    ("expdist", "hone", "960 + 32 configurations: longer than the budget under Kernel Tuner"),
    ("convolution_correct", "hone",
     "1,440 configurations: longer than the budget under Kernel Tuner"),
    ("vector_add_observers", "hone", ""),
    ("accuracy", "hone", ""),
    ("reduction", "hone", "2,376 configurations and 11 more tunings: beyond the budget"),
    ("convolution", "none", "786,432 configurations: hours under either tuner"),
    ("sepconv", "none", "about 10^5 configurations a call: hours under either tuner"),
    ("sepconv_parallel", "none", "as sepconv, over Ray (parallel=True)"),
    ("python_kernel", "none", "no tune_kernel call (kernelbuilder.PythonKernel)"),
    ("python_kernel_cupy", "none", "no tune_kernel call (kernelbuilder.PythonKernel)"),
    ("test_vector_add", "none", "no tune_kernel call (a pytest of run_kernel)"),
    ("test_vector_add_parameterized", "none", "no tune_kernel call (a pytest of run_kernel)"),
    ("going_green_performance_model", "none", "no tune_kernel call (an energy model)"),
]

PROBE_S = 8  # how long a Kernel Tuner run that is not compared may go on

# The per-configuration times (ms) Kernel Tuner 1.4 puts in each result, and hone.compat too.
KT_SPLIT = ("compile_time", "verification_time", "benchmark_time", "strategy_time",
            "framework_time")


# ---- the child: one script under one engine ----------------------------------------------

def _best(results, names):
    timed = [r for r in results
             if isinstance(r.get("time"), (int, float)) and not isinstance(r.get("time"), bool)]
    if not timed:
        return None, 0
    b = min(timed, key=lambda r: r["time"])
    return {"params": {n: _plain(b.get(n)) for n in names}, "time_ms": float(b["time"])}, \
        len(timed)


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def _dry_tune(path, **options):
    """hone.tune in a dry run: hone loads and checks the config compat wrote; nothing runs."""
    import hone
    info = hone.load_config(path)
    return hone.TuneResult({
        "config": path, "kernel": info["kernel"], "output": info["output"],
        "identity": {"objective": "time"}, "param_names": list(info["params"]), "records": [],
        "resumed": 0, "evaluated": 0, "compiled": 0, "cache_hits": 0, "interrupted": False,
        "remeasure_reason": "", "time": {}, "device": "dry run", "device_ordinal": 0,
        "arch": "sm_90"})


def child(engine, script, result_path, dry_run, runs=1):
    state = {"engine": engine, "script": os.path.basename(script), "calls": [],
             "status": "running", "runs": []}

    def save():
        with open(result_path, "w") as f:
            json.dump(state, f, indent=1, default=str)

    save()
    import kernel_tuner
    import kernel_tuner.interface
    if engine == "hone":
        import hone
        from hone import compat
        if dry_run:
            hone.tune = _dry_tune
        inner = compat.tune_kernel
        state["hone_version"] = hone.__version__
    else:
        inner = kernel_tuner.tune_kernel
        try:
            from kernel_tuner.core import _select_default_cuda_backend
            state["kt_default_backend"] = _select_default_cuda_backend().__module__
        except Exception as e:  # noqa: BLE001 (recorded: no CUDA backend)
            state["kt_default_backend"] = f"none ({e})"
    state["kernel_tuner_version"] = getattr(kernel_tuner, "__version__", "?")

    def tune_kernel(*args, **kwargs):
        tp = args[4] if len(args) > 4 else kwargs.get("tune_params", {})
        names = list(tp) if isinstance(tp, dict) else []
        call = {"kernel": args[0] if args else kwargs.get("kernel_name"),
                "space": _space(tp)}
        state["calls"].append(call)
        t0 = time.perf_counter()
        try:
            out = inner(*args, **kwargs)
        except BaseException as e:
            call["wall_s"] = time.perf_counter() - t0
            call["error"] = f"{type(e).__name__}: {e}"
            save()
            raise
        call["wall_s"] = time.perf_counter() - t0
        results = out[0] if isinstance(out, tuple) else out
        call["best"], call["valid"] = _best(results, names)
        call["results"] = len(results)
        # Kernel Tuner's own account of each configuration (ms), summed over the call.
        split = {}
        for res in results if isinstance(results, list) else []:
            for k in KT_SPLIT:
                v = res.get(k) if isinstance(res, dict) else None
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    split[k] = split.get(k, 0.0) + v / 1000.0
        if split:
            call["split_s"] = split
        env = out[1] if isinstance(out, tuple) and len(out) > 1 else {}
        if isinstance(env, dict):  # hone.compat's account of the call (hone.trace)
            for k in ("hone_phases", "hone_compiled", "hone_cache_hits", "hone_kept",
                      "hone_evaluated", "hone_gpu_busy_s"):
                if k in env:
                    call[k] = env[k]
        save()
        return out

    kernel_tuner.tune_kernel = tune_kernel
    kernel_tuner.interface.tune_kernel = tune_kernel
    os.chdir(os.path.dirname(os.path.abspath(script)))
    sys.argv = [script]
    sys.path.insert(0, os.getcwd())
    # Run 1 in this fresh process (cold caches: the harness gives each example empty ones);
    # run 2 and later run the script again in the same interpreter: each tuner's warm state
    # (Kernel Tuner's CUDA context and CuPy's kernel caches; hone's kept workers and compile
    # cache) is what a second run in a notebook or a script that tunes twice finds.
    for i in range(runs):
        run = {"calls": [], "status": "running"}
        state["runs"].append(run)
        state["calls"] = run["calls"]
        t0 = time.perf_counter()
        try:
            runpy.run_path(script, run_name="__main__")
            run["status"] = "ok"
        except SystemExit as e:
            run["status"] = "ok" if e.code in (None, 0) else f"exit {e.code}"
        except BaseException as e:  # noqa: BLE001 (recorded)
            run["status"] = "error"
            run["error"] = f"{type(e).__name__}: {e}"
            run["traceback"] = traceback.format_exc()[-3000:]
        run["script_s"] = time.perf_counter() - t0
        if i == 0:  # the first run is the example's result; later ones only add timings
            state["calls"] = run["calls"]
            for k in ("status", "error", "traceback", "script_s"):
                if k in run:
                    state[k] = run[k]
        else:
            state["calls"] = state["runs"][0]["calls"]
        save()
        print(f"[{engine}] {state['script']} run {i + 1}: {run['status']} "
              f"{run.get('error', '')}", file=sys.stderr)
        if run["status"] != "ok":
            break


def _space(tp):
    n = 1
    try:
        for v in tp.values():
            n *= len(v)
    except Exception:  # noqa: BLE001
        return None
    return n


# ---- the driver -------------------------------------------------------------------------

def run_one(engine, name, examples, out, timeout, dry_run, env, runs=1):
    work = os.path.join(out, "work", engine)
    if not os.path.isdir(work):
        shutil.copytree(examples, work)
    script = os.path.join(work, name + ".py")
    result = os.path.join(out, f"{name}.{engine}.json")
    log = os.path.join(out, "logs", f"{name}.{engine}.log")
    cmd = [sys.executable, os.path.abspath(__file__), "child", "--engine", engine, "--script",
           script, "--result", result, "--runs", str(runs)] + (["--dry-run"] if dry_run else [])
    # Each example starts from empty compile caches, for both tuners: hone's, and CuPy's (Kernel
    # Tuner's cupy backend compiles through it; so does hone.compat's answer check).
    env = dict(env)
    for var, kind in (("HONE_CACHE_DIR", "hone"), ("CUPY_CACHE_DIR", "cupy")):
        env[var] = os.path.join(out, "work", "caches", f"{name}.{engine}.{kind}")
        os.makedirs(env[var], exist_ok=True)
    t0 = time.perf_counter()
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)
        try:
            p.wait(timeout=max(1, timeout))
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.wait()
            timed_out = True
    wall = time.perf_counter() - t0
    try:
        with open(result) as f:
            r = json.load(f)
    except (OSError, ValueError):
        r = {"status": "error", "error": f"no result (exit {p.returncode}): see the log",
             "calls": []}
    if timed_out:
        r["status"] = "timeout"
        r["timeout_s"] = timeout
    r["wall_s"] = wall
    r["log"] = os.path.relpath(log, out)
    with open(result, "w") as f:
        json.dump(r, f, indent=1, default=str)
    print(f"  {engine:4} {name}: {r['status']} in {wall:.1f} s "
          f"{r.get('error', '')[:160]}", flush=True)
    return r


def run_all(args):
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    examples = os.path.abspath(args.examples)
    env = dict(os.environ)
    deadline = time.perf_counter() + args.budget
    plan = [p for p in PLAN if not args.only or p[0] in args.only]
    summary = [{"example": name, "mode": mode, "note": note} for name, mode, note in plan]

    def save():
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump(summary, f, indent=1, default=str)

    # The compared examples first (Kernel Tuner, then hone), then hone alone on the others,
    # then, with what time is left, short Kernel Tuner probes of those.
    phases = [("both", "kt"), ("both", "hone"), ("hone", "hone"), ("hone", "kt")]
    if args.dry_run:
        phases = [("both", "hone"), ("hone", "hone")]
    for i, (mode, engine) in enumerate(phases):
        for entry in summary:
            name = entry["example"]
            if entry["mode"] != mode or entry.get("skipped"):
                continue
            if not os.path.isfile(os.path.join(examples, name + ".py")):
                entry["skipped"] = "not among the examples"
                continue
            left = deadline - time.perf_counter()
            if mode == "both" and engine == "kt":
                # Leave each compared example's hone run 20 s.
                later = sum(1 for e in summary if e["mode"] == "both" and "kt" not in e) - 1
                limit = min(args.kt_limit, left - 20 * (later + 1))
            elif engine == "kt":
                limit = min(PROBE_S, left - 5)
            else:
                limit = min(120, left - 5)
            if limit < 5:
                if engine == "hone" or mode == "both":
                    entry["skipped"] = "the harness's time budget ran out"
                continue
            entry[engine] = run_one(engine, name, examples, out, limit,
                                    args.dry_run and engine == "hone", env,
                                    args.runs if mode == "both" and not args.dry_run else 1)
            save()
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(summary, f, indent=1, default=str)
    table = make_table(summary, args.dry_run)
    with open(os.path.join(out, "kt_examples.md"), "w") as f:
        f.write(table)
    print(table)


def _tune_s(r, run=0):
    """The wall time of run `run`'s tune_kernel calls, summed (None: that run did not finish)."""
    runs = r.get("runs") or [{"calls": r.get("calls", []), "status": r.get("status")}]
    if run >= len(runs) or not runs[run]["calls"] or \
            any("error" in c or "wall_s" not in c for c in runs[run]["calls"]):
        return None
    return sum(c["wall_s"] for c in runs[run]["calls"])


def _ran(r):
    """Every tune_kernel call of the script returned results with a timed configuration."""
    return r is not None and bool(r.get("calls")) and \
        all("error" not in c and c.get("valid") for c in r["calls"])


def _after(r):
    """The script's own failure after its tune_kernel calls succeeded, if any."""
    if _ran(r) and r.get("status") not in ("ok", None):
        return "the script failed after tuning: " + \
            (r.get("error") or r["status"]).splitlines()[0][:160]
    return ""


def _reason(r):
    if r is None:
        return ""
    if r.get("status") == "timeout":
        return f"still running after {r['timeout_s']:.0f} s (stopped)"
    for c in r.get("calls", []):
        if "error" in c:
            return c["error"].splitlines()[0][:200]
        if not c.get("valid"):
            return "no configuration ran"
    if not r.get("calls") and r.get("status") == "ok":
        return "the script made no tune_kernel call"
    return (r.get("error") or r.get("status", "")).splitlines()[0][:200]


def _best_text(r):
    parts = []
    for c in (r or {}).get("calls", []):
        b = c.get("best")
        if b:
            kv = ", ".join(f"{k}={v}" for k, v in b["params"].items())
            parts.append(f"{kv}: {b['time_ms']:.4g} ms")
    return "<br>".join(parts)


def _secs(v):
    return "" if v is None else f"{v:.2f}"


def make_table(summary, dry_run=False):
    runs = max([len((e.get(k) or {}).get("runs") or [1]) for e in summary for k in ("kt", "hone")]
               + [1])
    head = ["example", "runs under hone", "reason (if not)"]
    for i in range(runs):
        head += [f"KT run {i + 1} s", f"hone run {i + 1} s", f"speed-up run {i + 1}"]
    head += ["best KT", "best hone"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in summary:
        kt, hn = e.get("kt"), e.get("hone")
        if e.get("skipped") or e["mode"] == "none":
            cells = [e["example"], "not run", e.get("skipped") or e["note"]]
            lines.append("| " + " | ".join(cells + [""] * (len(head) - 3)) + " |")
            continue
        compared = e["mode"] == "both"
        dry_ok = dry_run and hn and hn.get("calls") and \
            all("error" not in c for c in hn["calls"])
        ok = _ran(hn)
        cells = [e["example"], "config accepted (dry run)" if dry_ok else "yes" if ok else "no",
                 _after(hn) if ok or dry_ok else _reason(hn)]
        if e["note"]:
            cells[2] = (cells[2] + "; " if cells[2] else "") + e["note"]
        for i in range(runs):
            kt_s = _tune_s(kt, i) if kt and _ran(kt) else None
            hn_s = _tune_s(hn, i) if ok and not dry_run else None
            if kt_s is not None:
                kt_text = _secs(kt_s)
            elif i == 0 and kt and kt.get("status") == "timeout":
                kt_text = f"> {kt['timeout_s']:.0f} (stopped)" if compared else \
                    f"runs; stopped at {kt['timeout_s']:.0f} s, not compared"
            elif i == 0 and kt and not _ran(kt):
                kt_text = "fails: " + _reason(kt)
            else:
                kt_text = ""
            speed = ""
            if compared and hn_s:
                if kt_s is not None:
                    speed = f"{kt_s / max(hn_s, 1e-9):.1f}x"
                elif i == 0 and kt and kt.get("status") == "timeout":
                    speed = f"> {kt['timeout_s'] / max(hn_s, 1e-9):.1f}x"
            cells += [kt_text, _secs(hn_s), speed]
        cells += [_best_text(kt) if kt else "", _best_text(hn)]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ")
                                       for c in cells) + " |")
    notes = [
        "",
        "KT: Kernel Tuner 1.4.0 running the script unchanged; hone: the same script with "
        "kernel_tuner.tune_kernel replaced by hone.compat.tune_kernel before it runs. "
        "run N s: the wall time of the script's tune_kernel calls in its N-th run, summed. "
        "Run 1: a fresh interpreter with empty compile caches (hone's, and CuPy's, which Kernel "
        "Tuner's cupy backend compiles through); run 2: the script again in the same "
        "interpreter (Kernel Tuner: its CUDA context and CuPy's caches warm; hone: its kept GPU "
        "worker and compile workers, and its compile cache). Speed-up: KT s / hone s of the "
        "same run. Best: the fastest configuration of each call of run 1 and its time (ms; "
        "Kernel Tuner's mean of its iterations, hone's mean of its samples).",
    ]
    backends = sorted({e["kt"]["kt_default_backend"] for e in summary
                       if e.get("kt") and e["kt"].get("kt_default_backend")})
    if backends:
        notes.append("Kernel Tuner's default CUDA backend (lang CUDA or none given): " +
                     ", ".join(backends) + ".")
    return "\n".join(lines + notes) + "\n" + breakdown(summary)


def breakdown(summary, floor_s=0.0005):
    """Where hone's tune_kernel calls spent their time (hone.trace's phases), one table an
    example: a row a phase, a column a call of each run; and Kernel Tuner's own account."""
    out = ["", "## Where Kernel Tuner's time went (its results' per-configuration times, "
           "summed, seconds)", "",
           "| example | call | " + " | ".join(KT_SPLIT) + " | tune_kernel call |",
           "|---|---|" + "---|" * (len(KT_SPLIT) + 1)]
    for e in summary:
        for i, run in enumerate((e.get("kt") or {}).get("runs") or []):
            for j, c in enumerate(run.get("calls", [])):
                if c.get("split_s"):
                    out.append(f"| {e['example']} | run {i + 1} call {j + 1} | " + " | ".join(
                        f"{c['split_s'].get(k, 0):.3f}" for k in KT_SPLIT) +
                        f" | {c.get('wall_s', 0):.3f} |")
    out += ["", "## Where hone's time went (HONE_TRACE phases, seconds)", ""]
    for e in summary:
        hn = e.get("hone")
        if not hn:
            continue
        cols = []
        for i, run in enumerate(hn.get("runs") or []):
            for j, c in enumerate(run.get("calls", [])):
                if c.get("hone_phases"):
                    cols.append((f"run {i + 1} call {j + 1}", c))
        if not cols:
            continue
        names = []
        for _, c in cols:
            for name, _ in c["hone_phases"]:
                if name not in names:
                    names.append(name)
        out.append(f"### {e['example']}")
        out.append("")
        out.append("| phase | " + " | ".join(h for h, _ in cols) + " |")
        out.append("|---|" + "---|" * len(cols))
        for name in names:
            vals = [dict((n, v) for n, v in c["hone_phases"]).get(name) for _, c in cols]
            if all(v is None or abs(v) < floor_s for v in vals):
                continue
            out.append(f"| {name} | " + " | ".join("" if v is None else f"{v:.3f}"
                                                  for v in vals) + " |")
        out.append("| **tune_kernel call** | " +
                   " | ".join(f"**{c.get('wall_s', 0):.3f}**" for _, c in cols) + " |")
        out.append("| of the GPU work: the kernels' own time (warm-up, samples) | " + " | ".join(
            "" if c.get("hone_gpu_busy_s") is None else f"{c['hone_gpu_busy_s']:.3f}"
            for _, c in cols) + " |")
        out.append("| compiled / from cache | " + " | ".join(
            f"{c.get('hone_compiled', '?')} / {c.get('hone_cache_hits', '?')}"
            for _, c in cols) + " |")
        out.append("| GPU worker | " + " | ".join(
            ("reused" if c.get("hone_kept", {}).get("gpu_reused") else "started")
            if c.get("hone_kept", {}).get("used") else "per call" for _, c in cols) + " |")
        out.append("")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("all")
    a.add_argument("--examples", required=True)
    a.add_argument("--out", required=True)
    a.add_argument("--budget", type=float, default=320)
    a.add_argument("--kt-limit", type=float, default=100)
    a.add_argument("--only", nargs="*")
    a.add_argument("--dry-run", action="store_true")
    a.add_argument("--runs", type=int, default=2,
                   help="runs of each compared script in one interpreter (run 1: cold)")
    c = sub.add_parser("child")
    c.add_argument("--engine", choices=["kt", "hone"], required=True)
    c.add_argument("--script", required=True)
    c.add_argument("--result", required=True)
    c.add_argument("--dry-run", action="store_true")
    c.add_argument("--runs", type=int, default=1)
    t = sub.add_parser("table")
    t.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.cmd == "child":
        child(args.engine, args.script, args.result, args.dry_run, args.runs)
    elif args.cmd == "all":
        run_all(args)
    else:
        with open(os.path.join(args.out, "results.json")) as f:
            print(make_table(json.load(f)))


if __name__ == "__main__":
    main()
