#!/usr/bin/env python3
"""Runs hone commands under address-space limits from what they need down, checking that every
level ends with exit code 0 or 3 and, for 3, the out-of-memory message: never a signal
(SIGABRT from an allocation that fails inside a destructor or a noexcept function), never an
internal error.

usage: memory_sweep.py --hone PATH [--records N] [--levels N] [--step-mib M] [--work DIR]

Makes a Kernel Tuner cache of N records (default 200,000: about 9 MB) of two parameters with raw
times, the same records as KTT output, its database (hone import) and its exports, then for
each command (import, replay, report, show --json --all, export t4/csv/kt-cache, merge) finds
the smallest address-space limit it succeeds under (to 1 MiB, by bisection), and runs it at that limit minus 1, 2, 3, ...
MiB (--step-mib) for --levels levels, and at a few levels far below; every limit below the need
that was run, the bisection's included, is checked, each run once. Prints a line per command:
its need and the exit codes seen; exits 1 when any level failed the check.
"""
import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

MESSAGE = "out of memory"


def make_cache(path, records):
    rng = random.Random(5)
    side = int(records ** 0.5) + 1
    with open(path, "w") as f:
        f.write('{"device_name": "GPU", "kernel_name": "k", "problem_size": [1024],\n'
                '"tune_params_keys": ["a", "b"], "tune_params": {"a": [' +
                ", ".join(map(str, range(side))) + '], "b": [' +
                ", ".join(map(str, range(side))) + ']},\n"cache": {\n')
        first = True
        for i in range(records):
            a, b = divmod(i, side)
            t = 1 + rng.random()
            times = ", ".join(f"{t * (1 + 0.01 * k):.4f}" for k in range(4))
            f.write(("" if first else ",\n") +
                    f'"{a},{b}": {{"a": {a}, "b": {b}, "time": {t:.4f}, "times": [{times}]}}')
            first = False
        f.write("}}\n")


def make_ktt(path, records):
    """The same records as KTT 2.x's JSON output (replay reads it)."""
    rng = random.Random(5)
    side = int(records ** 0.5) + 1
    with open(path, "w") as f:
        f.write('{"Metadata": {"Device": "GPU", "TimeUnit": "Milliseconds"}, "Results": [\n')
        for i in range(records):
            a, b = divmod(i, side)
            t = 1 + rng.random()
            f.write(("" if i == 0 else ",\n") +
                    f'{{"KernelName": "k", "Status": "Ok", "TotalDuration": {t:.4f}, '
                    f'"Configuration": [{{"Name": "a", "Value": {a}}}, {{"Name": "b", "Value": {b}}}]}}')
        f.write("]}\n")


def run(hone, args, limit_mib, work):
    def apply():
        os.setsid()
        if limit_mib:
            lim = limit_mib << 20
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name in os.listdir(work):  # outputs of the previous level
        if name.startswith("out"):
            os.remove(os.path.join(work, name))
    p = subprocess.run([hone] + args, cwd=work, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, preexec_fn=apply, timeout=600)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hone", required=True)
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--levels", type=int, default=12, help="levels just below the need")
    ap.add_argument("--step-mib", type=int, default=1)
    ap.add_argument("--work", help="folder for the inputs (default: a temporary one)")
    a = ap.parse_args()
    hone = os.path.abspath(a.hone)
    work = a.work or tempfile.mkdtemp(prefix="hone-memory-sweep-")
    os.makedirs(work, exist_ok=True)
    try:
        cache = os.path.join(work, "cache.json")
        make_cache(cache, a.records)
        ktt = os.path.join(work, "ktt.json")
        make_ktt(ktt, a.records)
        db = os.path.join(work, "r.db")
        if os.path.exists(db):
            os.remove(db)
        subprocess.run([hone, "import", cache, "-o", db], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([hone, "export", db, "--format", "t4", "-o", os.path.join(work, "t4.json")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        commands = {
            "import cache": ["import", cache, "-o", "out.db"],
            "import t4": ["import", "t4.json", "-o", "out.db"],
            "replay": ["replay", cache, "--seeds", "2", "--max-evals", "100", "--strategy",
                       "random"],
            "replay db": ["replay", db, "--seeds", "2", "--max-evals", "100"],
            "replay ktt": ["replay", ktt, "--seeds", "2", "--max-evals", "100", "--strategy",
                           "random"],
            "report": ["report", db, "-o", "out.html"],
            "show --json --all": ["show", db, "--json", "--all"],
            "show": ["show", db, "--all"],
            "export t4": ["export", db, "--format", "t4", "-o", "out.json"],
            "export csv": ["export", db, "--format", "csv", "-o", "out.csv"],
            "export kt-cache": ["export", db, "--format", "kt-cache", "-o", "out.json.gz"],
            "export wisdom": ["export", db, "--wisdom", "out.w.json"],
            "merge": ["merge", db, "-o", "out.db"],
        }
        # What the program needs to start (its libraries mapped): no level below it is tried.
        lo, hi = 1, 8192
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if run(hone, ["--version"], mid, work)[0] == 0:
                hi = mid
            else:
                lo = mid
        start = hi
        print(f"the program starts in {start} MiB of address space")
        failed = 0
        for label, args in commands.items():
            rc, err = run(hone, args, 0, work)
            if rc != 0:
                print(f"{label}: exit {rc} without a limit: {err.strip()[:300]}")
                failed += 1
                continue
            # Every run under a limit counts, the search's too: each limit is run once.
            results = {}  # MiB -> (exit code, standard error)

            def works(mib):
                if mib not in results:
                    results[mib] = run(hone, args, mib, work)
                return results[mib][0] == 0
            lo, hi = start - 1, start + 64  # MiB: fails at lo, works at hi
            while not works(hi) and hi < 65536:
                lo, hi = hi, hi * 2
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if works(mid):
                    hi = mid
                else:
                    lo = mid
            need = hi
            levels = [need - k * a.step_mib for k in range(1, a.levels + 1)]
            levels += [need * 3 // 4, need // 2, need // 4, start + 8, start]
            for mib in sorted({m for m in levels if m >= start}, reverse=True):
                works(mib)
            seen = {}
            bad = []
            for mib, (rc, err) in sorted(results.items(), reverse=True):
                if mib >= need:
                    continue
                seen[rc] = seen.get(rc, 0) + 1
                if rc < 0:
                    bad.append(f"{mib} MiB: killed by {signal.Signals(-rc).name}")
                elif rc not in (0, 3):
                    bad.append(f"{mib} MiB: exit {rc}: {err.strip()[:200]}")
                elif rc == 3 and MESSAGE not in err and "cannot" not in err:
                    bad.append(f"{mib} MiB: exit 3 without the message: {err.strip()[:200]}")
            codes = ", ".join(f"exit {k} x{v}" for k, v in sorted(seen.items()))
            print(f"{label:<20} need {need:>5} MiB; below it: {codes}"
                  + "".join(f"\n    FAIL {b}" for b in bad), flush=True)
            failed += bool(bad)
        print(f"{failed} command(s) failed" if failed else "every level: exit 0 or 3")
        return 1 if failed else 0
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
